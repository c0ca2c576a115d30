// bit_reverse: rev[i] = x[i] with its 32 bits reversed by a shift loop; check[i] = __brev(x[i]) for comparison
// run: --grid 2 --block 4 --arg x=[0,1,2,-1,-2147483648,305419896,65535,-16777216] --arg rev=[0,0,0,0,0,0,0,0] --arg check=[0,0,0,0,0,0,0,0] --arg n=8
extern "C" __global__ void bit_reverse(const unsigned *x, unsigned *rev, unsigned *check, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned v = x[i], r = 0;
  for (int b = 0; b < 32; b++) {
    r = (r << 1) | (v & 1);
    v >>= 1;
  }
  rev[i] = r;
  check[i] = __brev(x[i]);
}
