// lerp_float: out[i] = a[i] + t[i] (b[i] - a[i]) as fmaf(t, b - a, a), exact at t = 0 and (when b - a is exact) at t = 1
// run: --grid 2 --block 4 --arg a=[0,0,1,-1,10,1e30,0.1,5] --arg b=[1,1,2,1,20,-1e30,0.3,5] --arg t=[0,1,0.5,0.25,0.1,0.5,0.5,0.7] --arg out=[0,0,0,0,0,0,0,0]
// run: --grid 1 --block 4 --arg a=[3.4028235e38,-inf,0,1] --arg b=[-3.4028235e38,inf,nan,2] --arg t=[0.5,0.5,0,2] --arg out=[0,0,0,0]
// b - a overflows to -inf for +-3.4e38, so that midpoint is -inf; -inf + 0.5 * inf is nan.
extern "C" __global__ void lerp_float(const float *a, const float *b, const float *t, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = fmaf(t[i], b[i] - a[i], a[i]);
}
