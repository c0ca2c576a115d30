// fence_last_block_sum: result[b] = block b's partial sum of array[0..N) (a grid-stride loop, then a tree in __shared__); the last block to finish (atomicInc on a __device__ counter, after __threadfence) sums the partial sums into result[0] and resets the counter
// from: CUDA C++ Programming Guide, "Memory Fence Functions" (sum, count and isLastBlockDone, as written except `__shared__ bool isLastBlockDone` -> unsigned int: a bool in memory is 8-bit data, which the machine lacks; the guide leaves calculatePartialSum and calculateTotalSum to the reader: here they are a grid-stride loop and a shared-memory tree), 8- and 16-thread blocks
// run: --grid 3 --block 16 --arg array=[-1.1,-2.35,1.56,-0.86,-1.8,-0.218,-4.75,8.23,-1.95,9.58,0.244,4.75,9.99,1.92,7.91,-1.13,-6.92,-9.91,-0.19,5.99,7.37,-5.92,1.93,-1.69,-6.58,9.1,-6.03,6,-6.52,-7.78,-9.61,2.97,5.97,0.647,2.28,2.15,-5.7,9.43,-3.95,4.67] --arg N=40 --arg result=[0,0,0]
// run: --grid 4 --block 8 --arg array=[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32] --arg N=32 --arg result=[0,0,0,0]
// run: --grid 1 --block 16 --arg array=[5.54,-9.68,3.73,0.812,6.21,-3.23,-0.888,-4.73,6.3,4.65] --arg N=10 --arg result=[7]
__device__ unsigned int count = 0;
__shared__ unsigned int isLastBlockDone;
__shared__ float partial[16];

// The block's threads sum array[0..N) with a grid-stride loop, then a tree in shared memory.
__device__ float blockSum(float mine) {
    partial[threadIdx.x] = mine;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    return partial[0];
}

__device__ float calculatePartialSum(const float* array, unsigned int N) {
    float mine = 0;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < N; i += blockDim.x * gridDim.x)
        mine += array[i];
    return blockSum(mine);
}

__device__ float calculateTotalSum(volatile float* result) {
    float mine = 0;
    for (unsigned int i = threadIdx.x; i < gridDim.x; i += blockDim.x)
        mine += result[i];
    return blockSum(mine);
}

__global__ void sum(const float* array, unsigned int N,
                    volatile float* result)
{
    // Each block sums a subset of the input array.
    float partialSum = calculatePartialSum(array, N);

    if (threadIdx.x == 0) {

        // Thread 0 of each block stores the partial sum
        // to global memory. The compiler will use
        // a store operation that bypasses the L1 cache
        // since the "result" variable is declared as
        // volatile. This ensures that the threads of
        // the last block will read the correct partial
        // sums computed by all other blocks.
        result[blockIdx.x] = partialSum;

        // Thread 0 makes sure that the incrementation
        // of the "count" variable is only performed after
        // the partial sum has been written to global memory.
        __threadfence();

        // Thread 0 signals that it is done.
        unsigned int value = atomicInc(&count, gridDim.x);

        // Thread 0 determines if its block is the last
        // block to be done.
        isLastBlockDone = (value == (gridDim.x - 1));
    }

    // Synchronize to make sure that each thread reads
    // the correct value of isLastBlockDone.
    __syncthreads();

    if (isLastBlockDone) {

        // The last block sums the partial sums
        // stored in result[0 .. gridDim.x-1]
        float totalSum = calculateTotalSum(result);

        if (threadIdx.x == 0) {

            // Thread 0 of last block stores the total sum
            // to global memory and resets the count
            // varialble, so that the next kernel call
            // works properly.
            result[0] = totalSum;
            count = 0;
        }
    }
}
