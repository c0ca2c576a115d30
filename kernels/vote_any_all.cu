// vote_any_all: per warp, any[w] = __any_sync(x > 0), all[w] = __all_sync(x > 0), and every lane's own view of both in lanes[i] (any + 2*all)
// run: --grid 1 --block 16 --arg x=[1,2,3,4,0,0,0,0,-1,5,0,0,9,-9,9,9] --arg any=[0,0,0,0] --arg all=[0,0,0,0] --arg lanes=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
// run: --grid 2 --block 8 --arg x=[1,1,1,1,1,1,1,-1,0,0,0,0,0,0,0,1] --arg any=[0,0,0,0] --arg all=[0,0,0,0] --arg lanes=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
// run: --grid 1 --block 7 --arg x=[0,-1,-2,-3,4,5,6] --arg any=[0,0] --arg all=[0,0] --arg lanes=[0,0,0,0,0,0,0]
// The third case has a partial warp of 3 lanes: all of its lanes vote yes, so __all_sync is
// 1 there (lanes the warp lacks do not vote).
extern "C" __global__ void vote_any_all(const int *x, int *any, int *all, int *lanes) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int p = x[i] > 0;
  int a = __any_sync(0xffffffff, p);
  int l = __all_sync(0xffffffff, p);
  lanes[i] = a + 2 * l;
  if (threadIdx.x % warpSize == 0) {
    any[i / warpSize] = a;
    all[i / warpSize] = l;
  }
}
