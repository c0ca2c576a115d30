// compact_bool_flags: flag_nonzero: valid[i] = (in[i] != 0) as a bool; compact (one block): out[0..count) = the in[i] with valid[i], in order, via an exclusive scan of the flags in __shared__ memory, count[0] = their number
// from: GPU Gems 3, chapter 39 (Harris, Sengupta, Owens, "Parallel Prefix Sum (Scan) with CUDA"), 39.3.1 stream compaction: a bool flag per element, an exclusive scan of the flags gives each kept element its output address, then a scatter; the scan is the naive Hillis-Steele one of 39.2.1 (double-buffered, one block of 16 threads), the flags a bool array
// run: --grid 2 --block 16 --kernel flag_nonzero --arg in=[3,0,-7,0,0,12,5,0,-1,0,9,0,0,0,4,-2147483648,0,6,0,8] --arg valid=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg n=20
// run: --grid 1 --block 16 --kernel compact --arg in=[0,5,0,0,-3,8,0,1,0,0,0,-9,2,0,7,0] --arg valid=[0,1,0,0,1,1,0,1,0,0,0,1,1,0,1,0] --arg out=[-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1] --arg count=[-1] --arg n=16
// run: --grid 1 --block 16 --kernel compact --arg in=[1,0,2,0,0,3,4,0,0,0,0,5] --arg valid=[1,0,1,0,0,1,1,0,0,0,0,1] --arg out=[-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1] --arg count=[-1] --arg n=12
__global__ void flag_nonzero(const int *in, bool *valid, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) valid[i] = in[i] != 0;
}

#define BLOCK 16

__global__ void compact(const int *in, const bool *valid, int *out, int *count, int n) {
  __shared__ int temp[2 * BLOCK];  // double buffer
  __shared__ bool last_valid;
  int thid = threadIdx.x;
  int pout = 0, pin = 1;
  bool keep = thid < n && valid[thid];
  // exclusive scan: shift right by one, 0 first
  temp[pout * BLOCK + thid] = (thid > 0 && thid - 1 < n && valid[thid - 1]) ? 1 : 0;
  if (thid == n - 1) last_valid = keep;
  __syncthreads();
  for (int offset = 1; offset < BLOCK; offset *= 2) {
    pout = 1 - pout;
    pin = 1 - pout;
    if (thid >= offset)
      temp[pout * BLOCK + thid] = temp[pin * BLOCK + thid] + temp[pin * BLOCK + thid - offset];
    else
      temp[pout * BLOCK + thid] = temp[pin * BLOCK + thid];
    __syncthreads();
  }
  int addr = temp[pout * BLOCK + thid];
  if (keep) out[addr] = in[thid];
  if (thid == n - 1) count[0] = addr + (last_valid ? 1 : 0);
}
