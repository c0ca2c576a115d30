// bit_intrinsics: pop[i] = __popc(x), lz[i] = __clz(x), ffs[i] = __ffs(x) (1-based lowest set bit, 0 for 0) for each x[i]
// run: --grid 2 --block 4 --arg x=[0,1,-1,-2147483648,96,4096,2147483647,-6] --arg pop=[0,0,0,0,0,0,0,0] --arg lz=[0,0,0,0,0,0,0,0] --arg ffs=[0,0,0,0,0,0,0,0] --arg n=8
extern "C" __global__ void bit_intrinsics(const int *x, int *pop, int *lz, int *ffs, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = x[i];
  pop[i] = __popc(v);
  lz[i] = __clz(v);
  ffs[i] = __ffs(v);
}
