// integer_intrinsics: CUDA's __mul24, __umul24, __hadd, __rhadd, __uhadd, __urhadd, __sad, __usad, __funnelshift_l/_lc/_r/_rc, __ldg and __float2int_rd/_ru, __float2uint_rn/_rd/_ru on operands past 24 bits, sums that overflow 32 bits, shifts of 0, 31, 32 and more, halves, negatives and NaN
// run: --grid 1 --block 4 --arg a=[5,-6,8388607,-8388608] --arg b=[3,-7,33,40] --arg c=[4000000000,1,16777215,123456789] --arg x=[1.5,-1.5,2.5,-0.5] --arg m=[0,0,0,0] --arg um=[0,0,0,0] --arg h=[0,0,0,0] --arg uh=[0,0,0,0] --arg s=[0,0,0,0] --arg fl=[0,0,0,0] --arg fr=[0,0,0,0] --arg ld=[0,0,0,0] --arg fi=[0,0,0,0] --arg fu=[0,0,0,0]
// run: --grid 1 --block 4 --arg a=[2147483647,-2147483648,16777216,-1] --arg b=[2147483647,-2147483648,-16777217,0] --arg c=[4294967295,2147483648,0,2863311530] --arg x=[nan,-2147483904,4294967296,0.49999997] --arg m=[0,0,0,0] --arg um=[0,0,0,0] --arg h=[0,0,0,0] --arg uh=[0,0,0,0] --arg s=[0,0,0,0] --arg fl=[0,0,0,0] --arg fr=[0,0,0,0] --arg ld=[0,0,0,0] --arg fi=[0,0,0,0] --arg fu=[0,0,0,0]
// run: --grid 1 --block 4 --arg a=[-123456789,987654321,0,12582912] --arg b=[64,-1,31,12582912] --arg c=[305419896,3735928559,1,16777216] --arg x=[-1e10,1e10,-0.75,3.5] --arg m=[0,0,0,0] --arg um=[0,0,0,0] --arg h=[0,0,0,0] --arg uh=[0,0,0,0] --arg s=[0,0,0,0] --arg fl=[0,0,0,0] --arg fr=[0,0,0,0] --arg ld=[0,0,0,0] --arg fi=[0,0,0,0] --arg fu=[0,0,0,0]
// The funnel shifts take b as the shift (mod 32, or clamped to 32 by the _c forms).
__global__ void integer_intrinsics(const int *a, const int *b, const unsigned *c, const float *x, int *m, unsigned *um,
                                   int *h, unsigned *uh, unsigned *s, unsigned *fl, unsigned *fr, unsigned *ld,
                                   int *fi, unsigned *fu) {
  int k = threadIdx.x;
  const unsigned sh = (unsigned)b[k];
  m[k] = __mul24(a[k], b[k]);
  um[k] = __umul24(c[k], (unsigned)a[k]);
  h[k] = __hadd(a[k], b[k]) ^ (__rhadd(a[k], b[k]) << 1);
  uh[k] = __uhadd(c[k], (unsigned)a[k]) ^ (__urhadd(c[k], (unsigned)b[k]) << 1);
  s[k] = __sad(a[k], b[k], 5u) ^ __usad(c[k], (unsigned)a[k], 3u);
  fl[k] = __funnelshift_l(c[k], (unsigned)a[k], sh) ^ (__funnelshift_lc(c[k], (unsigned)a[k], sh) << 1);
  fr[k] = __funnelshift_r(c[k], (unsigned)a[k], sh) ^ (__funnelshift_rc(c[k], (unsigned)a[k], sh) << 1);
  ld[k] = __ldg(&c[k]) + (unsigned)__ldg(&a[k]);
  fi[k] = __float2int_rd(x[k]) ^ (__float2int_ru(x[k]) << 1);
  fu[k] = __float2uint_rn(x[k]) ^ (__float2uint_rd(x[k]) << 1) ^ (__float2uint_ru(x[k]) << 2);
}
