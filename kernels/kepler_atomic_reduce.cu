// kepler_atomic_reduce: *out += sum of in[0..N): deviceReduceWarpAtomicKernel (each warp's shuffle sum, one atomicAdd per warp) and deviceReduceBlockAtomicKernel (one atomicAdd per block after blockReduceSum)
// from: NVIDIA Developer Blog, "Faster Parallel Reductions on Kepler" (Justin Luitjens, 2014) (warpReduceSum, blockReduceSum, deviceReduceWarpAtomicKernel, deviceReduceBlockAtomicKernel, as written with __shfl_down -> __shfl_down_sync(0xffffffff, ...) and shared[32] -> shared[4])
// run: --grid 2 --block 16 --kernel deviceReduceWarpAtomicKernel --arg in=[447,-162,732,785,947,458,295,482,-581,-279,993,-422,880,-244,175,-763,-56,2,172,-849,-63,-781,652,-176,488,-411,368,-625,187,-250,143,-754,-728,-685,-377,778,-640,494,778,-641,-633,-308,-143,-874,-307] --arg out=[0] --arg N=45
// run: --grid 3 --block 8 --kernel deviceReduceBlockAtomicKernel --arg in=[548,-199,285,-701,-218,989,-591,635,-823,279,-965,850,-748,282,-764,-947,-293,556,5,234,-633,765,-63,-497,854,1000,-518,480,-854,-397,388,118,249,-934,245,-379,222,540,567,-338] --arg out=[100] --arg N=40
// run: --grid 2 --block 4 --kernel deviceReduceWarpAtomicKernel --arg in=[2147483647,1,1,1,1,1] --arg out=[0] --arg N=6
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

__global__ void deviceReduceWarpAtomicKernel(int *in, int* out, int N) {
  int sum = int(0);
  for(int i = blockIdx.x * blockDim.x + threadIdx.x;
      i < N;
      i += blockDim.x * gridDim.x) {
    sum += in[i];
  }
  sum = warpReduceSum(sum);
  if ((threadIdx.x & (warpSize - 1)) == 0)
    atomicAdd(out, sum);
}

__global__ void deviceReduceBlockAtomicKernel(int *in, int* out, int N) {
  int sum = int(0);
  for(int i = blockIdx.x * blockDim.x + threadIdx.x;
      i < N;
      i += blockDim.x * gridDim.x) {
    sum += in[i];
  }
  sum = blockReduceSum(sum);
  if (threadIdx.x == 0)
    atomicAdd(out, sum);
}
