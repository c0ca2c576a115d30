// syncthreads_count_and_or: per block b, counts[b] = how many of its threads have in[i] > threshold, all_above[b] = whether all do, any_above[b] = whether any does (__syncthreads_count / _and / _or)
// from: CUDA C++ Programming Guide, "Synchronization Functions" (__syncthreads_count, __syncthreads_and, __syncthreads_or: "evaluates predicate for all non-exited threads of the block"), written for this corpus as the guide describes them; threads past n exit before the barriers
// run: --grid 2 --block 16 --arg in=[22,-5,44,-20,-48,-10,30,20,33,29,-7,22,24,36,32,-34,3,40,4,26,34,27,30,-28,-3,-29,38,33,15,36,-23,48] --arg n=32 --arg threshold=0 --arg counts=[0,0] --arg all_above=[0,0] --arg any_above=[0,0]
// run: --grid 3 --block 8 --arg in=[50,77,5,90,74,7,38,71,16,19,5,37,23,97,66,41,81,17,99,11,54,36,49,8] --arg n=20 --arg threshold=-1 --arg counts=[9,9,9] --arg all_above=[9,9,9] --arg any_above=[9,9,9]
// run: --grid 2 --block 4 --arg in=[5,5,5,5,1,2,3,4] --arg n=8 --arg threshold=5 --arg counts=[9,9] --arg all_above=[9,9] --arg any_above=[9,9]
__global__ void count_above(const int *in, int n, int threshold, int *counts, int *all_above,
                            int *any_above) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;  // exited threads do not take part in the barriers below

  const int above = in[i] > threshold;
  const int count = __syncthreads_count(above);
  const int all = __syncthreads_and(above);
  const int any = __syncthreads_or(above);

  if (threadIdx.x == 0) {
    counts[blockIdx.x] = count;
    all_above[blockIdx.x] = all;
    any_above[blockIdx.x] = any;
  }
}
