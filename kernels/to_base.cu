// to_base: digits of x[i] >= 0 in base b[i] (2..36): cnt[i] = how many, top[i] = the leading digit, low[i] = the last digit
// run: --grid 2 --block 4 --arg x=[0,1,255,255,1000,1000,2147483647,35] --arg b=[2,2,2,16,10,7,16,36] --arg cnt=[0,0,0,0,0,0,0,0] --arg top=[0,0,0,0,0,0,0,0] --arg low=[0,0,0,0,0,0,0,0] --arg n=8
extern "C" __global__ void to_base(const int *x, const int *b, int *cnt, int *top, int *low, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = x[i], base = b[i], c = 0, d = 0;
  low[i] = v % base;
  do {
    d = v % base;
    v /= base;
    c++;
  } while (v != 0);
  cnt[i] = c;
  top[i] = d;
}
