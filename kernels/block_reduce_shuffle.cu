// block_reduce_shuffle: out[b] = sum of block b's 16 floats: a __shfl_down_sync sum in each warp, the 4 warp sums through __shared__, added by thread 0
// run: --grid 2 --block 16 --arg x=[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1,1.1,1.2,1.3,1.4,1.5,1.6] --arg out=[0,0]
// run: --grid 1 --block 16 --arg x=[1e8,1,1,1,-1e8,1,1,1,3,3,3,3,1e-45,1e-45,-0,0] --arg out=[0]
extern "C" __global__ void block_reduce_shuffle(const float *x, float *out) {
  __shared__ float warp_sum[4];
  int t = threadIdx.x;
  float v = x[blockIdx.x * blockDim.x + t];
  for (int d = warpSize / 2; d > 0; d /= 2) v = v + __shfl_down_sync(0xffffffff, v, d);
  if (t % warpSize == 0) warp_sum[t / warpSize] = v;
  __syncthreads();
  if (t == 0) out[blockIdx.x] = (warp_sum[0] + warp_sum[1]) + (warp_sum[2] + warp_sum[3]);
}
