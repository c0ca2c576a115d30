// mean_float: out[b] = mean of block b's n values (n <= 16, one per thread): a tree sum in __shared__, then one division
// run: --grid 2 --block 16 --arg x=[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1] --arg out=[0,0] --arg n=16
// run: --grid 3 --block 8 --arg x=[1,1,1,1,1,1,1,2,-1e30,1e30,1,1,1,1,1,1,3.4028235e38,3.4028235e38,0,0,0,0,0,0] --arg out=[0,0,0] --arg n=8
// The second block's 1e30 cancels only after the 1s beside it were absorbed; the third's
// sum overflows to inf.
extern "C" __global__ void mean_float(const float *x, float *out, int n) {
  __shared__ float part[16];
  int t = threadIdx.x;
  part[t] = x[blockIdx.x * n + t];
  __syncthreads();
  for (int s = 8; s > 0; s /= 2) {
    if (t < s && t + s < n) part[t] = part[t] + part[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = part[0] / (float)n;
}
