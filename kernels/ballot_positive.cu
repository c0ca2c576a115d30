// ballot_positive: count[w] = how many of warp w's lanes hold x > 0 (__ballot_sync + __popc; NaN and -0 are not > 0)
// run: --grid 1 --block 16 --arg x=[1,-1,0,-0,nan,1e-45,-1e-45,inf,0.5,0.5,0.5,0.5,-inf,nan,-0,0] --arg count=[0,0,0,0]
// run: --grid 2 --block 6 --arg x=[3,2,1,0,-1,-2,1e-38,1e-39,1e-40,1e-41,1e-42,1e-43] --arg count=[0,0,0,0]
// A block of 6 is a full warp and a warp of 2 lanes.
extern "C" __global__ void ballot_positive(const float *x, int *count) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned bits = __ballot_sync(0xffffffff, x[i] > 0.0f);
  if (threadIdx.x % warpSize == 0) count[blockIdx.x * 2 + threadIdx.x / warpSize] = __popc(bits);
}
