// parity_fold: par[i] = parity (xor of all bits) of x[i], folded by xor-shifts: 16, 8, 4, 2, 1
// run: --grid 2 --block 4 --arg x=[0,1,3,7,-1,-2147483648,1431655765,305419896] --arg par=[0,0,0,0,0,0,0,0] --arg n=8
extern "C" __global__ void parity_fold(const unsigned *x, int *par, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned v = x[i];
  v ^= v >> 16;
  v ^= v >> 8;
  v ^= v >> 4;
  v ^= v >> 2;
  v ^= v >> 1;
  par[i] = v & 1;
}
