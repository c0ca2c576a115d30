// subnormal_arith: p[i] = a[i] * b[i] and s[i] = a[i] + b[i] where results go subnormal (kept, no flush to zero) or underflow to 0 (ties to even)
// run: --grid 2 --block 5 --arg a=[1e-45,1e-45,1.1754944e-38,1e-20,1e-30,-1e-45,1.1754942e-38,3e-45,1e-38,0f00000003] --arg b=[0.5,1.5,0.5,1e-20,1e-15,0.5,1e-45,0.5,-1e-38,0.5] --arg p=[0,0,0,0,0,0,0,0,0,0] --arg s=[0,0,0,0,0,0,0,0,0,0]
// run: --grid 1 --block 4 --arg a=[0f007fffff,0f00400000,0f80000001,2] --arg b=[0f00000001,2,1,0f00000001] --arg p=[0,0,0,0] --arg s=[0,0,0,0]
// 1e-45 (the smallest subnormal, 2^-149) * 0.5 is a tie between 0 and 2^-149: 0 (even);
// * 1.5 rounds to 2^-148; 3 * 2^-149 * 0.5 ties to 2 * 2^-149; the largest subnormal plus
// 2^-149 is the smallest normal; 0f80000001 is -2^-149.
extern "C" __global__ void subnormal_arith(const float *a, const float *b, float *p, float *s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  p[i] = a[i] * b[i];
  s[i] = a[i] + b[i];
}
