// warp_compact: per warp, the x > 0 values moved to the front of the warp's 4 out slots in lane order (rank = popcount of the ballot below the lane), count[w] of them
// run: --grid 1 --block 16 --arg x=[5,-1,7,0,-2,-3,-4,-5,1,2,3,4,0,9,0,8] --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg count=[0,0,0,0]
// run: --grid 2 --block 4 --arg x=[-1,-1,-1,6,3,-3,3,-3] --arg out=[0,0,0,0,0,0,0,0] --arg count=[0,0]
// Stream compaction without atomics: lane k's rank among the kept lanes is the number of
// kept lanes below it, popc(ballot & ((1 << k) - 1)); slots past the count keep their 0.
extern "C" __global__ void warp_compact(const int *x, int *out, int *count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % warpSize;
  int v = x[i];
  unsigned kept = __ballot_sync(0xffffffff, v > 0);
  int base = i - lane;
  if (v > 0) out[base + __popc(kept & ((1u << lane) - 1))] = v;
  if (lane == 0) count[i / warpSize] = __popc(kept);
}
