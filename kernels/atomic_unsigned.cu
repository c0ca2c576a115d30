// atomic_unsigned: unsigned atomics: acc += v (wraps mod 2^32), hi = max and lo = min in unsigned order (signed view shown)
// run: --grid 2 --block 4 --arg v=[1,-1,2147483647,-2147483648,5,100,-100,7] --arg acc=[0] --arg hi=[0] --arg lo=[-1] --arg n=8
// run: --grid 1 --block 4 --arg v=[3,1,2] --arg acc=[-2] --arg hi=[2] --arg lo=[2] --arg n=3
extern "C" __global__ void atomic_unsigned(const unsigned *v, unsigned *acc, unsigned *hi,
                                           unsigned *lo, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(acc, v[i]);
    atomicMax(hi, v[i]);
    atomicMin(lo, v[i]);
  }
}
