// popcount_loop: bits[i] = set bits of x[i] by Kernighan's loop (x &= x - 1); check[i] = __popc(x[i]) for comparison
// run: --grid 2 --block 4 --arg x=[0,1,3,255,-1,-2147483648,1431655765,12345678] --arg bits=[0,0,0,0,0,0,0,0] --arg check=[0,0,0,0,0,0,0,0] --arg n=8
// run: --grid 1 --block 4 --arg x=[7,8] --arg bits=[0,0] --arg check=[0,0] --arg n=2
extern "C" __global__ void popcount_loop(const unsigned *x, int *bits, int *check, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned v = x[i];
  int c = 0;
  for (; v != 0; v &= v - 1) c++;
  bits[i] = c;
  check[i] = __popc(x[i]);
}
