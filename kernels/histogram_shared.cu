// histogram_shared: bins[v & 7] += 1 over data[0..n): a per-block histogram in __shared__ (block 8), merged by atomicAdd
// run: --grid 4 --block 8 --arg data=[46,59,40,48,54,67,21,71,22,30,29,3,22,41,22,17,65,65,46,65,86,71,23,57,53,94,67,97,46,75] --arg bins=[0,0,0,0,0,0,0,0] --arg n=30
// run: --grid 1 --block 8 --arg data=[7,7,7,7,15,23,31,39] --arg bins=[1,1,1,1,1,1,1,1] --arg n=8
extern "C" __global__ void histogram_shared(const int *data, int *bins, int n) {
  __shared__ int local[8];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + t;
  local[t] = 0;  // blockDim.x == 8: one bin per thread
  __syncthreads();
  if (i < n) atomicAdd(&local[data[i] & 7], 1);
  __syncthreads();
  if (local[t] != 0) atomicAdd(&bins[t], local[t]);
}
