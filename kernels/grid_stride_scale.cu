// grid_stride_scale: out[i] = 3 * in[i] - 1 for every i < n, by a grid-stride loop
// run: --grid 2 --block 4 --arg in=[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20] --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg n=21
// run: --grid 3 --block 2 --arg in=[-4,9,-16,25] --arg out=[0,0,0,0] --arg n=4
extern "C" __global__ void grid_stride_scale(const int *in, int *out, int n) {
  int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = 3 * in[i] - 1;
}
