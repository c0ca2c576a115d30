// stream_compact: out[0..count) = the positive values of in[0..n) in order (n <= 16), placed by a __shared__ prefix sum of flags
// run: --grid 1 --block 16 --arg in=[3,-1,0,7,8,-2,-3,1,0,0,5,-9,4,2,-1,6] --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg count=[0] --arg n=16
// run: --grid 1 --block 16 --arg in=[-1,-2,9,-4,-5] --arg out=[0,0,0,0,0] --arg count=[0] --arg n=5
extern "C" __global__ void stream_compact(const int *in, int *out, int *count, int n) {
  __shared__ int pos[16];
  int t = threadIdx.x;
  int v = t < n ? in[t] : 0;
  int keep = v > 0;
  pos[t] = keep;
  __syncthreads();
  for (int off = 1; off < 16; off <<= 1) {  // inclusive scan of the flags
    int x = t >= off ? pos[t - off] : 0;
    __syncthreads();
    pos[t] += x;
    __syncthreads();
  }
  if (keep) out[pos[t] - 1] = v;
  if (t == 15) *count = pos[15];
}
