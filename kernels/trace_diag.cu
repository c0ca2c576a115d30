// trace_diag: d[0] = trace and d[1] = anti-diagonal sum of an n x n matrix: 2-D threads on a diagonal use atomicAdd
// run: --grid 1 --block 4,4 --arg m=[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16] --arg d=[0,0] --arg n=4
// run: --grid 1 --block 4,4 --arg m=[2,0,1,0,3,0,1,0,4] --arg d=[10,10] --arg n=3
extern "C" __global__ void trace_diag(const int *m, int *d, int n) {
  int c = threadIdx.x, r = threadIdx.y;
  if (r >= n || c >= n) return;
  int v = m[r * n + c];
  if (r == c) atomicAdd(&d[0], v);
  if (r + c == n - 1) atomicAdd(&d[1], v);
}
