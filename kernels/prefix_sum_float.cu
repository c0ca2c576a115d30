// prefix_sum_float: out[i] = x[w*4] + ... + x[i] within each warp of 4 lanes (inclusive scan with __shfl_up_sync; float adds in scan order)
// run: --grid 1 --block 16 --arg x=[1,2,3,4,0.1,0.2,0.3,0.4,1e8,1,1,1,-0,-0,-0,0] --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
// run: --grid 2 --block 8 --arg x=[inf,1,-inf,1,0.5,0.25,0.125,0.0625,3,-3,1e-45,1e-45,16777216,1,1,1] --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
extern "C" __global__ void prefix_sum_float(const float *x, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % warpSize;
  float v = x[i];
  for (int d = 1; d < warpSize; d *= 2) {
    float up = __shfl_up_sync(0xffffffff, v, d);
    if (lane >= d) v = v + up;
  }
  out[i] = v;
}
