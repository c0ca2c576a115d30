// reduce_blocks_atomic: total[0] = sum of in[0..n): each block of 8 reduces in __shared__, then one atomicAdd per block
// run: --grid 4 --block 8 --arg in=[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30] --arg total=[0] --arg n=30
// run: --grid 2 --block 8 --arg in=[74,-43,95,18,-25,-94,7,43,65,-74,-52,62,86] --arg total=[1000] --arg n=13
extern "C" __global__ void reduce_blocks_atomic(const int *in, int *total, int n) {
  __shared__ int part[8];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  part[t] = i < n ? in[i] : 0;
  __syncthreads();
  for (int s = 4; s > 0; s >>= 1) {
    if (t < s) part[t] += part[t + s];
    __syncthreads();
  }
  if (t == 0) atomicAdd(total, part[0]);
}
