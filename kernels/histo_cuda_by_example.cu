// histo_cuda_by_example: histo[v] += number of v in buffer[0..size) (values 0..15), counted per block in __shared__ with atomicAdd, grid-stride loop, then added to the global bins
// from: CUDA by Example (Sanders, Kandrot), chapter 9, hist_gpu_shmem_atomics.cu (histo_kernel, as written; unsigned char buffer -> unsigned int and long size -> int: no 8-bit or 64-bit data here; 256 bins and threads -> 16)
// run: --grid 2 --block 16 --arg buffer=[14,10,12,15,0,5,4,14,0,10,9,11,7,9,4,2,6,9,5,10,5,12,7,14,7,14,0,13,11,9,11,8,11,3,5,1,13,9,8,5,7,14,3,7,6,3,5,9,12,1] --arg size=50 --arg histo=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
// run: --grid 3 --block 16 --arg buffer=[1,3,2,1,1,2,1,0,3,3,0,1,2,1,0,3,0,2,2,3] --arg size=20 --arg histo=[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]
__global__ void histo_kernel(unsigned int *buffer,
                             int size,
                             unsigned int *histo) {
    __shared__ unsigned int temp[16];
    temp[threadIdx.x] = 0;
    __syncthreads();

    int i = threadIdx.x + blockIdx.x * blockDim.x;
    int offset = blockDim.x * gridDim.x;
    while (i < size) {
        atomicAdd( &temp[buffer[i]], 1 );
        i += offset;
    }

    __syncthreads();
    atomicAdd( &(histo[threadIdx.x]), temp[threadIdx.x] );
}
