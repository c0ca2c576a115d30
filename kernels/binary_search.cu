// binary_search: pos[i] = lower_bound(sorted, m, q[i]): the first index whose value is >= q[i] (m if none)
// run: --grid 2 --block 4 --arg sorted=[1,3,3,5,8,13,21,34,55,89] --arg m=10 --arg q=[0,1,3,4,13,89,90,-5] --arg pos=[0,0,0,0,0,0,0,0] --arg n=8
// run: --grid 1 --block 4 --arg sorted=[7] --arg m=1 --arg q=[6,7,8] --arg pos=[0,0,0] --arg n=3
extern "C" __global__ void binary_search(const int *sorted, int m, const int *q, int *pos, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int key = q[i], lo = 0, hi = m;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (sorted[mid] < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  pos[i] = lo;
}
