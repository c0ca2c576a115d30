// saxpy_unfused: y[i] = __fmul_rn(a, x[i]) + y[i] for i < n: the product is rounded before the add (never an fma)
// run: --grid 3 --block 4 --arg a=0.1 --arg x=[0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1] --arg y=[-0.01,-0.02,-0.03,-0.04,-0.05,-0.06,-0.07,-0.08,-0.09,-0.1] --arg n=10
// run: --grid 2 --block 3 --arg a=-3e38 --arg x=[2,-2,1e-45,0,-0,inf] --arg y=[3e38,0,0,-0,-0,inf] --arg n=6
// Compare saxpy_fma: here -3e38 * 2 rounds to -inf first, and 0.1f*0.1f - 0.01f is the
// rounding error of the product.
extern "C" __global__ void saxpy_unfused(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __fmul_rn(a, x[i]) + y[i];
}
