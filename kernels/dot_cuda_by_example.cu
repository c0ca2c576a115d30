// dot_cuda_by_example: c[b] = block b's part of the dot product of a[0..N) and b[0..N) (N = 24): grid-stride products summed per thread, then a shared-memory tree per block
// from: CUDA by Example (Sanders, Kandrot), chapter 5, dot.cu (dot, as written; N = 33 * 1024 -> 24 and threadsPerBlock 256 -> 16)
// oracle: contract
// run: --grid 2 --block 16 --arg a=[0.648,-3.16,-1.32,-1.29,-2.46,-1.51,-1.34,-0.403,1.98,-2.02,-2.19,-3.81,3.6,2.17,-1.09,-1.73,3.37,-0.878,-0.852,1.04,-1.79,-2.42,-3.72,2.88] --arg b=[-0.383,-2.13,3.37,-1.21,-1.73,2.28,-1.86,1.03,-0.295,3.47,-3.25,-2.29,2.07,-3.77,1.54,-3.22,0.564,1.81,-2.72,-2.2,1.3,2.42,2.07,-2.12] --arg c=[0,0]
// run: --grid 1 --block 16 --arg a=[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23] --arg b=[0.5,2,0.5,2,0.5,2,0.5,2,0.5,2,0.5,2,0.5,2,0.5,2,0.5,2,0.5,2,0.5,2,0.5,2] --arg c=[9]
// run: --grid 3 --block 16 --arg a=[-78.4,49.5,-99.7,-39.6,-56.1,63.5,3.88,-81.6,29.1,78.9,-85.5,24.9,39.9,92.9,83.9,95.8,-97,-90.7,28.7,14.9,45.3,81.6,-23.5,57.7] --arg b=[-0.00448,-0.00519,0.00863,0.004,-0.00333,0.0062,0.00805,0.00884,0.00237,0.00854,0.0069,0.00171,-0.00984,0.000205,-0.0033,-0.00284,-0.00865,0.00256,-0.00688,0.00563,-0.00793,0.00922,-0.00854,0.00533] --arg c=[0,0,0]
const int N = 24;
const int threadsPerBlock = 16;

__global__ void dot( float *a, float *b, float *c ) {
    __shared__ float cache[threadsPerBlock];
    int tid = threadIdx.x + blockIdx.x * blockDim.x;
    int cacheIndex = threadIdx.x;

    float   temp = 0;
    while (tid < N) {
        temp += a[tid] * b[tid];
        tid += blockDim.x * gridDim.x;
    }

    // set the cache values
    cache[cacheIndex] = temp;

    // synchronize threads in this block
    __syncthreads();

    // for reductions, threadsPerBlock must be a power of 2
    // because of the following code
    int i = blockDim.x/2;
    while (i != 0) {
        if (cacheIndex < i)
            cache[cacheIndex] += cache[cacheIndex + i];
        __syncthreads();
        i /= 2;
    }

    if (cacheIndex == 0)
        c[blockIdx.x] = cache[0];
}
