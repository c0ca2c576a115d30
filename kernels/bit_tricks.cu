// bit_tricks: for each x: low = x & -x, clear = x & (x-1), pow2 = (x != 0 && clear == 0), next = next power of two >= x (smear)
// run: --grid 2 --block 4 --arg x=[0,1,2,3,12,64,100,1073741825] --arg low=[0,0,0,0,0,0,0,0] --arg clear=[0,0,0,0,0,0,0,0] --arg pow2=[0,0,0,0,0,0,0,0] --arg next=[0,0,0,0,0,0,0,0] --arg n=8
// run: --grid 1 --block 4 --arg x=[-1,-2147483648,5] --arg low=[0,0,0] --arg clear=[0,0,0] --arg pow2=[0,0,0] --arg next=[0,0,0] --arg n=3
extern "C" __global__ void bit_tricks(const unsigned *x, unsigned *low, unsigned *clear, int *pow2,
                                      unsigned *next, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned v = x[i];
  low[i] = v & (0u - v);
  clear[i] = v & (v - 1);
  pow2[i] = v != 0 && (v & (v - 1)) == 0;
  unsigned m = v - 1;  // smear the highest set bit of v - 1 downwards, then add one
  m |= m >> 1;
  m |= m >> 2;
  m |= m >> 4;
  m |= m >> 8;
  m |= m >> 16;
  next[i] = m + 1;
}
