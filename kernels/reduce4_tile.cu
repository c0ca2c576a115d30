// reduce4_tile: g_odata[b] = sum of the 2*blockSize elements of g_idata from b*2*blockSize (0 past n): shared-memory steps down to one warp, then the warp's tile shuffles down
// from: NVIDIA cuda-samples, 2_Concepts_and_Techniques/reduction/reduction_kernel.cu (reduce4<T, blockSize>, as written with the warp size 32 -> 4: `s > 4`, thread_block_tile<4>, `blockSize >= 8`, sdata[tid + 4]), 8- and 16-thread blocks
// run: --grid 2 --block 16 --kernel 'reduce4<int,16>' --shared 64 --arg g_idata=[-663,-144,412,-144,300,-424,-19,727,-558,623,-28,654,972,49,-625,34,80,-517,614,-994,-972,-241,910,198,-124,-859,-704,625,538,-525,887,-524,421,-914,-106,512,578,792,-167,261,-96,-931,959,-327,106,18,421,-763,328,949,920,-246,-953,-683,517,674,-819,-745,656,900,-960,-72,-671,130] --arg g_odata=[0,0] --arg n=60
// run: --grid 3 --block 8 --kernel 'reduce4<float,8>' --shared 32 --arg g_idata=[9.16,-7.19,-9.53,9.97,-6.31,-7.59,3.03,-3.09,7.79,-5.37,9.19,-3.61,2.02,8.64,3.71,8.48,4.16,-9.03,7.63,1.79,-3.79,-6.2,7,1.66,8.76,5.48,9.22,1.33,3.97,2.25,-4.83,9.13,-3.75,5.62,9.09,3.02,-7.16,6.5,3.35,-6.3,-9.02,0.636,-9.35,8.5,0.126,0.346,-1.81,3.22] --arg g_odata=[0,0,0] --arg n=45
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

// Utility class used to avoid linker errors with extern
// unsized shared memory arrays with templated type
template <class T>
struct SharedMemory {
  __device__ inline operator T *() {
    extern __shared__ int __smem[];
    return (T *)__smem;
  }

  __device__ inline operator const T *() const {
    extern __shared__ int __smem[];
    return (T *)__smem;
  }
};

/*
    This version uses the warp shuffle operation if available to reduce
    warp synchronization. When shuffle is not available the final warp's
    worth of work is unrolled to reduce looping overhead.
*/
template <class T, unsigned int blockSize>
__global__ void reduce4(T *g_idata, T *g_odata, unsigned int n) {
  // Handle to thread block group
  cg::thread_block cta = cg::this_thread_block();
  T *sdata = SharedMemory<T>();

  // perform first level of reduction,
  // reading from global memory, writing to shared memory
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;

  T mySum = (i < n) ? g_idata[i] : 0;

  if (i + blockSize < n) mySum += g_idata[i + blockSize];

  sdata[tid] = mySum;
  cg::sync(cta);

  // do reduction in shared mem
  for (unsigned int s = blockDim.x / 2; s > 4; s >>= 1) {
    if (tid < s) {
      sdata[tid] = mySum = mySum + sdata[tid + s];
    }

    cg::sync(cta);
  }

  cg::thread_block_tile<4> tile4 = cg::tiled_partition<4>(cta);

  if (cta.thread_rank() < 4) {
    // Fetch final intermediate sum from 2nd warp
    if (blockSize >= 8) mySum += sdata[tid + 4];
    // Reduce final warp using shuffle
    for (int offset = tile4.size() / 2; offset > 0; offset /= 2) {
      mySum += tile4.shfl_down(mySum, offset);
    }
  }

  // write result for this block to global mem
  if (cta.thread_rank() == 0) g_odata[blockIdx.x] = mySum;
}
