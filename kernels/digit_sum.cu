// digit_sum: sum[i] = sum of the decimal digits of |x[i]|, len[i] = how many digits (0 has one)
// run: --grid 2 --block 4 --arg x=[0,7,10,99,-123,1000000,2147483647,-2147483647] --arg sum=[0,0,0,0,0,0,0,0] --arg len=[0,0,0,0,0,0,0,0] --arg n=8
// run: --grid 1 --block 4 --arg x=[505,-9] --arg sum=[0,0] --arg len=[0,0] --arg n=2
extern "C" __global__ void digit_sum(const int *x, int *sum, int *len, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = abs(x[i]), s = 0, d = 0;
  do {
    s += v % 10;
    v /= 10;
    d++;
  } while (v > 0);
  sum[i] = s;
  len[i] = d;
}
