// noinline_lcm: l[i] = lcm(a[i], b[i]) = a / gcd(a, b) * b for positive a, b, with gcd in a __noinline__ helper (a real call)
// run: --grid 2 --block 4 --arg a=[4,6,21,1,17,12,100,9] --arg b=[6,4,6,1,5,18,75,28] --arg l=[0,0,0,0,0,0,0,0] --arg n=8
static __device__ __noinline__ int gcd(int a, int b) {
  while (b != 0) {
    int r = a % b;
    a = b;
    b = r;
  }
  return a;
}

extern "C" __global__ void noinline_lcm(const int *a, const int *b, int *l, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) l[i] = a[i] / gcd(a[i], b[i]) * b[i];
}
