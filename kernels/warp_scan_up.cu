// warp_scan_up: out[i] = inclusive prefix sum of in over thread i's warp (Hillis-Steele with __shfl_up_sync); prev[i] = the raw __shfl_up_sync by 1
// run: --grid 1 --block 16 --arg in=[1,2,3,4,5,6,7,8,-1,-1,-1,-1,10,-20,30,-40] --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg prev=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
// run: --grid 2 --block 8 --arg in=[4,3,2,1,0,0,0,9,100,200,300,400,-7,7,-7,7] --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg prev=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
// run: --grid 3 --block 4 --arg in=[1,1,1,1,2147483647,1,1,1,-3,5,-8,13] --arg out=[0,0,0,0,0,0,0,0,0,0,0,0] --arg prev=[0,0,0,0,0,0,0,0,0,0,0,0]
// Deltas 1 and 2. A lane below delta has no source lane: __shfl_up_sync gives it its own
// value back (prev[i] of lane 0 is its own input), and the guard keeps it out of the sum.
extern "C" __global__ void warp_scan_up(const int *in, int *out, int *prev) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % warpSize;
  int v = in[i];
  prev[i] = __shfl_up_sync(0xffffffff, v, 1);
  for (int delta = 1; delta < warpSize; delta *= 2) {
    int y = __shfl_up_sync(0xffffffff, v, delta);
    if (lane >= delta) v += y;
  }
  out[i] = v;
}
