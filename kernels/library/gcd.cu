// gcd: out[0] = the greatest common divisor of |a| and |b| (gcd(x, 0) = |x|, gcd(0, 0) = 0)
// by Stein's binary algorithm: shifts and subtractions only, since the machine has no divide
// instruction (a % loop would cost ~400 records a step).
// Parameters: in (2 words: a, b, above -2147483648), out (1 word).
// The operands come in memory, not as scalar parameters: a scalar is a compile-time constant,
// and clang would fold the answer into the program instead of the machine computing it.
// Launch: one CUDA block of one thread.
// run: --grid 1 --block 1 --arg in=[1071,462] --arg out=[0]
// run: --grid 1 --block 1 --arg in=[-48,0] --arg out=[0]
extern "C" __global__ void gcd(const int *in, int *out) {
  int a = in[0], b = in[1];
  unsigned x = abs(a), y = abs(b);
  if (min(x, y) == 0) {  // (not x == 0 || y == 0: the compiler cannot lower that or.pred yet)
    out[0] = x | y;
    return;
  }
  int shift = 0;
  while (((x | y) & 1) == 0) {
    x >>= 1;
    y >>= 1;
    shift++;
  }
  while ((x & 1) == 0) x >>= 1;
  while (y != 0) {
    while ((y & 1) == 0) y >>= 1;
    if (x > y) {
      unsigned t = x;
      x = y;
      y = t;
    }
    y -= x;
  }
  out[0] = x << shift;
}
