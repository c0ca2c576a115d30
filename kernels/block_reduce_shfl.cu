// block_reduce_shfl: out[b] = sum of the 16 values of block b: each warp sums its lanes with __shfl_down_sync, warp 0 sums the 4 warp partials
// run: --grid 2 --block 16 --arg in=[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,-33,22,47,-42,-18,-35,13,47,7,10,33,-2,50,-24,-38,12] --arg out=[0,0]
// run: --grid 3 --block 16 --arg in=[100,0,0,0,0,200,0,0,0,0,300,0,0,0,0,400,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,2147483647,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg out=[9,9,9]
// The classic two-level reduction: lane 0 of each warp posts its warp's sum in partial[],
// the barrier makes the 4 posts visible, and warp 0 (all of its lanes, converged) loads
// partial[lane] and reduces again.
extern "C" __global__ void block_reduce_shfl(const int *in, int *out) {
  __shared__ int partial[4];  // one per warp of a 16-thread block
  int t = threadIdx.x;
  int lane = t % warpSize;
  int v = in[blockIdx.x * blockDim.x + t];
  for (int offset = warpSize / 2; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffff, v, offset);
  if (lane == 0) partial[t / warpSize] = v;
  __syncthreads();
  if (t < warpSize) {
    v = partial[lane];
    for (int offset = warpSize / 2; offset > 0; offset /= 2)
      v += __shfl_down_sync(0xffffffff, v, offset);
    if (lane == 0) out[blockIdx.x] = v;
  }
}
