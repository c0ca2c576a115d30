// scan_blelloch: out = exclusive prefix sums of 16 values and total[b] = their sum, by Blelloch's up-sweep/down-sweep (block 8, 2 values per thread)
// run: --grid 1 --block 8 --arg in=[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16] --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg total=[0]
// run: --grid 2 --block 8 --arg in=[-14,-4,-7,-19,-4,-3,-8,-10,-1,-2,20,3,-15,18,1,4,12,-5,-9,-5,10,-3,-15,15,-1,-20,-2,16,-1,12,-8,6] --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg total=[0,0]
extern "C" __global__ void scan_blelloch(const int *in, int *out, int *total) {
  __shared__ int temp[16];
  int t = threadIdx.x;
  const int *src = in + blockIdx.x * 16;
  temp[2 * t] = src[2 * t];
  temp[2 * t + 1] = src[2 * t + 1];
  int offset = 1;
  for (int d = 8; d > 0; d >>= 1) {  // up-sweep: partial sums at the right of each pair
    __syncthreads();
    if (t < d) temp[offset * (2 * t + 2) - 1] += temp[offset * (2 * t + 1) - 1];
    offset *= 2;
  }
  if (t == 0) {
    total[blockIdx.x] = temp[15];
    temp[15] = 0;
  }
  for (int d = 1; d < 16; d *= 2) {  // down-sweep: push the prefixes back down the tree
    offset >>= 1;
    __syncthreads();
    if (t < d) {
      int ai = offset * (2 * t + 1) - 1, bi = offset * (2 * t + 2) - 1;
      int left = temp[ai];
      temp[ai] = temp[bi];
      temp[bi] += left;
    }
  }
  __syncthreads();
  out[blockIdx.x * 16 + 2 * t] = temp[2 * t];
  out[blockIdx.x * 16 + 2 * t + 1] = temp[2 * t + 1];
}
