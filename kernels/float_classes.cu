// float_classes: s[i] = a[i] + b[i], d[i] = a[i] - b[i], i[i] = (int)a[i], u[i] = (unsigned)c[i], fi[i] = (float)n[i], fu[i] = (float)m[i] on every class of operand: zeros, subnormals, around 1, the ends, infinities, NaNs, ties and carries through every bit
// run: --grid 2 --block 4 --arg a=[0,-0,1e-45,-1.1754942e-38,1,-1.5,3.4028235e38,inf] --arg b=[-0,-0,1e-45,1.1754942e-38,-1,1.5,3.4028235e38,-inf] --arg c=[0.5,1.5,2.5,4294967040,16777217,3e9,0.99999994,7] --arg n=[-2147483648,2147483647,16777217,-16777219,0,-1,7,-33554435] --arg m=[4294967295,2147483649,2147483648,16777217,0,1,3,4294967040] --arg s=[0,0,0,0,0,0,0,0] --arg d=[0,0,0,0,0,0,0,0] --arg i=[0,0,0,0,0,0,0,0] --arg u=[0,0,0,0,0,0,0,0] --arg fi=[0,0,0,0,0,0,0,0] --arg fu=[0,0,0,0,0,0,0,0]
// run: --grid 2 --block 4 --arg a=[nan,0f7f800001,inf,-inf,2147483520,-2147483520,-0.5,1e-40] --arg b=[1,nan,inf,5,4294967296,-1,0.5,-1e-40] --arg c=[0,1e-45,100.75,2147483648,65535.5,0.5,1e-3,123456.7] --arg n=[1,2,3,4,5,6,7,8] --arg m=[33554433,33554435,1,2,16777215,16777216,16777218,100] --arg s=[0,0,0,0,0,0,0,0] --arg d=[0,0,0,0,0,0,0,0] --arg i=[0,0,0,0,0,0,0,0] --arg u=[0,0,0,0,0,0,0,0] --arg fi=[0,0,0,0,0,0,0,0] --arg fu=[0,0,0,0,0,0,0,0]
// run: --grid 2 --block 4 --arg a=[0.1,-7.25,1e-40,-3e-39,6e10,-123456.7,1.0000001,0.99999994] --arg b=[0.2,7.25,-1e-40,2.9e-39,-6.0000004e10,1e-3,-1,1] --arg c=[3.7,1.9999999,8388607.5,8388608,16777215,2.5e9,4294967040,0] --arg n=[123456789,-987654321,2147483584,-2147483520,65535,-65536,1000000,-3] --arg m=[123456789,987654321,4294967167,4294967168,65535,65536,1000000,3] --arg s=[0,0,0,0,0,0,0,0] --arg d=[0,0,0,0,0,0,0,0] --arg i=[0,0,0,0,0,0,0,0] --arg u=[0,0,0,0,0,0,0,0] --arg fi=[0,0,0,0,0,0,0,0] --arg fu=[0,0,0,0,0,0,0,0]
// Ties: (1 - 2^-24) + 1 rounds to 2 (the carry runs through every nibble of the sum);
// 16777217, 2147483649 and 4294967168 round to even. (int) and (unsigned) truncate toward
// zero; their operands stay in range (a C cast of a NaN or a value out of range is undefined).
extern "C" __global__ void float_classes(const float *a, const float *b, const float *c, const int *n,
                                         const unsigned *m, float *s, float *d, int *i, unsigned *u, float *fi,
                                         float *fu) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  s[k] = a[k] + b[k];
  d[k] = a[k] - b[k];
  i[k] = (int)(a[k] == a[k] && a[k] > -2147483648.0f && a[k] < 2147483648.0f ? a[k] : 0.0f);
  u[k] = (unsigned)c[k];
  fi[k] = (float)n[k];
  fu[k] = (float)m[k];
}
