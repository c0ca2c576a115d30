// reduce3_template: g_odata[b] = sum of the 2*blockSize elements of g_idata from b*2*blockSize (0 past n): first add during load, then sequential addressing in dynamic shared memory
// from: NVIDIA cuda-samples, 2_Concepts_and_Techniques/reduction/reduction_kernel.cu (SharedMemory<T> and reduce3<T, blockSize>, as written), shrunk to 4- to 16-thread blocks
// run: --grid 2 --block 8 --kernel 'reduce3<int,8>' --shared 32 --arg g_idata=[7,21,49,9,7,15,25,-26,-27,15,10,30,28,-27,-38,7,-12,-32,-39,18,38,31,-45,26,0,7,33,44,28,33,-30,29] --arg g_odata=[0,0] --arg n=29
// run: --grid 2 --block 16 --kernel 'reduce3<float,16>' --shared 64 --arg g_idata=[-0.509,3.15,3.33,-7.15,-9.78,-2.5,-4.52,6.21,3.81,2.03,1.16,3.23,-7.09,-1.2,-6.75,8.12,-8.82,6.38,-8.51,3.74,-3.26,-1.91,6.85,-9.63,-8.78,8.3,0.179,-8.18,9.74,8.93,-7.75,-1.54,-7.3,-3.75,2.43,-6.73,3.94,-8.97,-6.58,6.31,-1.99,-1.62,1.92,-0.465,-2.31,-9.39,4.53,9.35,9.53,3.27,-2.87,-2.74,3.8,3.48,-7.72,-5.3,-2.73,0.227,6.2,0.000242,-9.44,6.45,-1.4,0.38] --arg g_odata=[0,0] --arg n=64
// run: --grid 3 --block 4 --kernel 'reduce3<unsigned,4>' --shared 16 --arg g_idata=[-1,-1,7,3,100,200,300,400,5,6,7,8,-2147483648,1,2,3,4,5,6,7,8,9,10,11] --arg g_odata=[0,0,0] --arg n=21
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
    This version uses n/2 threads --
    it performs the first level of reduction when reading from global memory.
*/
template <class T, unsigned int blockSize>
__global__ void reduce3(T *g_idata, T *g_odata, unsigned int n) {
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
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      sdata[tid] = mySum = mySum + sdata[tid + s];
    }

    cg::sync(cta);
  }

  // write result for this block to global mem
  if (tid == 0) g_odata[blockIdx.x] = mySum;
}
