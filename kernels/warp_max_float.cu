// warp_max_float: out[w] = fmaxf over warp w's 4 values (a __shfl_down_sync tree; NaNs are skipped, -0 < +0)
// run: --grid 1 --block 16 --arg x=[1,5,3,2,-1,-5,-3,-2,nan,nan,2,nan,-0,0,-0,-0] --arg out=[0,0,0,0]
// run: --grid 2 --block 8 --arg x=[nan,nan,nan,nan,-inf,-inf,-inf,-1e-45,1e30,inf,1,2,1e-45,0,-0,1e-44] --arg out=[0,0,0,0]
extern "C" __global__ void warp_max_float(const float *x, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = x[i];
  for (int d = warpSize / 2; d > 0; d /= 2)
    v = fmaxf(v, __shfl_down_sync(0xffffffff, v, d));
  if (threadIdx.x % warpSize == 0) out[i / warpSize] = v;
}
