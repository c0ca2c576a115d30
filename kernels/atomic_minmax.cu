// atomic_minmax: lohi[0] = min, lohi[1] = max of x[0..n) by atomicMin/atomicMax; the initial words take part
// run: --grid 2 --block 8 --arg x=[5,-3,17,0,-3,22,9,1,4,-20,6,6,15] --arg lohi=[2147483647,-2147483648] --arg n=13
// run: --grid 1 --block 4 --arg x=[-7,-8] --arg lohi=[0,0] --arg n=2
extern "C" __global__ void atomic_minmax(const int *x, int *lohi, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicMin(&lohi[0], x[i]);
    atomicMax(&lohi[1], x[i]);
  }
}
