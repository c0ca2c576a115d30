// bitonic_sort_8: sorts each block's 8 values in place, ascending or (descending != 0) descending, by a bitonic network (block 8)
// run: --grid 2 --block 8 --arg data=[5,1,4,2,8,7,3,6,0,-1,-2,-3,3,2,1,0] --arg descending=0
// run: --grid 2 --block 8 --arg data=[5,1,4,2,8,7,3,6,10,20,30,40,50,60,70,80] --arg descending=1
extern "C" __global__ void bitonic_sort_8(int *data, int descending) {
  __shared__ int s[8];
  int t = threadIdx.x;
  int *d = data + blockIdx.x * 8;
  s[t] = d[t];
  __syncthreads();
  for (int k = 2; k <= 8; k <<= 1) {
    for (int j = k >> 1; j > 0; j >>= 1) {
      int partner = t ^ j;
      if (partner > t) {
        int a = s[t], b = s[partner];
        bool up = ((t & k) == 0) != (descending != 0);
        if ((a > b) == up) {
          s[t] = b;
          s[partner] = a;
        }
      }
      __syncthreads();
    }
  }
  d[t] = s[t];
}
