// factorial: out[0] = n! = 1 * 2 * ... * n by a loop (0! = 1; the host accepts 0 <= n <= 12,
// since 13! does not fit in the machine's 32-bit integers).
// Parameters: in (1 word: n), out (1 word).
// The operands come in memory, not as scalar parameters: a scalar is a compile-time constant,
// and clang would fold the answer into the program instead of the machine computing it.
// Launch: one CUDA block of one thread.
// run: --grid 1 --block 1 --arg in=[5] --arg out=[0]
// run: --grid 1 --block 1 --arg in=[12] --arg out=[0]
extern "C" __global__ void factorial(const int *in, int *out) {
  int n = in[0], f = 1;
  for (int j = 2; j <= n; j++) f *= j;
  out[0] = f;
}
