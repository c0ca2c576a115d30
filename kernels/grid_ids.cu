// grid_ids: every thread of a 2-D grid of 2-D blocks writes its coordinates as a decimal code
// out[((by * gx + bx) * bdy + ty) * bdx + tx] = 1000*by + 100*bx + 10*ty + tx
// run: --grid 2,3 --block 4,2 --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
// run: --grid 3,1 --block 2,3 --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
extern "C" __global__ void grid_ids(int *out) {
  int block = blockIdx.y * gridDim.x + blockIdx.x;
  int thread = threadIdx.y * blockDim.x + threadIdx.x;
  int i = block * (blockDim.x * blockDim.y) + thread;
  out[i] = 1000 * blockIdx.y + 100 * blockIdx.x + 10 * threadIdx.y + threadIdx.x;
}
