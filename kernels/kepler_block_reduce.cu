// kepler_block_reduce: out[b] = block b's part of the grid-stride sum of in[0..N): each warp sums with __shfl_down_sync, warp sums meet in a static __shared__ array, the first warp sums them
// from: NVIDIA Developer Blog, "Faster Parallel Reductions on Kepler" (Justin Luitjens, 2014) (warpReduceSum, blockReduceSum, deviceReduceKernel, as written with __shfl_down -> __shfl_down_sync(0xffffffff, ...) as the post's CUDA 9 update says, and shared[32] -> shared[4]: a 16-thread block has 4 warps of 4)
// run: --grid 2 --block 16 --arg in=[59,594,-939,188,605,-28,-637,174,428,-54,-997,894,-450,333,149,-975,403,842,-298,-158,-512,-451,55,-287,267,519,-10,665,113,-622,-678,497,-295,-264,167,-541,246,529,111,-480,-29,106,-37,-465,-20,-448,-145,-663,60,728] --arg out=[0,0] --arg N=50
// run: --grid 1 --block 16 --arg in=[24,38,37,31,12,-29,12,-14,-6,-5,-17,-46,-38,-13,-29,23] --arg out=[-1] --arg N=16
// run: --grid 3 --block 8 --arg in=[-27,-45,-48,-22,-32,-19,-40,43,2,13,-33,23,-34,47,-39,25,-13,5,-38,-15,27,13,-1,31,23,-36,30,-14,50,-13] --arg out=[0,0,0] --arg N=29
__inline__ __device__
int warpReduceSum(int val) {
  for (int offset = warpSize/2; offset > 0; offset /= 2)
    val += __shfl_down_sync(0xffffffff, val, offset);
  return val;
}

__inline__ __device__
int blockReduceSum(int val) {

  static __shared__ int shared[4]; // Shared mem for 4 partial sums
  int lane = threadIdx.x % warpSize;
  int wid = threadIdx.x / warpSize;

  val = warpReduceSum(val);     // Each warp performs partial reduction

  if (lane==0) shared[wid]=val; // Write reduced value to shared memory

  __syncthreads();              // Wait for all partial reductions

  //read from shared memory only if that warp existed
  val = (threadIdx.x < blockDim.x / warpSize) ? shared[lane] : 0;

  if (wid==0) val = warpReduceSum(val); //Final reduce within first warp

  return val;
}

__global__ void deviceReduceKernel(int *in, int* out, int N) {
  int sum = 0;
  //reduce multiple elements per thread
  for(int i = blockIdx.x * blockDim.x + threadIdx.x;
      i < N;
      i += blockDim.x * gridDim.x) {
    sum += in[i];
  }
  sum = blockReduceSum(sum);
  if (threadIdx.x == 0)
    out[blockIdx.x] = sum;
}
