// gcd_binary: g[i] = gcd(a[i], b[i]) of unsigned values by Stein's binary algorithm (shifts and subtraction only)
// run: --grid 2 --block 4 --arg a=[12,17,0,48,1071,1024,-2,7] --arg b=[18,5,9,36,462,96,-4,0] --arg g=[0,0,0,0,0,0,0,0] --arg n=8
// run: --grid 1 --block 4 --arg a=[46368,-1,65536] --arg b=[28657,-1,4096] --arg g=[0,0,0] --arg n=3
static __device__ unsigned gcd_stein(unsigned u, unsigned v) {
  if (u == 0) return v;
  if (v == 0) return u;
  int shift = 0;
  while (((u | v) & 1) == 0) {
    u >>= 1;
    v >>= 1;
    shift++;
  }
  while ((u & 1) == 0) u >>= 1;
  do {
    while ((v & 1) == 0) v >>= 1;
    if (u > v) {
      unsigned t = u;
      u = v;
      v = t;
    }
    v -= u;
  } while (v != 0);
  return u << shift;
}

extern "C" __global__ void gcd_binary(const unsigned *a, const unsigned *b, unsigned *g, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) g[i] = gcd_stein(a[i], b[i]);
}
