// histogram_float: hist[b] = how many x[i] (i < n) fall in bucket b = clamp(__float2int_rz(x * 4), 0, 3) (int atomics; NaN -> bucket 0)
// run: --grid 3 --block 4 --arg x=[0,0.1,0.25,0.3,0.5,0.6,0.75,0.99,1,2,-1,nan] --arg hist=[0,0,0,0] --arg n=12
// run: --grid 2 --block 8 --arg x=[0.2499999,0.25,0.4999999,0.5,0.7499999,0.75,inf,-inf,1e-45,-0,0.125,0.375,0.625,0.875,1e30,-1e30] --arg hist=[0,0,0,0] --arg n=15
extern "C" __global__ void histogram_float(const float *x, int *hist, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int b = __float2int_rz(x[i] * 4.0f);
  atomicAdd(&hist[min(max(b, 0), 3)], 1);
}
