// scan_gpu_gems: g_odata[0..n) = exclusive prefix sums of g_idata[0..n) (n = blockDim.x), Hillis-Steele in a double-buffered extern __shared__ float array
// from: GPU Gems 3, chapter 39 (Harris, Sengupta, Owens, "Parallel Prefix Sum (Scan) with CUDA"), Example 39-1 (scan, naive, as written but for the published erratum: the book's `temp[pout*n+thid] += temp[pin*n+thid - offset]` reads the other buffer's uninitialised word; it is `temp[pout*n+thid] = temp[pin*n+thid] + temp[pin*n+thid - offset]`); one block per scan, several blocks scan the same input (the kernel ignores blockIdx)
// run: --grid 1 --block 16 --shared 128 --arg g_odata=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg g_idata=[-8.33,-6.55,3.68,-6.77,8.98,6.89,4.85,-0.691,6.54,-5.13,2.07,-2.59,-0.191,9.28,-5.67,5.1] --arg n=16
// run: --grid 2 --block 8 --shared 64 --arg g_odata=[5,5,5,5,5,5,5,5] --arg g_idata=[1,2,3,4,5,6,7,8] --arg n=8
// run: --grid 1 --block 4 --shared 32 --arg g_odata=[0,0,0,0] --arg g_idata=[1e20,1,-1e20,1] --arg n=4
__global__ void scan(float *g_odata, float *g_idata, int n)
{
    extern __shared__ float temp[]; // allocated on invocation

    int thid = threadIdx.x;
    int pout = 0, pin = 1;

    // Load input into shared memory.
    // This is exclusive scan, so shift right by one
    // and set first element to 0
    temp[pout*n + thid] = (thid > 0) ? g_idata[thid-1] : 0;
    __syncthreads();

    for (int offset = 1; offset < n; offset *= 2)
    {
        pout = 1 - pout; // swap double buffer indices
        pin = 1 - pout;

        if (thid >= offset)
            temp[pout*n+thid] = temp[pin*n+thid] + temp[pin*n+thid - offset];
        else
            temp[pout*n+thid] = temp[pin*n+thid];

        __syncthreads();
    }

    g_odata[thid] = temp[pout*n+thid]; // write output
}
