// nan_inf_arith: sum/dif/prod/quot[i] = a[i] + b[i], a - b, a * b, a / b on infinities, NaNs and zeros: inf - inf, 0 * inf, 0 / 0 give nan, x / 0 gives a signed inf
// run: --grid 2 --block 5 --arg a=[inf,0,0,1,-1,nan,inf,-0,3.4028235e38,1] --arg b=[inf,inf,0,0,0,1,-inf,0,3.4028235e38,-0] --arg sum=[0,0,0,0,0,0,0,0,0,0] --arg dif=[0,0,0,0,0,0,0,0,0,0] --arg prod=[0,0,0,0,0,0,0,0,0,0] --arg quot=[0,0,0,0,0,0,0,0,0,0]
// run: --grid 1 --block 4 --arg a=[-inf,-0,-0,5] --arg b=[-inf,-0,0,nan] --arg sum=[0,0,0,0] --arg dif=[0,0,0,0] --arg prod=[0,0,0,0] --arg quot=[0,0,0,0]
// -0 + -0 = -0 but -0 - -0 = +0 and -0 + +0 = +0 (round to nearest).
extern "C" __global__ void nan_inf_arith(const float *a, const float *b, float *sum, float *dif, float *prod, float *quot) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = a[i], y = b[i];
  sum[i] = x + y;
  dif[i] = x - y;
  prod[i] = x * y;
  quot[i] = x / y;
}
