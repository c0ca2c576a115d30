// sqrt_div_exact: s[i] = sqrtf(x[i]), q[i] = x[i] / y[i] on edge values: zeros, subnormals, huge, negatives (nan), inf, x/0
// run: --grid 2 --block 8 --arg x=[0,-0,1e-45,1.1754942e-38,3.4028235e38,-1,inf,-inf,nan,2,1e-40,16777217,1,-1,0,-0] --arg y=[1,1,1,2,0.5,-0,0,inf,1,3,1e30,3,0,0,0,-0] --arg s=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg q=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
// run: --grid 1 --block 6 --arg x=[0f00000001,0f007fffff,1e38,10,1,4] --arg y=[0f00000002,4,1e-38,3,3,0f00400000] --arg s=[0,0,0,0,0,0] --arg q=[0,0,0,0,0,0]
extern "C" __global__ void sqrt_div_exact(const float *x, const float *y, float *s, float *q) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[i] = sqrtf(x[i]);
  q[i] = x[i] / y[i];
}
