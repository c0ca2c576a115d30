// shfl_width2: shuffles with width 2 (two segments of 2 lanes per warp): swap[i] xor 1, down[i] down 1, idx[i] srcLane 0, back[i] xor 2
// run: --grid 1 --block 8 --arg in=[10,11,12,13,20,21,22,23] --arg swap=[0,0,0,0,0,0,0,0] --arg down=[0,0,0,0,0,0,0,0] --arg idx=[0,0,0,0,0,0,0,0] --arg back=[0,0,0,0,0,0,0,0]
// run: --grid 2 --block 4 --arg in=[1,-2,3,-4,-5,6,-7,8] --arg swap=[0,0,0,0,0,0,0,0] --arg down=[0,0,0,0,0,0,0,0] --arg idx=[0,0,0,0,0,0,0,0] --arg back=[0,0,0,0,0,0,0,0]
// Per warp of lanes 0..3 holding v0..v3:
//   swap (xor 1):  v1 v0 v3 v2      down (by 1):   v1 v1 v3 v3  (the last lane of a segment keeps its own)
//   idx (lane 0):  v0 v0 v2 v2      back (xor 2):  v0 v1 v0 v1
// xor 2 reaches out of the segment: CUDA documents that a lane may read an earlier segment
// (lanes 2, 3 get lanes 0, 1) but gets its own value for a later one (lanes 0, 1).
extern "C" __global__ void shfl_width2(const int *in, int *swap, int *down, int *idx, int *back) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  swap[i] = __shfl_xor_sync(0xffffffff, v, 1, 2);
  down[i] = __shfl_down_sync(0xffffffff, v, 1, 2);
  idx[i] = __shfl_sync(0xffffffff, v, 0, 2);
  back[i] = __shfl_xor_sync(0xffffffff, v, 2, 2);
}
