// warp_sync_shared: out[w] = sum of warp w's 4 values, reduced through __shared__ memory with __syncwarp() between the steps (a warp-synchronous reduction, no __syncthreads)
// run: --grid 1 --block 8 --arg in=[1,2,3,4,10,20,30,40] --arg out=[0,0]
// run: --grid 2 --block 16 --arg in=[5,-5,7,-7,100,200,300,400,-1,-2,-3,-4,2147483647,1,0,0,9,9,9,9,8,8,8,8,7,7,7,7,6,6,6,6] --arg out=[0,0,0,0,0,0,0,0]
// Each warp owns 4 consecutive words of s. Lanes 0-1 add the upper pair into the lower one,
// then lane 0 adds word 1 into word 0; __syncwarp() orders each step's writes before the next
// step's reads (on the machine the warp's lanes run in lockstep; the oracle's threads wait).
extern "C" __global__ void warp_sync_shared(const int *in, int *out) {
  __shared__ int s[16];
  int t = threadIdx.x;
  int lane = t % warpSize, w = t / warpSize;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncwarp();
  if (lane < 2) s[t] += s[t + 2];
  __syncwarp();
  if (lane == 0) out[blockIdx.x * (blockDim.x / warpSize) + w] = s[t] + s[t + 1];
}
