// shfl_guide_examples: bcast: out[i] = arg if every lane got lane 0's value by __shfl_sync, else -1; scan4: out[i] = inclusive plus-scan of (3 - lane) within sub-partitions of 2 lanes (__shfl_up_sync with width); warpReduce: out[i] = the butterfly (__shfl_xor_sync) sum of (3 - lane) over the warp
// from: CUDA C++ Programming Guide, "Warp Shuffle Functions", examples "Broadcast of a single value across a warp", "Inclusive plus-scan across sub-partitions of 8 threads", "Reduction across a warp" (bcast, scan4, warpReduce, as written for a 4-lane warp: laneId = threadIdx.x & 0x3, 31 -> 3, partitions of 8 -> 2 (one step), 16 -> 2, width 32 -> 4), each printf of a result a store into out
// run: --grid 2 --block 8 --kernel bcast --arg arg=42 --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
// run: --grid 1 --block 16 --kernel scan4 --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
// run: --grid 3 --block 4 --kernel warpReduce --arg out=[0,0,0,0,0,0,0,0,0,0,0,0]
__global__ void bcast(int arg, int *out) {
    int laneId = threadIdx.x & 0x3;
    int value;
    if (laneId == 0)        // Note unused variable for
        value = arg;        // all threads except lane 0
    value = __shfl_sync(0xffffffff, value, 0);   // Synchronize all threads in warp, and get "value" from lane 0
    out[blockIdx.x * blockDim.x + threadIdx.x] = value != arg ? -1 : value;
}

__global__ void scan4(int *out) {
    int laneId = threadIdx.x & 0x3;
    // Seed sample starting value (inverse of lane ID)
    int value = 3 - laneId;

    // Loop to accumulate scan within my partition.
    // Scan requires log2(n) == 1 step for 2 threads
    // It works by an accumulated sum up the warp
    // by 1, 2, 4, 8 etc. steps.
    for (int i=1; i<=1; i*=2) {
        // We do the __shfl_sync unconditionally so that we
        // can read even from threads which won't do a
        // sum, and then conditionally assign the result.
        int n = __shfl_up_sync(0xffffffff, value, i, 2);
        if ((laneId & 1) >= i)
            value += n;
    }

    out[blockIdx.x * blockDim.x + threadIdx.x] = value;
}

__global__ void warpReduce(int *out) {
    int laneId = threadIdx.x & 0x3;
    // Seed starting value as inverse lane ID
    int value = 3 - laneId;

    // Use XOR mode to perform butterfly reduction
    for (int i=2; i>=1; i/=2)
        value += __shfl_xor_sync(0xffffffff, value, i, 4);

    // "value" now contains the sum across all threads
    out[blockIdx.x * blockDim.x + threadIdx.x] = value;
}
