// warp_broadcast_float: out[i] = x[i] * (the value of lane src of thread i's warp), the float moved bit for bit by __shfl_sync
// run: --grid 1 --block 16 --arg x=[1,2,3,4,0.5,-0.5,1e-45,8,3,1e38,-2,nan,0.1,0.2,0.3,0.4] --arg src=2 --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
// run: --grid 2 --block 4 --arg x=[-0,1,2,3,inf,0,5,6] --arg src=4 --arg out=[0,0,0,0,0,0,0,0]
// src = 4 is lane 0 (the source lane counts modulo the width, 4).
extern "C" __global__ void warp_broadcast_float(const float *x, int src, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = x[i];
  out[i] = v * __shfl_sync(0xffffffff, v, src);
}
