// difftest_25: a __shared__ word written by one thread, read by all after __syncthreads() (LLVM 14's GlobalsAA moved the read above the barrier when it was clang's builtin); found by scripts/difftest.sh with that fix reverted, and reduced
// run: --grid 1,1 --block 4,4 --arg in=[8,888081861,0,-2147483648,982844141,32,-5,-48] --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
extern "C" __global__ void dk25(const unsigned *in, unsigned *out) {
  const unsigned tid = threadIdx.y * blockDim.x + threadIdx.x;
  const unsigned nthreads = blockDim.x * blockDim.y;
  const unsigned bid = blockIdx.y * gridDim.x + blockIdx.x;
  const unsigned gid = bid * nthreads + tid;
  const unsigned lane = tid % 4u, warp = tid / 4u;
  __shared__ unsigned sh_one;
  unsigned v0 = 0u;
  __syncthreads();
  if (tid == 3u % nthreads) sh_one = 1u;
  __syncthreads();
  v0 ^= sh_one;
  out[gid * 1u + 0u] = ((unsigned)v0 * 3u);
}
