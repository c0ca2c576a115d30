// dot_float: out[b] = dot product of block b's 8 elements of x and y: fmaf per thread, then a tree sum in __shared__ with __syncthreads
// run: --grid 2 --block 8 --arg x=[1,2,3,4,5,6,7,8,0.5,0.25,0.125,-1,-2,-4,1e8,-1e8] --arg y=[1,1,1,1,1,1,1,1,2,4,8,1,1,1,1,1] --arg out=[0,0]
// run: --grid 3 --block 8 --arg x=[0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1,1e30,1e30,-1e30,-1e30,1,2,3,4,3,1e-20,1e-20,1e-20,1e-20,1e-20,1e-20,1e-20] --arg y=[0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1,1e10,-1e10,1e10,-1e10,1,1,1,1,3,1,1,1,1,1,1,1] --arg out=[0,0,0]
// The sum order is fixed (pairs at distance 4, 2, 1), so the result is exact to the bit:
// 1e8 - 1e8 cancel after 1 + ... has been absorbed; 1e30 * 1e10 overflows to inf, inf - inf = nan.
extern "C" __global__ void dot_float(const float *x, const float *y, float *out) {
  __shared__ float part[8];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  part[t] = fmaf(x[i], y[i], 0.0f);
  __syncthreads();
  for (int s = 4; s > 0; s /= 2) {
    if (t < s) part[t] = part[t] + part[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = part[0];
}
