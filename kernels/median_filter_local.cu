// median_filter_local: out[i] = the median of in[i-2..i+2] (indices clamped to the array), by an insertion sort of a local array of 5, one thread per element
// from: the 1-D median filter as tutorials publish it (a window copied into a per-thread array, sorted by insertion, the middle taken), window 5; written for this corpus
// run: --grid 2 --block 4 --arg in=[5,1,9,3,7,2,8,6] --arg out=[0,0,0,0,0,0,0,0] --arg n=8
// run: --grid 3 --block 4 --arg in=[-3,100,-7,4,4,4,-2147483648,2147483647,0,12] --arg out=[0,0,0,0,0,0,0,0,0,0] --arg n=10
__global__ void median5(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int window[5];
  for (int k = 0; k < 5; ++k) window[k] = in[min(max(i + k - 2, 0), n - 1)];
  for (int a = 1; a < 5; ++a) {
    int v = window[a], b = a - 1;
    while (b >= 0 && window[b] > v) {
      window[b + 1] = window[b];
      --b;
    }
    window[b + 1] = v;
  }
  out[i] = window[2];
}
