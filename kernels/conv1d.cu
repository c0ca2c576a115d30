// conv1d: out[i] = sum over k < taps of w[k] * in[i + k - taps/2], zero padded: a 1-D convolution with a filter argument
// run: --grid 3 --block 4 --arg in=[1,2,3,4,5,6,7,8,9,10] --arg w=[1,-2,1] --arg out=[0,0,0,0,0,0,0,0,0,0] --arg taps=3 --arg n=10
// run: --grid 2 --block 4 --arg in=[3,1,4,1,5,9,2,6] --arg w=[1,2,3,2,1] --arg out=[0,0,0,0,0,0,0,0] --arg taps=5 --arg n=8
extern "C" __global__ void conv1d(const int *in, const int *w, int *out, int taps, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int acc = 0;
  for (int k = 0; k < taps; k++) {
    int j = i + k - taps / 2;
    if (j >= 0 && j < n) acc += w[k] * in[j];
  }
  out[i] = acc;
}
