// tile_vote_cg: per 4-thread tile t (of thread_block_tile<4>), ballots[t] = the tile's ballot of in[i] > 0 (bit r: tile thread r), and per 2-thread tile u, pair_any[u] / pair_all[u] = any / all of in[i] > 0 over the tile
// from: CUDA C++ Programming Guide, "Cooperative Groups", thread_block_tile collectives (tiled_partition<N>, any, all, ballot, meta_group_rank), written for this corpus in the guide's style; 8- and 16-thread blocks
// run: --grid 2 --block 8 --arg in=[-2,0,-3,0,-1,1,3,3,-2,3,3,-1,1,0,2,2] --arg ballots=[0,0,0,0] --arg pair_any=[0,0,0,0,0,0,0,0] --arg pair_all=[0,0,0,0,0,0,0,0]
// run: --grid 1 --block 16 --arg in=[1,1,1,1,-1,-1,-1,-1,1,-1,1,-1,-1,1,1,-1] --arg ballots=[9,9,9,9] --arg pair_any=[9,9,9,9,9,9,9,9] --arg pair_all=[9,9,9,9,9,9,9,9]
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void tile_votes(const int *__restrict__ in, unsigned int *ballots, int *pair_any,
                           int *pair_all) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<4> tile4 = cg::tiled_partition<4>(block);
  cg::thread_block_tile<2> tile2 = cg::tiled_partition<2>(block);

  const unsigned int i = block.group_index().x * block.size() + block.thread_rank();
  const bool positive = in[i] > 0;

  const unsigned int bits = tile4.ballot(positive);
  const int any = tile2.any(positive);
  const int all = tile2.all(positive);

  const unsigned int tiles4 = block.group_index().x * tile4.meta_group_size() + tile4.meta_group_rank();
  const unsigned int tiles2 = block.group_index().x * tile2.meta_group_size() + tile2.meta_group_rank();
  if (tile4.thread_rank() == 0) ballots[tiles4] = bits;
  if (tile2.thread_rank() == 0) {
    pair_any[tiles2] = any;
    pair_all[tiles2] = all;
  }
}
