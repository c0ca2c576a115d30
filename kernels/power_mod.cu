// power_mod: r[i] = base[i]^e[i] mod m (0 < m < 46341, base >= 0) by square-and-multiply
// run: --grid 2 --block 4 --arg base=[2,3,10,7,0,1,12345,46340] --arg e=[10,0,9,222,5,1000,65537,2] --arg r=[0,0,0,0,0,0,0,0] --arg m=1000 --arg n=8
// run: --grid 1 --block 4 --arg base=[2,5,4] --arg e=[30,117,13] --arg r=[0,0,0] --arg m=46337 --arg n=3
extern "C" __global__ void power_mod(const int *base, const int *e, int *r, int m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int b = base[i] % m, k = e[i], acc = 1 % m;
  while (k > 0) {
    if (k & 1) acc = acc * b % m;
    b = b * b % m;
    k >>= 1;
  }
  r[i] = acc;
}
