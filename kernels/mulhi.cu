// mulhi: hi[i] = __mulhi(a, b) (high word of the signed 64-bit product), uhi[i] = __umulhi(a, b), lo[i] = a * b
// run: --grid 2 --block 4 --arg a=[1,-1,65536,-65536,2147483647,-2147483648,123456789,-7] --arg b=[1,-1,65536,65536,2147483647,-2147483648,987654321,3] --arg hi=[0,0,0,0,0,0,0,0] --arg uhi=[0,0,0,0,0,0,0,0] --arg lo=[0,0,0,0,0,0,0,0] --arg n=8
extern "C" __global__ void mulhi(const int *a, const int *b, int *hi, unsigned *uhi, unsigned *lo,
                                 int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  hi[i] = __mulhi(a[i], b[i]);
  uhi[i] = __umulhi((unsigned)a[i], (unsigned)b[i]);
  lo[i] = (unsigned)a[i] * (unsigned)b[i];
}
