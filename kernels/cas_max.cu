// cas_max: best[0] = max(best[0], x[0..n)) with a lock-free atomicCAS retry loop (no atomicMax)
// run: --grid 3 --block 4 --arg x=[3,17,-4,17,8,0,12,16,1,2] --arg best=[-1000] --arg n=10
// run: --grid 1 --block 16 --arg x=[-9,-8,-7,-6,-5,-4,-3,-2,-1,-10,-11,-12,-13,-14,-15,-16] --arg best=[-100] --arg n=16
// run: --grid 1 --block 4 --arg x=[1,2,3] --arg best=[5] --arg n=3
static __device__ int cas_max_word(int *p, int v) {
  int old = *p;
  while (v > old) {
    int seen = atomicCAS(p, old, v);
    if (seen == old) break;  // swapped in
    old = seen;              // someone else wrote first: retry against their value
  }
  return old;
}

extern "C" __global__ void cas_max(const int *x, int *best, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) cas_max_word(best, x[i]);
}
