// reduce0_cg: g_odata[b] = sum of block b's elements of g_idata (0 past n), interleaved addressing with tid % (2*s), for int and float
// from: NVIDIA cuda-samples, 2_Concepts_and_Techniques/reduction/reduction_kernel.cu (SharedMemory<T> and reduce0, as written; the double specialisation of SharedMemory dropped: no double here), shrunk to 8- and 16-thread blocks
// run: --grid 3 --block 8 --kernel 'reduce0<int>' --shared 32 --arg g_idata=[-33,22,47,-42,-18,-35,13,47,7,10,33,-2,50,-24,-38,12,-47,-1,5,27,47,48,-50,39] --arg g_odata=[0,0,0] --arg n=22
// run: --grid 2 --block 16 --kernel 'reduce0<float>' --shared 64 --arg g_idata=[9.12,8.96,-8.87,-8.3,6.71,4.72,3.39,-3.84,2.12,2.14,1.62,-6.83,-1.39,-2.13,4.46,9.9,8.99,0.884,-1.1,-4.64,-9.28,-9.45,-0.702,-3.63,-2.4,7.84,0.515,1.21,-5.28,-9.52,-3.5,-7.27] --arg g_odata=[0,0] --arg n=30
// run: --grid 1 --block 4 --kernel 'reduce0<int>' --shared 16 --arg g_idata=[2147483647,1,-5,5] --arg g_odata=[7] --arg n=4
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
    Parallel sum reduction using shared memory
    - takes log(n) steps for n input elements
    - uses n threads
    - only works for power-of-2 arrays
*/

/* This reduction interleaves which threads are active by using the modulo
   operator.  This operator is very expensive on GPUs, and the interleaved
   inactivity means that no whole warps are active, which is also very
   inefficient */
template <class T>
__global__ void reduce0(T *g_idata, T *g_odata, unsigned int n) {
  // Handle to thread block group
  cg::thread_block cta = cg::this_thread_block();
  T *sdata = SharedMemory<T>();

  // load shared mem
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

  sdata[tid] = (i < n) ? g_idata[i] : 0;

  cg::sync(cta);

  // do reduction in shared mem
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    // modulo arithmetic is slow!
    if ((tid % (2 * s)) == 0) {
      sdata[tid] += sdata[tid + s];
    }

    cg::sync(cta);
  }

  // write result for this block to global mem
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}
