// min_max: out[0] = the smallest of n values, out[1] = the largest.
// Parameters: values (n words, 1 <= n <= 100), out (2 words), n.
// Launch: one CUDA block of B threads, B = the smallest power of two >= min(n, 16) (16 when the
// __shared__ copies of smaller blocks do not fit); thread t
// scans values t, t+B, ...; trees in __shared__ combine the B partial minima and maxima.
// run: --grid 1 --block 8 --arg values=[5,-3,9,0,12,7] --arg out=[0,0] --arg n=6
// run: --grid 1 --block 8 --arg values=[42] --arg out=[0,0] --arg n=1
extern "C" __global__ void min_max(const int *values, int *out, int n) {
  __shared__ int lo[16], hi[16];
  int t = threadIdx.x;
  int a = values[0], b = values[0];
  for (int i = t; i < n; i += blockDim.x) {
    a = min(a, values[i]);
    b = max(b, values[i]);
  }
  lo[t] = a;
  hi[t] = b;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) {
      lo[t] = min(lo[t], lo[t + s]);
      hi[t] = max(hi[t], hi[t + s]);
    }
    __syncthreads();
  }
  if (t == 0) {
    out[0] = lo[0];
    out[1] = hi[0];
  }
}
