// div_mod_const: for each x: q7 = x / 7, r5 = x % 5, qm3 = x / -3, rm3 = x % -3 (C truncation toward zero on negatives)
// run: --grid 3 --block 4 --arg x=[0,1,6,7,-7,-8,13,-13,100,-100,2147483647,-2147483647] --arg q7=[0,0,0,0,0,0,0,0,0,0,0,0] --arg r5=[0,0,0,0,0,0,0,0,0,0,0,0] --arg qm3=[0,0,0,0,0,0,0,0,0,0,0,0] --arg rm3=[0,0,0,0,0,0,0,0,0,0,0,0] --arg n=12
extern "C" __global__ void div_mod_const(const int *x, int *q7, int *r5, int *qm3, int *rm3, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = x[i];
  q7[i] = v / 7;
  r5[i] = v % 5;
  qm3[i] = v / -3;
  rm3[i] = v % -3;
}
