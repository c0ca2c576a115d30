// odd_even_sort: sorts each block's 16 values ascending in place by odd-even transposition sort in __shared__ (block 8, 16 phases)
// run: --grid 1 --block 8 --arg data=[16,15,14,13,12,11,10,9,8,7,6,5,4,3,2,1]
// run: --grid 2 --block 8 --arg data=[60,-34,90,-8,77,90,67,36,-92,20,99,-36,67,-86,-59,-71,-4,21,-36,-2,40,-73,47,-36,-96,88,-44,5,-28,-53,97,0]
extern "C" __global__ void odd_even_sort(int *data) {
  __shared__ int s[16];
  int t = threadIdx.x;
  int *d = data + blockIdx.x * 16;
  s[2 * t] = d[2 * t];
  s[2 * t + 1] = d[2 * t + 1];
  __syncthreads();
  for (int phase = 0; phase < 16; phase++) {
    int i = 2 * t + (phase & 1);  // even phases compare (0,1),(2,3)..; odd ones (1,2),(3,4)..
    if (i + 1 < 16) {
      int a = s[i], b = s[i + 1];
      if (a > b) {
        s[i] = b;
        s[i + 1] = a;
      }
    }
    __syncthreads();
  }
  d[2 * t] = s[2 * t];
  d[2 * t + 1] = s[2 * t + 1];
}
