// mean: the integer mean of n values, exactly: out = {sum, quotient, remainder, n} with
// quotient = floor(sum / n) and 0 <= remainder < n, so mean = quotient + remainder / n.
// Parameters: values (n words, 1 <= n <= 100), count (1 word: n), out (4 words). n comes
// in memory rather than as a scalar: a / by some compile-time constants (1, 2) hits an
// xor.pred with an immediate the compiler cannot lower yet.
// Launch: one CUDA block of B threads, B = the smallest power of two >= min(n, 16) (16 when
// the __shared__ copies of smaller blocks do not fit); a tree sum in __shared__ as in
// sum.cu, then thread 0 divides (C's / truncates toward zero: rounded down here).
// run: --grid 1 --block 4 --arg values=[1,2,3,5] --arg count=[4] --arg out=[0,0,0,0]
// run: --grid 1 --block 4 --arg values=[-7,2,1] --arg count=[3] --arg out=[0,0,0,0]
extern "C" __global__ void mean(const int *values, const int *count, int *out) {
  __shared__ int buf[16];
  int t = threadIdx.x, n = count[0];
  int acc = 0;
  for (int i = t; i < n; i += blockDim.x) acc += values[i];
  buf[t] = acc;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) buf[t] += buf[t + s];
    __syncthreads();
  }
  if (t == 0) {
    int total = buf[0];
    int q = total / n, r = total % n;
    if (r < 0) {
      r += n;
      q -= 1;
    }
    out[0] = total;
    out[1] = q;
    out[2] = r;
    out[3] = n;
  }
}
