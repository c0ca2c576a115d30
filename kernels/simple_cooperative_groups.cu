// simple_cooperative_groups: block_sums[b] = sum of the thread ranks of block b (sumReduction over the whole thread_block), tile_sums[4 tiles per block] = sum of the ranks within each tiled_partition(block, 4)
// from: NVIDIA cuda-samples, 0_Introduction/simpleCooperativeGroups/simpleCooperativeGroups.cu (sumReduction and cgkernel, as written except that the printf of each result is a store into block_sums / tile_sums, and the tile size 16 -> 4, expected 15*16/2 -> 3*4/2), 16-thread blocks (4 tiles of 4)
// run: --grid 1 --block 16 --shared 64 --arg block_sums=[0] --arg tile_sums=[0,0,0,0]
// run: --grid 3 --block 16 --shared 64 --arg block_sums=[0,0,0] --arg tile_sums=[0,0,0,0,0,0,0,0,0,0,0,0]
// run: --grid 2 --block 8 --shared 32 --arg block_sums=[7,7] --arg tile_sums=[7,7,7,7,7,7,7,7]
#include <cooperative_groups.h>

using namespace cooperative_groups;

/**
 * CUDA device function
 *
 * calculates the sum of val across the group g. The workspace array, x,
 * must be large enough to contain g.size() integers.
 */
__device__ int sumReduction(thread_group g, int *x, int val) {
  // rank of this thread in the group
  int lane = g.thread_rank();

  // for each iteration of this loop, the number of threads active in the
  // reduction, i, is halved, and each active thread (with index [lane])
  // performs a single summation of it's own value with that
  // of a "partner" (with index [lane+i]).
  for (int i = g.size() / 2; i > 0; i /= 2) {
    // store value for this thread in temporary array
    x[lane] = val;
    // synchronize all threads in group
    g.sync();

    if (lane < i)
      // active threads perform summation of their value with
      // that of their partner and store result in temporary array
      val += x[lane + i];

    // synchronize all threads in group
    g.sync();
  }

  // master thread in group returns result, and others return -1.
  if (g.thread_rank() == 0)
    return val;
  else
    return -1;
}

/**
 * CUDA kernel device code
 *
 * Creates cooperative groups and performs reductions
 */
__global__ void cgkernel(int *block_sums, int *tile_sums) {
  // threadBlockGroup includes all threads in the block
  thread_block threadBlockGroup = this_thread_block();
  int threadBlockGroupSize = threadBlockGroup.size();

  // workspace array in shared memory required for reduction
  extern __shared__ int workspace[];

  int input, output, expectedOutput;

  // input to reduction, for each thread, is its' rank in the group
  input = threadBlockGroup.thread_rank();

  // expected output from analytical formula (n-1)(n)/2
  // (noting that indexing starts at 0 rather than 1)
  expectedOutput = (threadBlockGroupSize - 1) * threadBlockGroupSize / 2;

  // perform reduction
  output = sumReduction(threadBlockGroup, workspace, input);

  // master thread in group stores the result
  if (threadBlockGroup.thread_rank() == 0) {
    block_sums[blockIdx.x] = output == expectedOutput ? output : -output;
  }

  // synchronize the block, to ensure all threads have completed
  // the above reduction before the workspace is reused
  threadBlockGroup.sync();

  // Create 4-thread tiled groups (the sample: 16-thread groups)
  thread_group tiledPartition4 = tiled_partition(threadBlockGroup, 4);

  // This offset allows each group to have its own unique area in the workspace
  // array
  int workspaceOffset =
      threadBlockGroup.thread_rank() - tiledPartition4.thread_rank();

  // input to tiled reduction, for each thread, is its' rank in the group
  input = tiledPartition4.thread_rank();

  // expected output from analytical formula (n-1)(n)/2
  // (noting that indexing starts at 0 rather than 1)
  expectedOutput = 3 * 4 / 2;

  // Perform reduction
  output = sumReduction(tiledPartition4, workspace + workspaceOffset, input);

  // each master thread stores the result
  if (tiledPartition4.thread_rank() == 0)
    tile_sums[blockIdx.x * (threadBlockGroupSize / 4) +
              threadBlockGroup.thread_rank() / 4] =
        output == expectedOutput ? output : -output;
}
