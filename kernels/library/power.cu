// power: out[0] = base ^ exponent by square-and-multiply (at most 31 rounds), in 32-bit
// integers (the host rejects a power that would overflow; 0 ^ 0 = 1).
// Parameters: in (2 words: base, exponent >= 0), out (1 word).
// The operands come in memory, not as scalar parameters: a scalar is a compile-time constant,
// and clang would fold the answer into the program instead of the machine computing it.
// Launch: one CUDA block of one thread.
// run: --grid 1 --block 1 --arg in=[3,5] --arg out=[0]
// run: --grid 1 --block 1 --arg in=[-2,31] --arg out=[0]
extern "C" __global__ void power(const int *in, int *out) {
  int result = 1, b = in[0];
  for (unsigned e = in[1]; e != 0; e >>= 1) {
    if (e & 1) result *= b;
    b *= b;
  }
  out[0] = result;
}
