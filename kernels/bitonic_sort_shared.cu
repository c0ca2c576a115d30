// bitonic_sort_shared: each block sorts its 2*blockDim.x (key, value) pairs in __shared__ (ascending if dir, else descending), Comparator swapping through references
// from: NVIDIA cuda-samples, 2_Concepts_and_Techniques/sortingNetworks/bitonicSort.cu (Comparator and bitonicSortShared, as written, with sortingNetworks_common.h's `typedef unsigned int uint`; the cg::sync(cta) of recent releases written as the __syncthreads() of earlier ones), SHARED_SIZE_LIMIT 1024 -> 4 (2-thread blocks, 4 pairs per block)
// run: --grid 1 --block 2 --arg d_DstKey=[0,0,0,0] --arg d_DstVal=[0,0,0,0] --arg d_SrcKey=[9,3,-7,1] --arg d_SrcVal=[0,1,2,3] --arg arrayLength=4 --arg dir=1
// run: --grid 2 --block 2 --arg d_DstKey=[0,0,0,0,0,0,0,0] --arg d_DstVal=[0,0,0,0,0,0,0,0] --arg d_SrcKey=[42,17,99,17,5,80,23,61] --arg d_SrcVal=[0,1,2,3,4,5,6,7] --arg arrayLength=4 --arg dir=0
// run: --grid 3 --block 2 --arg d_DstKey=[0,0,0,0,0,0,0,0,0,0,0,0] --arg d_DstVal=[0,0,0,0,0,0,0,0,0,0,0,0] --arg d_SrcKey=[4,3,2,1,1,2,3,4,8,8,0,-1] --arg d_SrcVal=[10,11,12,13,14,15,16,17,18,19,20,21] --arg arrayLength=2 --arg dir=1
typedef unsigned int uint;

#define SHARED_SIZE_LIMIT 4U

__device__ inline void Comparator(uint &keyA, uint &valA, uint &keyB,
                                  uint &valB, uint dir) {
  uint t;

  if ((keyA > keyB) == dir) {
    t = keyA;
    keyA = keyB;
    keyB = t;
    t = valA;
    valA = valB;
    valB = t;
  }
}

__global__ void bitonicSortShared(uint *d_DstKey, uint *d_DstVal,
                                  uint *d_SrcKey, uint *d_SrcVal,
                                  uint arrayLength, uint dir) {
  // Shared memory storage for one or more short vectors
  __shared__ uint s_key[SHARED_SIZE_LIMIT];
  __shared__ uint s_val[SHARED_SIZE_LIMIT];

  // Offset to the beginning of subbatch and load data
  d_SrcKey += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
  d_SrcVal += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
  d_DstKey += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
  d_DstVal += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
  s_key[threadIdx.x + 0] = d_SrcKey[0];
  s_val[threadIdx.x + 0] = d_SrcVal[0];
  s_key[threadIdx.x + (SHARED_SIZE_LIMIT / 2)] =
      d_SrcKey[(SHARED_SIZE_LIMIT / 2)];
  s_val[threadIdx.x + (SHARED_SIZE_LIMIT / 2)] =
      d_SrcVal[(SHARED_SIZE_LIMIT / 2)];

  for (uint size = 2; size < arrayLength; size <<= 1) {
    // Bitonic merge
    uint ddd = dir ^ ((threadIdx.x & (size / 2)) != 0);

    for (uint stride = size / 2; stride > 0; stride >>= 1) {
      __syncthreads();
      uint pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
      Comparator(s_key[pos + 0], s_val[pos + 0], s_key[pos + stride],
                 s_val[pos + stride], ddd);
    }
  }

  // ddd == dir for the last bitonic merge step
  {
    for (uint stride = arrayLength / 2; stride > 0; stride >>= 1) {
      __syncthreads();
      uint pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
      Comparator(s_key[pos + 0], s_val[pos + 0], s_key[pos + stride],
                 s_val[pos + stride], dir);
    }
  }

  __syncthreads();
  d_DstKey[0] = s_key[threadIdx.x + 0];
  d_DstVal[0] = s_val[threadIdx.x + 0];
  d_DstKey[(SHARED_SIZE_LIMIT / 2)] =
      s_key[threadIdx.x + (SHARED_SIZE_LIMIT / 2)];
  d_DstVal[(SHARED_SIZE_LIMIT / 2)] =
      s_val[threadIdx.x + (SHARED_SIZE_LIMIT / 2)];
}
