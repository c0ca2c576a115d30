// div_mod_var: q[i] = a[i] / b[i], r[i] = a[i] % b[i] for nonzero b, signed (truncated) division by a variable
// run: --grid 3 --block 4 --arg a=[7,-7,7,-7,0,1,-1,100,-2147483647,2147483647,5,-5] --arg b=[2,2,-2,-2,3,-1,5,7,2,-3,10,10] --arg q=[0,0,0,0,0,0,0,0,0,0,0,0] --arg r=[0,0,0,0,0,0,0,0,0,0,0,0] --arg n=12
extern "C" __global__ void div_mod_var(const int *a, const int *b, int *q, int *r, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    q[i] = a[i] / b[i];
    r[i] = a[i] % b[i];
  }
}
