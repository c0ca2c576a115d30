// scan_hillis_steele: out = inclusive prefix sums of in[0..n) (n <= 16) by Hillis-Steele in two __shared__ buffers (block 16)
// run: --grid 1 --block 16 --arg in=[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16] --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg n=16
// run: --grid 1 --block 16 --arg in=[20,-13,47,-43,-22,16,18,-4,-15,49,-28] --arg out=[0,0,0,0,0,0,0,0,0,0,0] --arg n=11
extern "C" __global__ void scan_hillis_steele(const int *in, int *out, int n) {
  __shared__ int buf[2][16];
  int t = threadIdx.x;
  int src = 0;
  buf[0][t] = t < n ? in[t] : 0;
  __syncthreads();
  for (int off = 1; off < 16; off *= 2) {
    int dst = 1 - src;
    buf[dst][t] = t >= off ? buf[src][t] + buf[src][t - off] : buf[src][t];
    src = dst;
    __syncthreads();
  }
  if (t < n) out[t] = buf[src][t];
}
