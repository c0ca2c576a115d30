// reduce_cg_plus: g_odata[b] = block b's share of a grid-stride sum of g_idata[0..n): shared-memory steps down to one tile, then cg::reduce(tile, v, cg::plus<T>())
// from: NVIDIA cuda-samples, 2_Concepts_and_Techniques/reduction/reduction_kernel.cu (cg_reduce_n and cg_reduce<T>, as written with the tile size 32 -> 4: thread_block_tile<4>, `ctaIndex >= 4`), 8- and 16-thread blocks
// run: --grid 2 --block 16 --kernel 'cg_reduce<int>' --shared 64 --arg g_idata=[-488,-20,-385,282,-98,-356,200,-456,-358,473,-385,48,-263,228,275,-358,-350,258,-467,178,-438,-361,-264,48,249,-42,38,-78,-291,107,-405,-380,-480,288,462,408,-88,-151,-297,-290] --arg g_odata=[0,0] --arg n=40
// run: --grid 3 --block 8 --kernel 'cg_reduce<float>' --shared 32 --arg g_idata=[-8.45,-5.73,-3.94,8,-0.075,4.4,-8,0.179,6.86,0.456,8.89,7.64,-2.58,-9.99,5.11,-7.47,-9.81,4.61,6.86,6.73,9.07,-5.97,-8.37,-7.58,9.55,-7.76,-6.81,-9.6,-9.01,-9.23] --arg g_odata=[0,0,0] --arg n=30
// run: --grid 1 --block 4 --kernel 'cg_reduce<unsigned>' --shared 16 --arg g_idata=[-1,-1,-1,-1,5,6,7] --arg g_odata=[0] --arg n=7
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

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

template <typename T, typename Group>
__device__ __forceinline__ T cg_reduce_n(T in, Group &threads) {
  return cg::reduce(threads, in, cg::plus<T>());
}

template <class T>
__global__ void cg_reduce(T *g_idata, T *g_odata, unsigned int n) {
  // Shared memory for intermediate steps
  T *sdata = SharedMemory<T>();
  // Handle to thread block group
  cg::thread_block cta = cg::this_thread_block();
  // Handle to tile in thread block
  cg::thread_block_tile<4> tile = cg::tiled_partition<4>(cta);

  unsigned int ctaSize = cta.size();
  unsigned int numCtas = gridDim.x;
  unsigned int threadRank = cta.thread_rank();
  unsigned int threadIndex = (blockIdx.x * ctaSize) + threadRank;

  T threadVal = 0;
  {
    unsigned int i = threadIndex;
    unsigned int indexStride = (numCtas * ctaSize);
    while (i < n) {
      threadVal += g_idata[i];
      i += indexStride;
    }
    sdata[threadRank] = threadVal;
  }

  // Wait for all tiles to finish and reduce within CTA
  {
    unsigned int ctaSteps = tile.meta_group_size();
    unsigned int ctaIndex = ctaSize >> 1;
    while (ctaIndex >= 4) {
      cta.sync();
      if (threadRank < ctaIndex) {
        threadVal += sdata[threadRank + ctaIndex];
        sdata[threadRank] = threadVal;
      }
      ctaSteps >>= 1;
      ctaIndex >>= 1;
    }
  }

  // Shuffle redux instead of smem redux
  {
    cta.sync();
    if (tile.meta_group_rank() == 0) {
      threadVal = cg_reduce_n(threadVal, tile);
    }
  }

  if (threadRank == 0) g_odata[blockIdx.x] = threadVal;
}
