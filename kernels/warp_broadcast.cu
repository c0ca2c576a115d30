// warp_broadcast: __shfl_sync broadcasts: from[i] = lane 2's value of thread i's warp, half[i] = lane 1's value of its half-warp (width 2)
// run: --grid 1 --block 16 --arg in=[10,11,12,13,20,21,22,23,30,31,32,33,40,41,42,43] --arg from=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg half=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
// run: --grid 2 --block 4 --arg in=[-1,-2,-3,-4,5,6,7,8] --arg from=[0,0,0,0,0,0,0,0] --arg half=[0,0,0,0,0,0,0,0]
// run: --grid 1 --block 2,4 --arg in=[10,11,12,13,20,21,22,23] --arg from=[0,0,0,0,0,0,0,0] --arg half=[0,0,0,0,0,0,0,0]
// Lanes follow the linear thread index t = threadIdx.y * blockDim.x + threadIdx.x, also in
// a 2-D block (the third case: 2 x 4 threads, a warp is two rows). With width 2 the warp
// is two segments of 2 lanes and srcLane 1 is lane 1 of each segment.
extern "C" __global__ void warp_broadcast(const int *in, int *from, int *half) {
  int t = threadIdx.y * blockDim.x + threadIdx.x;
  int i = blockIdx.x * blockDim.x * blockDim.y + t;
  int v = in[i];
  from[i] = __shfl_sync(0xffffffff, v, 2);
  half[i] = __shfl_sync(0xffffffff, v, 1, 2);
}
