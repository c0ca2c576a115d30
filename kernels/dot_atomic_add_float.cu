// dot_atomic_add_float: *c += the dot product of a and b: each block multiplies into __shared__ temp, its thread 0 sums them and atomicAdds the block's float sum into c
// from: NVIDIA, "CUDA C/C++ Basics" (Cyril Zeller, Supercomputing 2011 tutorial), the dot product with atomicAdd (dot, as written for float data with the float atomicAdd; THREADS_PER_BLOCK 512 -> 8); inputs whose partial sums are exact, so that the order the blocks' atomicAdds land in does not change c (float addition is not associative)
// run: --grid 3 --block 8 --arg a=[-3,-2,-1,0,1,2,3,-3,-2,-1,0,1,2,3,-3,-2,-1,0,1,2,3,-3,-2,-1] --arg b=[0.5,1.25,-2,4,0.5,1.25,-2,4,0.5,1.25,-2,4,0.5,1.25,-2,4,0.5,1.25,-2,4,0.5,1.25,-2,4] --arg c=[0]
// run: --grid 2 --block 8 --arg a=[1,2,3,4,5,6,7,8,0.5,0.5,0.5,0.5,0.5,0.5,0.5,0.5] --arg b=[1,1,1,1,1,1,1,1,-1,-2,-3,-4,-5,-6,-7,-8] --arg c=[100.25]
#define THREADS_PER_BLOCK 8

__global__ void dot(float *a, float *b, float *c) {
    __shared__ float temp[THREADS_PER_BLOCK];
    int index = threadIdx.x + blockIdx.x * blockDim.x;
    temp[threadIdx.x] = a[index] * b[index];

    __syncthreads();

    if (0 == threadIdx.x) {
        float sum = 0;
        for (int i = 0; i < THREADS_PER_BLOCK; i++)
            sum += temp[i];
        atomicAdd(c, sum);
    }
}
