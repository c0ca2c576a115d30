// bitonic_sort_16: sorts 16 values ascending in place by a bitonic network in __shared__ (block 16, one element per thread)
// run: --grid 1 --block 16 --arg data=[9,3,14,0,7,7,-1,12,5,2,11,4,15,8,1,6]
// run: --grid 1 --block 16 --arg data=[-58161,99734,-81144,-63623,61985,61861,16611,-66787,-65334,-99535,-98608,-45093,-43513,-56522,-56358,-24161]
extern "C" __global__ void bitonic_sort_16(int *data) {
  __shared__ int s[16];
  int t = threadIdx.x;
  s[t] = data[t];
  __syncthreads();
  for (int k = 2; k <= 16; k <<= 1) {
    for (int j = k >> 1; j > 0; j >>= 1) {
      int partner = t ^ j;
      if (partner > t) {
        int a = s[t], b = s[partner];
        bool ascending = (t & k) == 0;
        if ((a > b) == ascending) {
          s[t] = b;
          s[partner] = a;
        }
      }
      __syncthreads();
    }
  }
  data[t] = s[t];
}
