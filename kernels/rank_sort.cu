// rank_sort: out[rank(i)] = in[i] where rank counts the smaller values and the equal ones to the left (a stable counting sort)
// run: --grid 3 --block 4 --arg in=[5,3,9,3,0,-2,7,5,5,1] --arg out=[0,0,0,0,0,0,0,0,0,0] --arg n=10
// run: --grid 1 --block 4 --arg in=[2,2,2] --arg out=[0,0,0] --arg n=3
extern "C" __global__ void rank_sort(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i], rank = 0;
  for (int j = 0; j < n; j++) {
    int w = in[j];
    rank += w < v || (w == v && j < i);
  }
  out[rank] = v;
}
