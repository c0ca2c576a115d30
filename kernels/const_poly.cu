// const_poly: y[i] = sum of kCoeff[k] * x^k for k < 4 with the coefficients in __constant__ memory, plus a __constant__ scale
// run: --grid 2 --block 4 --arg x=[0,1,-1,2,-2,3,10] --arg y=[0,0,0,0,0,0,0] --arg n=7
__constant__ int kCoeff[4] = {7, -3, 0, 2};  // 7 - 3x + 2x^3
__constant__ int kScale = 5;

extern "C" __global__ void const_poly(const int *x, int *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = x[i], acc = 0, p = 1;
  for (int k = 0; k < 4; k++) {
    acc += kCoeff[k] * p;
    p *= v;
  }
  y[i] = kScale * acc;
}
