// dot_atomic: out[0] += sum of a[i] * b[i] for i < n, one atomicAdd per thread
// run: --grid 3 --block 4 --arg a=[1,2,3,4,5,6,7,8,9,10,11] --arg b=[1,-1,2,-2,3,-3,4,-4,5,-5,6] --arg out=[0] --arg n=11
// run: --grid 1 --block 8 --arg a=[300,-200,1000] --arg b=[300,400,-70] --arg out=[5] --arg n=3
extern "C" __global__ void dot_atomic(const int *a, const int *b, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, a[i] * b[i]);
}
