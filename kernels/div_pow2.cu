// div_pow2: x / 4 (rounds toward zero), x >> 2 (arithmetic shift, rounds down), x % 8, and (unsigned)x / 16
// run: --grid 3 --block 4 --arg x=[0,3,4,5,-1,-3,-4,-5,-8,-9,2147483647,-2147483648] --arg q4=[0,0,0,0,0,0,0,0,0,0,0,0] --arg s2=[0,0,0,0,0,0,0,0,0,0,0,0] --arg r8=[0,0,0,0,0,0,0,0,0,0,0,0] --arg u16=[0,0,0,0,0,0,0,0,0,0,0,0] --arg n=12
extern "C" __global__ void div_pow2(const int *x, int *q4, int *s2, int *r8, unsigned *u16, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = x[i];
  q4[i] = v / 4;
  s2[i] = v >> 2;
  r8[i] = v % 8;
  u16[i] = (unsigned)v / 16;
}
