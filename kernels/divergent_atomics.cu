// divergent_atomics: even x add to sums[0], odd x to sums[1], negative x also count in sums[2]: atomics on divergent paths
// run: --grid 2 --block 8 --arg x=[1,2,3,4,5,6,-7,-8,9,10,11,12,-13,14,15,16] --arg sums=[0,0,0] --arg n=16
// run: --grid 1 --block 4 --arg x=[-1,-2,-3] --arg sums=[100,100,100] --arg n=3
extern "C" __global__ void divergent_atomics(const int *x, int *sums, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = x[i];
  if (v % 2 == 0) {
    atomicAdd(&sums[0], v);
  } else {
    atomicAdd(&sums[1], v);
  }
  if (v < 0) atomicAdd(&sums[2], 1);
}
