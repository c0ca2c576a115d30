// global_scratch: out[t] = in[t] + in[15 - t] through a mutable __device__ module array shared by the block (block 16, grid 1)
// run: --grid 1 --block 16 --arg in=[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15] --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
// run: --grid 1 --block 16 --arg in=[47,-79,25,96,-33,-90,-99,-62,70,51,21,95,89,-4,-18,98] --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
__device__ int g_scratch[16];

extern "C" __global__ void global_scratch(const int *in, int *out) {
  int t = threadIdx.x;
  g_scratch[t] = in[t];
  __syncthreads();
  out[t] = g_scratch[t] + g_scratch[15 - t];
}
