// transpose_no_bank_conflicts: odata = the transpose of the width x height matrix idata, through a __shared__ tile padded to TILE_DIM+1 columns
// from: NVIDIA cuda-samples, 6_Performance/transpose/transpose.cu (transposeNoBankConflicts, as written), TILE_DIM 16 -> 4 and BLOCK_ROWS 16 -> 2 (4x2 blocks, two rows per thread)
// run: --grid 2,1 --block 4,2 --arg odata=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg idata=[-5.13,0.0442,-6.76,6.42,-5.37,1.05,8.53,-2.05,9.36,4.63,0.962,2.58,1.72,-2.8,9.93,-1.92,9.68,7.05,-9.43,-4.84,-0.445,6.29,-6.45,2.32,-2.66,5.71,8.53,5.24,-6.13,5.21,-1.24,6.74] --arg width=8 --arg height=4
// run: --grid 1,2 --block 4,2 --arg odata=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg idata=[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31] --arg width=4 --arg height=8
// run: --grid 1,1 --block 4,2 --arg odata=[9,9,9,9,9,9,9,9,9,9,9,9,9,9,9,9] --arg idata=[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,-0] --arg width=4 --arg height=4
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define TILE_DIM 4
#define BLOCK_ROWS 2

// This kernel is optimized to ensure all global reads and writes are coalesced,
// and to avoid bank conflicts in shared memory.  This kernel is up to 11x
// faster than the naive kernel below.  Note that the shared memory array is
// sized to (TILE_DIM+1)*TILE_DIM.  This padding eliminates bank conflicts in
// the shared memory accesses.
__global__ void transposeNoBankConflicts(float *odata, float *idata, int width,
                                         int height) {
  // Handle to thread block group
  cg::thread_block cta = cg::this_thread_block();
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];

  int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
  int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;
  int index_in = xIndex + (yIndex)*width;

  xIndex = blockIdx.y * TILE_DIM + threadIdx.x;
  yIndex = blockIdx.x * TILE_DIM + threadIdx.y;
  int index_out = xIndex + (yIndex)*height;

  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) {
    tile[threadIdx.y + i][threadIdx.x] = idata[index_in + i * width];
  }

  cg::sync(cta);

  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) {
    odata[index_out + i * height] = tile[threadIdx.x][threadIdx.y + i];
  }
}
