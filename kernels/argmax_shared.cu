// argmax_shared: best[0] = largest value of in[0..16), best[1] = its smallest index (block 16, value+index pairs in __shared__)
// run: --grid 1 --block 16 --arg in=[4,9,2,9,0,-1,7,9,3,3,8,1,0,5,6,2] --arg best=[0,0]
// run: --grid 1 --block 16 --arg in=[-5,-5,-5,-5,-5,-5,-5,-5,-5,-5,-5,-5,-5,-5,-5,-5] --arg best=[0,0]
// run: --grid 1 --block 16 --arg in=[-173,-152,361,-646,-249,123,807,439,588,381,511,-233,-823,-102,359,41] --arg best=[0,0]
extern "C" __global__ void argmax_shared(const int *in, int *best) {
  __shared__ int val[16];
  __shared__ int idx[16];
  int t = threadIdx.x;
  val[t] = in[t];
  idx[t] = t;
  __syncthreads();
  for (int s = 8; s > 0; s >>= 1) {
    if (t < s) {
      int v = val[t + s], j = idx[t + s];
      if (v > val[t] || (v == val[t] && j < idx[t])) {
        val[t] = v;
        idx[t] = j;
      }
    }
    __syncthreads();
  }
  if (t == 0) {
    best[0] = val[0];
    best[1] = idx[0];
  }
}
