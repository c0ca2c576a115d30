// isqrt_bits: r[i] = floor(sqrt(x[i])) by the digit-by-digit binary method (one result bit per iteration)
// run: --grid 2 --block 4 --arg x=[0,1,2,3,4,15,16,17] --arg r=[0,0,0,0,0,0,0,0] --arg n=8
// run: --grid 2 --block 4 --arg x=[99,100,1000000,2147483647,-1] --arg r=[0,0,0,0,0] --arg n=5
extern "C" __global__ void isqrt_bits(const unsigned *x, unsigned *r, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned v = x[i], res = 0, bit = 1u << 30;
  while (bit > v) bit >>= 2;
  while (bit != 0) {
    if (v >= res + bit) {
      v -= res + bit;
      res = (res >> 1) + bit;
    } else {
      res >>= 1;
    }
    bit >>= 2;
  }
  r[i] = res;
}
