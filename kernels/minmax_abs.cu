// minmax_abs: lo[i] = min(a[i], b[i]), hi[i] = max(a[i], b[i]), dist[i] = abs(a[i] - b[i])
// run: --grid 2 --block 4 --arg a=[1,-5,7,0,-100,42,3] --arg b=[2,-6,7,-1,100,-42,-3] --arg lo=[0,0,0,0,0,0,0] --arg hi=[0,0,0,0,0,0,0] --arg dist=[0,0,0,0,0,0,0] --arg n=7
// run: --grid 1 --block 4 --arg a=[2147483647,-2147483647,65536] --arg b=[1,-1,-65536] --arg lo=[0,0,0] --arg hi=[0,0,0] --arg dist=[0,0,0] --arg n=3
extern "C" __global__ void minmax_abs(const int *a, const int *b, int *lo, int *hi, int *dist,
                                      int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  lo[i] = min(a[i], b[i]);
  hi[i] = max(a[i], b[i]);
  dist[i] = abs(a[i] - b[i]);
}
