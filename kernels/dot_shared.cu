// dot_shared: out[0] = dot(a, b) over n: per-block products reduced in __shared__ (block 16), then atomicAdd
// run: --grid 2 --block 16 --arg a=[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20] --arg b=[2,-2,2,-2,2,-2,2,-2,2,-2,2,-2,2,-2,2,-2,2,-2,2,-2] --arg out=[0] --arg n=20
// run: --grid 1 --block 16 --arg a=[25,-12,-23,17,-9,27,16,15,2,29,-3,2,23,28,12,-18] --arg b=[-11,-12,7,26,1,24,30,2,-5,7,24,-28,0,-15,17,21] --arg out=[0] --arg n=16
extern "C" __global__ void dot_shared(const int *a, const int *b, int *out, int n) {
  __shared__ int prod[16];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  prod[t] = i < n ? a[i] * b[i] : 0;
  __syncthreads();
  for (int s = 8; s > 0; s >>= 1) {
    if (t < s) prod[t] += prod[t + s];
    __syncthreads();
  }
  if (t == 0) atomicAdd(out, prod[0]);
}
