// byte_swap: sw[i] = x[i] with its four bytes reversed (shifts and masks), b[i] = byte (i & 3) of x[i]
// run: --grid 2 --block 4 --arg x=[305419896,-1,1,-16777216,255,65280,16711680,-2023406815] --arg sw=[0,0,0,0,0,0,0,0] --arg b=[0,0,0,0,0,0,0,0] --arg n=8
extern "C" __global__ void byte_swap(const unsigned *x, unsigned *sw, unsigned *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned v = x[i];
  sw[i] = (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
  b[i] = (v >> (8 * (i & 3))) & 0xffu;
}
