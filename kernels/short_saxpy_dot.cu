// short_saxpy_dot: saxpy_short: y[i] = (short)(a * x[i] + y[i]) on 16-bit data (the int result wrapped to 16 bits, as C's conversion does); dot_short: c[b] = block b's part of the dot product of the shorts a[0..N), b[0..N), products summed in int (wrapping past 2^31)
// from: CUDA by Example (Sanders, Kandrot), chapter 5, dot.cu (dot: float -> short inputs with an int temp and cache, threadsPerBlock 256 -> 16, N = 33 * 1024 -> the n parameter), and NVIDIA Developer Blog, "An Easy Introduction to CUDA C and C++" (Harris, 2012) (saxpy: float -> short, a a short parameter)
// run: --grid 2 --block 16 --kernel dot_short --arg a=[32767,-32768,100,-100,1,-1,30000,-30000,2,3,-5,7,32767,-32768,0,9,11,-13,17,19] --arg b=[32767,32767,-200,-300,-1,-1,-2,2,12345,-12345,4,6,-32768,-32768,5,-8,10,-10,3,-3] --arg c=[0,0] --arg n=20
// run: --grid 1 --block 16 --kernel dot_short --arg a=[32767,-32768,100,-100,1,-1,30000,-30000,2,3,-5,7] --arg b=[32767,32767,-200,-300,-1,-1,-2,2,12345,-12345,4,6] --arg c=[77] --arg n=12
// run: --grid 1 --block 4 --kernel dot_short --arg a=[32767,32767,32767,-32768] --arg b=[32767,32767,32767,-32768] --arg c=[0] --arg n=4
// run: --grid 3 --block 4 --kernel saxpy_short --arg n=12 --arg a=-3 --arg x=[1,-1,2,-2,32767,-32768,1000,-1000,16384,-16384,3,300] --arg y=[0,0,32767,-32768,0,0,5,-5,1,-1,-32768,32767]
const int threadsPerBlock = 16;

__global__ void dot_short(const short *a, const short *b, int *c, int n) {
    __shared__ int cache[threadsPerBlock];
    int tid = threadIdx.x + blockIdx.x * blockDim.x;
    int cacheIndex = threadIdx.x;

    int   temp = 0;
    while (tid < n) {
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

__global__ void saxpy_short(int n, short a, const short *x, short *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
