// dot_warp: out[w] = dot product of warp w's 4 elements of x and y: a product per lane, then a butterfly sum with __shfl_xor_sync (warpSize 4)
// run: --grid 1 --block 16 --arg x=[1,2,3,4,0.5,0.5,0.5,0.5,1e20,1,-1e20,1,0.1,0.2,0.3,0.4] --arg y=[1,2,3,4,2,4,8,16,1e20,1,1e20,1,10,10,10,10] --arg out=[0,0,0,0]
// run: --grid 2 --block 8 --arg x=[3,-3,1e-30,1e-30,inf,1,1,1,-0,0,-0,-0,7,7,7,7] --arg y=[5,5,1e-30,1e-30,0,1,1,1,1,1,1,1,0.5,-0.5,0.25,-0.25] --arg out=[0,0,0,0]
// Lane order of the adds is the butterfly's: ((x0+x1)+(x2+x3)) on every lane.
extern "C" __global__ void dot_warp(const float *x, const float *y, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = __fmul_rn(x[i], y[i]);
  for (int mask = 1; mask < warpSize; mask *= 2)
    v = v + __shfl_xor_sync(0xffffffff, v, mask);
  if (threadIdx.x % warpSize == 0) out[i / warpSize] = v;
}
