// difftest_5114: __mulhi(INT_MIN, -1) is 0 (LLVM 14/15 turned the 64-bit product into mul.wide.s32 x, -2147483648, which gives -1); found at -O1/-Os/-O3 with clang 14 and 15 and reduced by scripts/difftest.sh
// run: --grid 1,1 --block 2,2 --arg in=[755603827,1577821822,528684563,1847539434,10,1431655765,652762414,-1431655766,-719498060,1721151455,65536,1431655765,-713288533,2147483647,2030890123,1431655765] --arg out=[0,0,0,0]
extern "C" __global__ void dk5114(const unsigned *in, unsigned *out) {
  const unsigned tid = threadIdx.y * blockDim.x + threadIdx.x;
  const unsigned nthreads = blockDim.x * blockDim.y;
  const unsigned bid = blockIdx.y * gridDim.x + blockIdx.x;
  const unsigned gid = bid * nthreads + tid;
  const unsigned lane = tid % 4u, warp = tid / 4u;
  __shared__ unsigned sh[4];
  unsigned v0 = blockIdx.y;
  int v2 = (-2);
  v0 |= 1u;
  v2 ^= __mulhi((int)2147483648u, __mulhi((int)v0, v2));
  out[gid * 1u + 0u] = ((unsigned)v0 * 3u) ^ ((unsigned)v2 * 5u);
}
