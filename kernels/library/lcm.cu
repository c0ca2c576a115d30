// lcm: out[0] = the least common multiple of |a| and |b| = |a| / gcd * |b| (0 when either is
// 0), out[1] = their gcd, by Stein's binary algorithm as in gcd.cu, then one division (the
// host rejects an lcm that would overflow).
// Parameters: in (2 words: a, b, above -2147483648), out (2 words). 
// The operands come in memory, not as scalar parameters: a scalar is a compile-time constant,
// and clang would fold the answer into the program instead of the machine computing it.
// Launch: one CUDA block of one thread.
// run: --grid 1 --block 1 --arg in=[4,6] --arg out=[0,0]
// run: --grid 1 --block 1 --arg in=[-21,0] --arg out=[0,0]
extern "C" __global__ void lcm(const int *in, int *out) {
  int a = in[0], b = in[1];
  unsigned ua = abs(a), ub = abs(b), x = ua, y = ub;
  if (min(x, y) == 0) {  // (not x == 0 || y == 0: the compiler cannot lower that or.pred yet)
    out[0] = 0;
    out[1] = x | y;
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
  unsigned g = x << shift;
  out[0] = ua / g * ub;
  out[1] = g;
}
