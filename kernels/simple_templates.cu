// simple_templates: g_odata[tid] = blockDim.x * g_idata[tid] through dynamic shared memory reached with SharedMemory<T>::getPointer(), for int and float (the two specialisations name different extern __shared__ arrays, which share one address)
// from: NVIDIA cuda-samples, 0_Introduction/simpleTemplates/simpleTemplates.cu and sharedmem.cuh (testKernel<T> and the SharedMemory<int>/<float> specialisations, as written; the other types' specialisations dropped), 4- to 16-thread blocks; every block computes the same outputs from the same first blockDim.x inputs
// run: --grid 1 --block 16 --kernel 'testKernel<int>' --shared 64 --arg g_idata=[-48,-34,-2,49,-10,46,49,22,-21,-24,49,22,49,-11,3,8] --arg g_odata=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
// run: --grid 2 --block 8 --kernel 'testKernel<float>' --shared 32 --arg g_idata=[-4.38,-5.34,-8.39,7.11,-4.56,-4.39,8.84,-1.63] --arg g_odata=[0,0,0,0,0,0,0,0]
// run: --grid 1 --block 4 --kernel 'testKernel<float>' --shared 16 --arg g_idata=[1e38,-0,0.1,nan] --arg g_odata=[0,0,0,0]
// This is a simple test program to measure the memory bandwidth of the GPU.
// Because dynamically sized shared memory arrays are declared "extern",
// we can't templatize them directly.  To get around this, we declare a
// simple wrapper struct that will declare the extern array with a different
// name depending on the type.  This avoids compiler errors about duplicate
// definitions.
template <typename T>
struct SharedMemory {
  // Ensure that we won't compile any un-specialized types
  __device__ T *getPointer() {
    extern __device__ void error(void);
    error();
    return NULL;
  }
};

// Following are the specializations for the following types.
// int, uint, char, uchar, short, ushort, long, ulong, bool, float, and double
// One could also specialize it for user-defined types.

template <>
struct SharedMemory<int> {
  __device__ int *getPointer() {
    extern __shared__ int s_int[];
    return s_int;
  }
};

template <>
struct SharedMemory<float> {
  __device__ float *getPointer() {
    extern __shared__ float s_float[];
    return s_float;
  }
};

////////////////////////////////////////////////////////////////////////////////
//! Simple test kernel for device functionality
//! @param g_idata  input data in global memory
//! @param g_odata  output data in global memory
////////////////////////////////////////////////////////////////////////////////
template <class T>
__global__ void testKernel(T *g_idata, T *g_odata) {
  // Shared mem size is determined by the host app at run time
  SharedMemory<T> smem;
  T *sdata = smem.getPointer();

  // access thread id
  const unsigned int tid = threadIdx.x;
  // access number of threads in this block
  const unsigned int num_threads = blockDim.x;

  // read in input data from global memory
  sdata[tid] = g_idata[tid];
  __syncthreads();

  // perform some computations
  sdata[tid] = (T)num_threads * sdata[tid];
  __syncthreads();

  // write data to global memory
  g_odata[tid] = sdata[tid];
}
