// warp_vote_shared: per group of 4 threads (one machine warp): any[g], all[g], count[g] of x > 0, voted through __shared__
// run: --grid 1 --block 16 --arg x=[1,2,3,4,0,0,0,0,-1,5,0,0,9,-9,9,9] --arg any=[0,0,0,0] --arg all=[0,0,0,0] --arg count=[0,0,0,0]
// run: --grid 2 --block 8 --arg x=[1,1,1,1,1,1,1,-1,0,0,0,0,0,0,0,1] --arg any=[0,0,0,0] --arg all=[0,0,0,0] --arg count=[0,0,0,0]
// Groups are threads 4g..4g+3 of the block; each thread posts its flag, then the group's
// first thread tallies the four flags after the barrier.
extern "C" __global__ void warp_vote_shared(const int *x, int *any, int *all, int *count) {
  __shared__ int flag[16];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  flag[t] = x[i] > 0;
  __syncthreads();
  if ((t & 3) == 0) {
    int c = flag[t] + flag[t + 1] + flag[t + 2] + flag[t + 3];
    int g = i / 4;
    any[g] = c > 0;
    all[g] = c == 4;
    count[g] = c;
  }
}
