// isqrt_newton: r[i] = floor(sqrt(x[i])) for x >= 0 by Newton's iteration on integers (unsigned arithmetic)
// run: --grid 2 --block 4 --arg x=[0,1,2,3,4,15,16,17] --arg r=[0,0,0,0,0,0,0,0] --arg n=8
// run: --grid 2 --block 4 --arg x=[99,100,1000000,2147483647,999999999] --arg r=[0,0,0,0,0] --arg n=5
extern "C" __global__ void isqrt_newton(const int *x, int *r, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned v = x[i];
  if (v < 2) {
    r[i] = v;
    return;
  }
  unsigned s = v / 2;
  unsigned t = (s + v / s) / 2;
  while (t < s) {
    s = t;
    t = (s + v / s) / 2;
  }
  r[i] = s;
}
