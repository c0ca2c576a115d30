// difftest_13: __float2uint_rz of a constant out of range saturates to 0 (LLVM folded the builtin to poison and the store vanished: every output was wrong); found and reduced by scripts/difftest.sh
// run: --grid 1,1 --block 4,2 --arg in=[23,11,255,41,-38,1154624079,-2147483648,-1580192435] --arg out=[0,0,0,0,0,0,0,0] --arg fin=[inf,3.4e+38,5.6194265655417226e-36,0.001] --arg fout=[0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0]
__device__ unsigned df13_0(int a0, float a1) {
  unsigned l0 = (__float2uint_rz((float)(int)2479065907u) | 2u);
  int l1 = 1452323356;
  return l0;
}
extern "C" __global__ void dk13(const unsigned *in, unsigned *out, const float *fin, float *fout) {
  const unsigned tid = threadIdx.y * blockDim.x + threadIdx.x;
  const unsigned nthreads = blockDim.x * blockDim.y;
  const unsigned bid = blockIdx.y * gridDim.x + blockIdx.x;
  const unsigned gid = bid * nthreads + tid;
  const unsigned lane = tid % 4u, warp = tid / 4u;
  unsigned v0 = __float2uint_rz(0.0f);
  unsigned v1 = 0u;
  v1 += df13_0(0, (-70.08773040771484f));
  out[gid * 1u + 0u] = ((unsigned)v0 * 3u) ^ ((unsigned)v1 * 5u);
  fout[gid * 1u + 0u] = 0.0f;
}
