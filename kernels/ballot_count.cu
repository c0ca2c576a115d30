// ballot_count: per warp, bits[w] = __ballot_sync of x > 0 and count[w] = its popcount, including a partial last warp (block 6: warps of 4 and 2 lanes)
// run: --grid 2 --block 6 --arg x=[1,0,3,-4,5,6,-1,-2,-3,-4,0,7] --arg bits=[0,0,0,0] --arg count=[0,0,0,0]
// run: --grid 1 --block 16 --arg x=[1,1,1,1,0,0,0,0,1,0,1,0,-5,-6,7,8] --arg bits=[0,0,0,0] --arg count=[0,0,0,0]
// run: --grid 3 --block 3 --arg x=[9,9,9,0,9,0,-1,-1,2] --arg bits=[0,0,0] --arg count=[0,0,0]
// Warp w of the grid is warp t/4 of block w / warps_per_block. Bit k of a ballot is lane k:
// lanes a partial warp lacks read as 0, so block 6's second warp has at most bits 0 and 1.
extern "C" __global__ void ballot_count(const int *x, unsigned *bits, int *count) {
  int t = threadIdx.x;
  int warps = (blockDim.x + warpSize - 1) / warpSize;
  int w = blockIdx.x * warps + t / warpSize;
  unsigned b = __ballot_sync(0xffffffff, x[blockIdx.x * blockDim.x + t] > 0);
  if (t % warpSize == 0) {
    bits[w] = b;
    count[w] = __popc(b);
  }
}
