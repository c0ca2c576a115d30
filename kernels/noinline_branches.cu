// noinline_branches: out[i] = scale(x, 3) + 1 on even x and clamp_add(x, 10, -20, 20) on odd x: two __noinline__ helpers on divergent paths
// run: --grid 2 --block 4 --arg x=[0,1,2,3,-4,-5,14,15] --arg out=[0,0,0,0,0,0,0,0] --arg n=8
// run: --grid 1 --block 4 --arg x=[100,-101,7] --arg out=[0,0,0] --arg n=3
static __device__ __noinline__ int scale(int x, int k) { return x * k; }

static __device__ __noinline__ int clamp_add(int x, int d, int lo, int hi) {
  return min(max(x + d, lo), hi);
}

extern "C" __global__ void noinline_branches(const int *x, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = x[i];
  if (v % 2 == 0)
    out[i] = scale(v, 3) + 1;
  else
    out[i] = clamp_add(v, 10, -20, 20);
}
