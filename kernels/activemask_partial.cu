// activemask_partial: mask[i] = __activemask() of thread i: the lanes of its warp that exist and have not returned (skip[i] != 0 returns first, mask[i] stays -1)
// run: --grid 1 --block 6 --arg skip=[0,0,0,0,0,0] --arg mask=[-1,-1,-1,-1,-1,-1]
// run: --grid 2 --block 7 --arg skip=[0,1,0,0,0,0,1,1,0,0,1,0,0,0] --arg mask=[-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1]
// run: --grid 1 --block 5 --arg skip=[1,1,1,0,0] --arg mask=[-1,-1,-1,-1,-1]
// Block 6 is a warp of 4 lanes (mask 15) and one of 2 (mask 3), block 7 one of 4 and one of
// 3 (mask 7). The threads left after the early return call __activemask() together.
extern "C" __global__ void activemask_partial(const int *skip, unsigned *mask) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (skip[i]) return;
  mask[i] = __activemask();
}
