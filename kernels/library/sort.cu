// sort: sorted = values in ascending order, by ranking: thread i counts the values that go
// before values[i] (smaller, or equal at a smaller index) and stores values[i] at that rank,
// so equal values keep their order and no barrier is needed.
// Parameters: values (n words, 1 <= n <= 16: n threads each scan all n values, ~2200 records at 16), sorted (n words), n.
// Launch: one CUDA block of n threads; one thread per value.
// run: --grid 1 --block 5 --arg values=[5,1,4,2,3] --arg sorted=[0,0,0,0,0] --arg n=5
// run: --grid 1 --block 8 --arg values=[9,-3,7,7,0,-8,2,1] --arg sorted=[0,0,0,0,0,0,0,0] --arg n=8
extern "C" __global__ void sort(const int *values, int *sorted, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = values[i], rank = 0;
  for (int j = 0; j < n; j++) {
    int w = values[j];
    rank += (w < v) || (w == v && j < i);
  }
  sorted[rank] = v;
}
