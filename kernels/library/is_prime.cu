// is_prime: out[0] = 1 if n is prime else 0; out[1] = n's smallest prime factor (n itself
// when prime, 0 for n < 2), by trial division: thread t tries the divisors 2 + t, 2 + t + B,
// ... up to sqrt(n), and a tree in __shared__ keeps the smallest divisor found.
// Parameters: in (1 word: n, 0 <= n <= 10000: a larger n takes too many records, ~400 a
// remainder), out (2 words).
// The operands come in memory, not as scalar parameters: a scalar is a compile-time constant,
// and clang would fold the answer into the program instead of the machine computing it.
// Launch: one CUDA block of 16 threads.
// run: --grid 1 --block 16 --arg in=[97] --arg out=[0,0]
// run: --grid 1 --block 16 --arg in=[91] --arg out=[0,0]
extern "C" __global__ void is_prime(const int *in, int *out) {
  __shared__ int best[16];
  int t = threadIdx.x, n = in[0];
  int found = n;
  for (int d = 2 + t; d * d <= n; d += blockDim.x) {
    if (n % d == 0) {
      found = d;
      break;
    }
  }
  best[t] = found;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) best[t] = min(best[t], best[t + s]);
    __syncthreads();
  }
  if (t == 0) {
    out[0] = n >= 2 && best[0] == n;
    out[1] = n < 2 ? 0 : best[0];
  }
}
