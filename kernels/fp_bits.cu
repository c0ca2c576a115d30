// fp_bits: sign/expo/mant[i] = the fields of x[i]'s bits (__float_as_int), half[i] = x[i] / 2 by decrementing the exponent field when that is exact (x * 0.5f otherwise)
// run: --grid 2 --block 5 --arg x=[1,-2,0.75,-0,1e-45,3.4028235e38,inf,nan,1.1754944e-38,2.3509887e-38] --arg sign=[0,0,0,0,0,0,0,0,0,0] --arg expo=[0,0,0,0,0,0,0,0,0,0] --arg mant=[0,0,0,0,0,0,0,0,0,0] --arg half=[0,0,0,0,0,0,0,0,0,0]
// run: --grid 1 --block 3 --arg x=[0f7f800001,0fffc00000,0.1] --arg sign=[0,0,0] --arg expo=[0,0,0] --arg mant=[0,0,0] --arg half=[0,0,0]
// The exponent trick needs a normal x whose half is normal (field 2..254); the smallest
// normal, subnormals, inf and NaN take the multiply (a NaN result is the canonical nan).
extern "C" __global__ void fp_bits(const float *x, int *sign, int *expo, int *mant, float *half) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = x[i];
  int bits = __float_as_int(v);
  int e = (bits >> 23) & 0xff;
  sign[i] = (unsigned)bits >> 31;
  expo[i] = e;
  mant[i] = bits & 0x7fffff;
  half[i] = (unsigned)(e - 2) < 253u ? __int_as_float(bits - (1 << 23)) : v * 0.5f;  // 2 <= e <= 254
}
