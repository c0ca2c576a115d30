// shared_reverse: d[0..n) reversed in place through __shared__ memory (n = blockDim.x, one block): staticReverse with a static array, dynamicReverse with extern __shared__
// from: NVIDIA Developer Blog, "Using Shared Memory in CUDA C/C++" (Mark Harris, 2013) (staticReverse and dynamicReverse, as written; s[64] -> s[16]); single-block kernels by design (every block reverses the same d)
// run: --grid 1 --block 16 --kernel staticReverse --arg d=[16,-24,20,-29,-21,31,25,11,-46,46,39,43,11,12,43,-44] --arg n=16
// run: --grid 1 --block 16 --kernel dynamicReverse --shared 64 --arg d=[-44,38,30,-24,14,-25,2,13,48,28,-13,7,8,-47,-27,-35] --arg n=16
// run: --grid 1 --block 6 --kernel dynamicReverse --shared 24 --arg d=[1,2,3,4,5,6] --arg n=6
__global__ void staticReverse(int *d, int n)
{
  __shared__ int s[16];
  int t = threadIdx.x;
  int tr = n-t-1;
  s[t] = d[t];
  __syncthreads();
  d[t] = s[tr];
}

__global__ void dynamicReverse(int *d, int n)
{
  extern __shared__ int s[];
  int t = threadIdx.x;
  int tr = n-t-1;
  s[t] = d[t];
  __syncthreads();
  d[t] = s[tr];
}
