// cg_tile_shuffles: per thread, through thread_block_tile<2> and <4>: a broadcast by tile.shfl from a source rank read from src (counted modulo the tile size), shfl_up / shfl_xor within the tile, the tile's ballot, and cg::reduce with cg::greater<unsigned> / cg::less<int> (so signedness shows)
// from: CUDA C++ Programming Guide, "Cooperative Groups", thread_block_tile member functions (shfl, shfl_up, shfl_xor, ballot, meta_group_rank) and cg::reduce; written for this corpus to pin down the tile semantics CUDA defines: a source rank taken modulo the tile size, a lane whose shfl_up source is below the tile keeps its own value, ballot bits relative to the tile
// run: --grid 2 --block 4 --arg v=[4,-9,-4,-8,8,9,-1,-4] --arg src=[0,1,2,3,5,7,-1,6] --arg bcast2=[0,0,0,0,0,0,0,0] --arg bcast4=[0,0,0,0,0,0,0,0] --arg up=[0,0,0,0,0,0,0,0] --arg bfly=[0,0,0,0,0,0,0,0] --arg bal2=[0,0,0,0,0,0,0,0] --arg umax=[0,0,0,0,0,0,0,0] --arg imin=[0,0,0,0,0,0,0,0]
// run: --grid 1 --block 4 --arg v=[-1,2,-2147483648,2147483647] --arg src=[3,3,3,3] --arg bcast2=[0,0,0,0] --arg bcast4=[0,0,0,0] --arg up=[0,0,0,0] --arg bfly=[0,0,0,0] --arg bal2=[0,0,0,0] --arg umax=[0,0,0,0] --arg imin=[0,0,0,0]
// run: --grid 1 --block 8 --arg v=[-1,3,5,4,-2,7,1,-6] --arg src=[1,1,0,0,3,2,9,4] --arg bcast2=[0,0,0,0,0,0,0,0] --arg bcast4=[0,0,0,0,0,0,0,0] --arg up=[0,0,0,0,0,0,0,0] --arg bfly=[0,0,0,0,0,0,0,0] --arg bal2=[0,0,0,0,0,0,0,0] --arg umax=[0,0,0,0,0,0,0,0] --arg imin=[0,0,0,0,0,0,0,0]
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

__global__ void tile_shuffles(const int *v, const int *src, int *bcast2, int *bcast4, int *up,
                              int *bfly, unsigned int *bal2, unsigned int *umax, int *imin) {
  cg::thread_block block = cg::this_thread_block();
  auto tile2 = cg::tiled_partition<2>(block);
  cg::thread_block_tile<4> tile4 = cg::tiled_partition<4>(block);

  const unsigned int i = blockIdx.x * blockDim.x + block.thread_rank();
  const int x = v[i];
  bcast2[i] = tile2.shfl(x, src[i]);
  bcast4[i] = tile4.shfl(x, src[i]);
  up[i] = tile4.shfl_up(x, 1 + (int)tile2.meta_group_rank() % 2);
  bfly[i] = x + tile4.shfl_xor(x, 2);
  bal2[i] = tile2.ballot(x > 0) | (tile4.ballot(x < 0) << 4);
  umax[i] = cg::reduce(tile4, (unsigned int)x, cg::greater<unsigned int>());
  imin[i] = cg::reduce(tile2, x, cg::less<int>());
}
