// merge_sorted: out = merge of sorted a[0..na) and b[0..nb): each element finds its place by binary search in the other array
// run: --grid 3 --block 4 --arg a=[1,3,5,7,9,11] --arg b=[2,3,4,8,10,12] --arg out=[0,0,0,0,0,0,0,0,0,0,0,0] --arg na=6 --arg nb=6
// run: --grid 2 --block 4 --arg a=[0,0,0] --arg b=[-5,0,5,10] --arg out=[0,0,0,0,0,0,0] --arg na=3 --arg nb=4
// The number of elements of s[0..m) below v (strict) or at most v (ties from a go first).
static __device__ int count_before(const int *s, int m, int v, bool inclusive) {
  int lo = 0, hi = m;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (s[mid] < v || (inclusive && s[mid] == v))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

extern "C" __global__ void merge_sorted(const int *a, const int *b, int *out, int na, int nb) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < na)
    out[i + count_before(b, nb, a[i], false)] = a[i];
  else if (i < na + nb)
    out[i - na + count_before(a, na, b[i - na], true)] = b[i - na];
}
