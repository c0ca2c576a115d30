// dot_float: out[0] = a[0]*b[0] + ... + a[n-1]*b[n-1] as a GPU computes it in binary32, in
// order from 0.0f, each product and each sum rounded to nearest even: a multiply and an add
// (__fmul_rn, __fadd_rn), not the fused multiply-add clang would contract them into (its
// 119 ops with this loop's index and pointers live across them need 17 registers; the
// machine has 15). Parameters: a, b (n floats each, 1 <= n <= 60), out (1 word), n.
// Launch: one thread.
// run: --grid 1 --block 1 --arg a=[1.5,2,-0.1] --arg b=[4,0.25,3] --arg out=[0] --arg n=3
extern "C" __global__ void dot_float(const float *a, const float *b, float *out, int n) {
  float s = 0.0f;
  int i = 0;
  do {
    s = __fadd_rn(s, __fmul_rn(a[i], b[i]));
  } while (++i != n);
  out[0] = s;
}
