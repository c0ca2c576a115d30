// saturating_add: sat[i] = a[i] + b[i] clamped to [INT_MIN, INT_MAX] (overflow detected on unsigned bits), s8[i] = the sum clamped to [-128, 127]
// run: --grid 2 --block 4 --arg a=[1,2147483647,-2147483648,2147483000,-5,100,-100,0] --arg b=[2,1,-1,1000,-2147483647,27,-29,-2147483648] --arg sat=[0,0,0,0,0,0,0,0] --arg s8=[0,0,0,0,0,0,0,0] --arg n=8
#include <climits>

extern "C" __global__ void saturating_add(const int *a, const int *b, int *sat, int *s8, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = a[i], y = b[i];
  int r = (int)((unsigned)x + (unsigned)y);  // the wrapped sum
  int overflow = ((x ^ r) & (y ^ r)) < 0;    // both operands differ in sign from the result
  sat[i] = overflow ? (x < 0 ? INT_MIN : INT_MAX) : r;
  s8[i] = overflow ? (x < 0 ? -128 : 127) : min(max(r, -128), 127);
}
