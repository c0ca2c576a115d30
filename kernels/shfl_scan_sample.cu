// shfl_scan_sample: shfl_scan_test: data = inclusive prefix sums within each block (warp scans with __shfl_up_sync, then a scan of the warp sums), partial_sums[b] = block b's total; uniform_add: data[id] += partial_sums[blockIdx.x]
// from: NVIDIA cuda-samples, 2_Concepts_and_Techniques/shfl_scan/shfl_scan.cu (shfl_scan_test and uniform_add, as written, the default argument and NULL test kept), 16-thread blocks (4 warps of 4 lanes), width = warpSize = 4
// run: --grid 2 --block 16 --kernel shfl_scan_test --shared 16 --arg data=[4,1,-6,-10,4,16,-2,15,-3,4,16,-20,-5,-19,8,-11,-11,0,-10,-4,19,17,-17,-13,17,-18,7,-2,-7,-16,3,10] --arg width=4 --arg partial_sums=[0,0]
// run: --grid 1 --block 16 --kernel shfl_scan_test --shared 16 --arg data=[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1] --arg width=4 --arg partial_sums=[9]
// run: --grid 3 --block 4 --kernel uniform_add --arg data=[31,-36,-47,44,-15,-19,-22,-33,44,-37,36,44] --arg partial_sums=[100,-200,300] --arg len=12
#include <cstdio>

__global__ void shfl_scan_test(int *data, int width, int *partial_sums = NULL) {
  extern __shared__ int sums[];
  int id = ((blockIdx.x * blockDim.x) + threadIdx.x);
  int lane_id = id % warpSize;
  // determine a warp_id within a block
  int warp_id = threadIdx.x / warpSize;

  // Below is the basic structure of using a shfl instruction
  // for a scan.
  // Record "value" as a variable - we accumulate it along the way
  int value = data[id];

  // Now accumulate in log steps up the chain
  // compute sums, with another thread's value who is
  // distance delta away (i).  Note
  // those threads where the thread 'i' away would have
  // been out of bounds of the warp are unaffected.  This
  // creates the scan sum.

#pragma unroll
  for (int i = 1; i <= width; i *= 2) {
    unsigned int mask = 0xffffffff;
    int n = __shfl_up_sync(mask, value, i, width);

    if (lane_id >= i) value += n;
  }

  // value now holds the scan value for the individual thread
  // next sum the largest values for each warp

  // write the sum of the warp to smem
  if (threadIdx.x % warpSize == warpSize - 1) {
    sums[warp_id] = value;
  }

  __syncthreads();

  //
  // scan sum the warp sums
  // the same shfl scan operation, but performed on warp sums
  //
  if (warp_id == 0 && lane_id < (blockDim.x / warpSize)) {
    int warp_sum = sums[lane_id];

    int mask = (1 << (blockDim.x / warpSize)) - 1;
    for (int i = 1; i <= (blockDim.x / warpSize); i *= 2) {
      int n = __shfl_up_sync(mask, warp_sum, i, (blockDim.x / warpSize));

      if (lane_id >= i) warp_sum += n;
    }

    sums[lane_id] = warp_sum;
  }

  __syncthreads();

  // perform a uniform add across warps in the block
  // read neighbouring warp's sum and add it to threads value
  int blockSum = 0;

  if (warp_id > 0) {
    blockSum = sums[warp_id - 1];
  }

  value += blockSum;

  // Now write out our result
  data[id] = value;

  // last thread has special job of writing out final partial sum
  if (partial_sums != NULL && threadIdx.x == blockDim.x - 1) {
    partial_sums[blockIdx.x] = value;
  }
}

// Uniform add: add partial sums array
__global__ void uniform_add(int *data, int *partial_sums, int len) {
  __shared__ int buf;
  int id = ((blockIdx.x * blockDim.x) + threadIdx.x);

  if (id > len) return;

  if (threadIdx.x == 0) {
    buf = partial_sums[blockIdx.x];
  }

  __syncthreads();
  data[id] += buf;
}
