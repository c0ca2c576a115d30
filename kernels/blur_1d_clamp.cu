// blur_1d_clamp: out[i] = (in[i-1] + 2*in[i] + in[i+1]) / 4 with the indexes clamped to [0, n) (edge pixels repeat)
// run: --grid 3 --block 4 --arg in=[0,0,8,8,16,16,100,-100,0,4,4] --arg out=[0,0,0,0,0,0,0,0,0,0,0] --arg n=11
// run: --grid 1 --block 2 --arg in=[7,-9] --arg out=[0,0] --arg n=2
extern "C" __global__ void blur_1d_clamp(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int l = max(i - 1, 0), r = min(i + 1, n - 1);
  out[i] = (in[l] + 2 * in[i] + in[r]) / 4;
}
