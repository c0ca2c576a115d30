// noinline_loop_call: out[i] = sum of isqrt(j) for j in 0..x[i]: a __noinline__ integer square root called inside a loop
// run: --grid 2 --block 4 --arg x=[0,1,3,4,8,9,15,30] --arg out=[0,0,0,0,0,0,0,0] --arg n=8
static __device__ __noinline__ int isqrt(int v) {
  int r = 0;
  while ((r + 1) * (r + 1) <= v) r++;
  return r;
}

extern "C" __global__ void noinline_loop_call(const int *x, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int s = 0;
  for (int j = 0; j <= x[i]; j++) s += isqrt(j);
  out[i] = s;
}
