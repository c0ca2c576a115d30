// compare_sign: cmp[i] = (a[i] > b[i]) - (a[i] < b[i]), signed and unsigned (ucmp) orderings
// run: --grid 2 --block 4 --arg a=[1,5,-1,0,-2147483648,7,3] --arg b=[2,5,1,-1,2147483647,7,-3] --arg cmp=[0,0,0,0,0,0,0] --arg ucmp=[0,0,0,0,0,0,0] --arg n=7
extern "C" __global__ void compare_sign(const int *a, const int *b, int *cmp, int *ucmp, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = a[i], y = b[i];
  unsigned ux = x, uy = y;
  cmp[i] = (x > y) - (x < y);
  ucmp[i] = (ux > uy) - (ux < uy);
}
