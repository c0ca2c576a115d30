// saxpy_float: y[i] = a * x[i] + y[i] for i < n, written naturally: clang fuses it into one fma (one rounding)
// oracle: contract
// run: --grid 3 --block 4 --arg a=2.5 --arg x=[1,2,3,4,5,6,7,8,9,10] --arg y=[0.5,0.25,-1,1e-3,100,-7.5,3,0,1e30,-1e30] --arg n=10
// run: --grid 2 --block 4 --arg a=0.1 --arg x=[0.1,0.2,0.3,16777216,-3,1e-38,3.4e38,inf] --arg y=[-0.01,-0.02,-0.03,1,0.3,1e-45,3.4e38,-inf] --arg n=8
// The product 0.1 * 0.1 is not rounded before the add: with an fma, y[0] = 0.1*0.1 - 0.01
// is the rounding error of 0.01, not 0; the last element is inf - inf = nan.
extern "C" __global__ void saxpy_float(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
