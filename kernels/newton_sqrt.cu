// newton_sqrt: r[i] = Newton's iteration r = 0.5 (r + a/r) for sqrt(a[i]) from r = a (or 1 when a < 1), 8 steps, with sqrtf for comparison
// run: --grid 2 --block 4 --arg a=[2,3,4,0.25,100,1e6,0.01,1] --arg r=[0,0,0,0,0,0,0,0] --arg s=[0,0,0,0,0,0,0,0]
// run: --grid 1 --block 4 --arg a=[10,12345,0.5,7] --arg r=[0,0,0,0] --arg s=[0,0,0,0]
extern "C" __global__ void newton_sqrt(const float *a, float *r, float *s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = a[i];
  float x = v < 1.0f ? 1.0f : v;
  for (int k = 0; k < 8; k++) x = 0.5f * (x + v / x);
  r[i] = x;
  s[i] = sqrtf(v);
}
