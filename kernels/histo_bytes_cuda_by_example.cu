// histo_bytes_cuda_by_example: histo[k] += number of bytes of buffer[0..size) whose high nibble is k (buffer[i] >> 4: 16 bins of 16 values), counted per block in __shared__ with atomicAdd, grid-stride loop, then added to the global bins
// from: CUDA by Example (Sanders, Kandrot), chapter 9, hist_gpu_shmem_atomics.cu (histo_kernel over its unsigned char buffer; long size -> int; 256 bins and threads -> 16, so a byte's bin is buffer[i] >> 4 instead of buffer[i])
// run: --grid 2 --block 16 --arg buffer=[116,189,192,64,98,22,43,70,126,107,205,15,235,249,232,199,253,98,206,45,248,119,10,136,208,242,194,58,132,49,32,197,193,55,29,173,120,44,254,106,72,32,19,250,99,75,233,227,146,182,218,69,81,49,160,182,253,101,158,76] --arg size=60 --arg histo=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
// run: --grid 3 --block 16 --arg buffer=[0,255,128,127,15,16,240,239,1,254,200,100,50] --arg size=13 --arg histo=[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]
// run: --grid 1 --block 16 --arg buffer=[116,189,192,64,98,22,43,70,126,107,205,15,235,249,232,199,253,98,206,45,248,119,10,136,208,242,194,58,132,49,32,197,193,55,29,173,120] --arg size=37 --arg histo=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
__global__ void histo_kernel(unsigned char *buffer,
                             int size,
                             unsigned int *histo) {
    __shared__ unsigned int temp[16];
    temp[threadIdx.x] = 0;
    __syncthreads();

    int i = threadIdx.x + blockIdx.x * blockDim.x;
    int offset = blockDim.x * gridDim.x;
    while (i < size) {
        atomicAdd( &temp[buffer[i] >> 4], 1 );
        i += offset;
    }

    __syncthreads();
    atomicAdd( &(histo[threadIdx.x]), temp[threadIdx.x] );
}
