// gcd_euclid: g[i] = gcd(|a[i]|, |b[i]|) by Euclid's remainder loop (gcd(0, 0) = 0)
// run: --grid 2 --block 4 --arg a=[12,17,0,0,-48,1071,100,7] --arg b=[18,5,9,0,36,462,-75,7] --arg g=[0,0,0,0,0,0,0,0] --arg n=8
// run: --grid 1 --block 4 --arg a=[46368,1] --arg b=[28657,1000000] --arg g=[0,0] --arg n=2
extern "C" __global__ void gcd_euclid(const int *a, const int *b, int *g, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = abs(a[i]), y = abs(b[i]);
  while (y != 0) {
    int r = x % y;
    x = y;
    y = r;
  }
  g[i] = x;
}
