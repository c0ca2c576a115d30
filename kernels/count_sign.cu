// count_sign: counts[0..2] = how many of x[0..n) are negative, zero, positive (atomicAdd on three counters)
// run: --grid 3 --block 4 --arg x=[-3,0,5,7,-1,0,0,2,9,-8] --arg counts=[0,0,0] --arg n=10
// run: --grid 2 --block 8 --arg x=[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16] --arg counts=[0,0,0] --arg n=16
extern "C" __global__ void count_sign(const int *x, int *counts, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = x[i];
  if (v < 0)
    atomicAdd(&counts[0], 1);
  else if (v == 0)
    atomicAdd(&counts[1], 1);
  else
    atomicAdd(&counts[2], 1);
}
