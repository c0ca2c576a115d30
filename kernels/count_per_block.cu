// count_per_block: evens[b] = how many of block b's values are even: a __shared__ counter per block (atomicAdd in shared)
// run: --grid 4 --block 4 --arg x=[1,2,3,4,6,8,10,12,1,3,5,7,0,-2,-3,9] --arg evens=[0,0,0,0] --arg n=16
// run: --grid 3 --block 4 --arg x=[2,4,6,8,1,1,1,1,2,2] --arg evens=[0,0,0] --arg n=10
extern "C" __global__ void count_per_block(const int *x, int *evens, int n) {
  __shared__ int count;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0) count = 0;
  __syncthreads();
  if (i < n && x[i] % 2 == 0) atomicAdd(&count, 1);
  __syncthreads();
  if (threadIdx.x == 0) evens[blockIdx.x] = count;
}
