// reduce_max_shared: out[0] = max of in[0..n), block 16; missing elements count as INT_MIN (n < 16 allowed)
// run: --grid 1 --block 16 --arg in=[3,-7,12,5,0,99,-100,42,7,7,8,-1,98,2,1,0] --arg out=[0] --arg n=16
// run: --grid 1 --block 16 --arg in=[-9,-3,-12,-5,-20] --arg out=[0] --arg n=5
// run: --grid 1 --block 16 --arg in=[-2147483648,-2147483647,-70000] --arg out=[0] --arg n=3
#include <climits>

extern "C" __global__ void reduce_max_shared(const int *in, int *out, int n) {
  __shared__ int m[16];
  int t = threadIdx.x;
  m[t] = t < n ? in[t] : INT_MIN;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (t < s) m[t] = max(m[t], m[t + s]);
    __syncthreads();
  }
  if (t == 0) *out = m[0];
}
