// float_compare: bits[i] = the 8 comparisons a<b, a<=b, a>b, a>=b, a==b, a!=b, !(a<b), !(a>=b) of a[i], b[i] as bits 0..7 (NaN is unordered, -0 == +0)
// run: --grid 2 --block 5 --arg a=[1,2,2,nan,1,nan,-0,inf,-inf,1e-45] --arg b=[2,1,2,1,nan,nan,0,inf,inf,0] --arg bits=[0,0,0,0,0,0,0,0,0,0]
// run: --grid 1 --block 3 --arg a=[0f7fc00001,-1,3.4028235e38] --arg b=[0f7fc00001,-1.0000001,inf] --arg bits=[0,0,0]
// !(a<b) and !(a>=b) are true for a NaN pair: they compile to the unordered setp.geu / ltu.
extern "C" __global__ void float_compare(const float *a, const float *b, int *bits) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = a[i], y = b[i];
  bits[i] = (x < y) | (x <= y) << 1 | (x > y) << 2 | (x >= y) << 3 | (x == y) << 4 |
            (x != y) << 5 | !(x < y) << 6 | !(x >= y) << 7;
}
