// prefix_max: out[i] = max(in[0..i]) (a running maximum) by an in-place Hillis-Steele scan: read, barrier, write, barrier
// run: --grid 1 --block 16 --arg in=[3,1,4,1,5,9,2,6,5,3,5,8,9,7,9,3] --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
// run: --grid 1 --block 16 --arg in=[-133,226,-410,-118,-76,-670,-523,-376,-469,664,633,-912,-834,-906,-53,282] --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
extern "C" __global__ void prefix_max(const int *in, int *out) {
  __shared__ int s[16];
  int t = threadIdx.x;
  s[t] = in[t];
  __syncthreads();
  for (int off = 1; off < 16; off <<= 1) {
    int v = t >= off ? max(s[t], s[t - off]) : s[t];
    __syncthreads();  // everyone has read before anyone overwrites
    s[t] = v;
    __syncthreads();
  }
  out[t] = s[t];
}
