// poly_horner: y[i] = c[0] + c[1]*x + ... + c[m-1]*x^(m-1) at x = x[i], by Horner's rule
// run: --grid 2 --block 4 --arg c=[1,-2,0,3] --arg m=4 --arg x=[0,1,-1,2,-2,3,10] --arg y=[0,0,0,0,0,0,0] --arg n=7
// run: --grid 1 --block 4 --arg c=[5] --arg m=1 --arg x=[9,8,7] --arg y=[0,0,0] --arg n=3
extern "C" __global__ void poly_horner(const int *c, int m, const int *x, int *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = x[i], acc = 0;
  for (int k = m - 1; k >= 0; k--) acc = acc * v + c[k];
  y[i] = acc;
}
