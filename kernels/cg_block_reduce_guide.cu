// cg_block_reduce_guide: block_reduce: sum[b] = sum of A over block b (cg::reduce with cg::plus per 4-thread tile, tile results in __shared__, the block's thread 0 adds them); block_minmax: lo[b] / hi[b] = min / max of block b's floats with cg::less / cg::greater
// from: CUDA C++ Programming Guide, "Cooperative Groups", "reduce" (block_reduce, as written with blocksz 256 -> 16 and thread_block_tile<32> -> <4>, A indexed from the block's start so that several blocks each reduce their own part); block_minmax written for this corpus in the same form with cg::less / cg::greater
// run: --grid 2 --block 16 --kernel block_reduce --arg A=[409,93,542,-788,-275,891,436,686,455,-869,-517,221,330,785,117,738,-663,288,-469,700,-453,513,-279,477,-717,312,771,-972,-655,429,956,264] --arg sum=[0,0]
// run: --grid 3 --block 16 --kernel block_minmax --arg x=[-32.9,-0.78,92.4,24.9,2.72,55.1,-99.9,-48.9,-58,21.2,-24.1,69.6,68.1,-35.6,-13.9,-55.8,-99,-21.6,-5.16,-33.2,-87.1,-70.3,-54.5,-83.2,22.8,-73.5,-69.9,92.3,97.7,7.56,17.8,-51.6,68.4,6.04,-72,42,-66,-79.9,-64.4,-33.4,-35.8,-48,68.6,21.5,19.8,-69.1,43.3,-19.8] --arg lo=[0,0,0] --arg hi=[0,0,0]
// run: --grid 1 --block 16 --kernel block_minmax --arg x=[3,-0,0,5,inf,-inf,1,2,-3,-2,-1,0.5,7,8,9,1e-45] --arg lo=[9] --arg hi=[9]
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

/// The following example accepts input in *A and outputs a result into *sum
/// It spreads the data within the block, one element per thread
#define blocksz 16
__global__ void block_reduce(const int *A, int *sum) {
    __shared__ int reduction_s[blocksz];

    cg::thread_block cta = cg::this_thread_block();
    cg::thread_block_tile<4> tile = cg::tiled_partition<4>(cta);

    const int tid = cta.thread_rank();
    int beta = A[blockIdx.x * blocksz + tid];
    // reduce across the tile
    // cg::plus<int> allows cg::reduce() to know it can use hardware acceleration for addition
    reduction_s[tid] = cg::reduce(tile, beta, cg::plus<int>());
    // synchronize the block so all data is ready
    cg::sync(cta);
    // single leader accumulates the result
    if (cta.thread_rank() == 0) {
        beta = 0;
        for (int i = 0; i < blocksz; i += tile.num_threads()) {
            beta += reduction_s[i];
        }
        sum[blockIdx.x] = beta;
    }
}

__global__ void block_minmax(const float *x, float *lo, float *hi) {
    __shared__ float lo_s[blocksz];
    __shared__ float hi_s[blocksz];

    cg::thread_block cta = cg::this_thread_block();
    cg::thread_block_tile<4> tile = cg::tiled_partition<4>(cta);

    const int tid = cta.thread_rank();
    const float v = x[cta.group_index().x * blocksz + tid];
    lo_s[tid] = cg::reduce(tile, v, cg::less<float>());
    hi_s[tid] = cg::reduce(tile, v, cg::greater<float>());
    cg::sync(cta);
    if (cta.thread_rank() == 0) {
        float l = lo_s[0], h = hi_s[0];
        for (int i = tile.num_threads(); i < blocksz; i += tile.num_threads()) {
            l = lo_s[i] < l ? lo_s[i] : l;
            h = h < hi_s[i] ? hi_s[i] : h;
        }
        lo[blockIdx.x] = l;
        hi[blockIdx.x] = h;
    }
}
