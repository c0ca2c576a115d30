// prefix_sum_naive: out[i] = in[0] + ... + in[i], each thread looping over its own prefix (O(n^2) work, no sharing)
// run: --grid 3 --block 4 --arg in=[1,2,3,4,5,6,7,8,9,10,11] --arg out=[0,0,0,0,0,0,0,0,0,0,0] --arg n=11
// run: --grid 1 --block 8 --arg in=[5,-5,5,-5,100] --arg out=[0,0,0,0,0] --arg n=5
extern "C" __global__ void prefix_sum_naive(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int s = 0;
  for (int j = 0; j <= i; j++) s += in[j];
  out[i] = s;
}
