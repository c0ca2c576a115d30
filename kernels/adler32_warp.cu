// adler32_warp: checksum[0] = the Adler-32 of data[0..n) (A = 1 + sum of the bytes, B = n + sum of (n - i) * data[i], both mod 65521, B << 16 | A) computed by one warp: strided partial sums per lane, combined with __shfl_down_sync
// from: the Adler-32 definition of RFC 1950 / zlib's adler32.c (s1, s2, BASE 65521), parallelised the way zlib's adler32_combine does (B of a sum of pieces = the pieces' B plus their A times the bytes after them), with the warp-reduction idiom of NVIDIA Developer Blog, "Faster Parallel Reductions on Kepler" (warpReduceSum: for (offset = warpSize/2; offset > 0; offset /= 2) val += __shfl_down_sync(...)); one warp of 4 lanes (warpSize 4 here); n <= 1000 keeps the sums below 2^32
// run: --grid 1 --block 4 --arg data=[87,105,107,105,112,101,100,105,97] --arg n=9 --arg checksum=[0]
// run: --grid 1 --block 4 --arg data=[147,182,165,205,188,255,134,137,153,211,212,142,248,222,128,160,130,252,179,201,179,242,148,213,158,137,156,168,240,133,238,140,137,218,186,169,247,207,254,170,204,149,136,202,186,201,212,148,190,230,202,237,145,250,130,174,242,169,151,143,161] --arg n=61 --arg checksum=[-1]
// run: --grid 1 --block 4 --arg data=[255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255] --arg n=40 --arg checksum=[7]
#define MOD_ADLER 65521

__inline__ __device__ unsigned int warpReduceSum(unsigned int val) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2)
    val += __shfl_down_sync(0xffffffff, val, offset);
  return val;
}

__global__ void adler32_warp(const unsigned char *data, int n, unsigned int *checksum) {
  unsigned int a = 0, b = 0;
  for (int i = threadIdx.x; i < n; i += warpSize) {
    a += data[i];
    b += (unsigned int)(n - i) * data[i];
  }
  a = warpReduceSum(a);
  b = warpReduceSum(b);
  if (threadIdx.x == 0)
    checksum[0] = ((n + b) % MOD_ADLER) << 16 | (1 + a) % MOD_ADLER;
}
