// ilog2: lg[i] = floor(log2(x[i])) by a shift loop (-1 for 0), and lgc[i] = 31 - __clz(x[i]) for comparison
// run: --grid 2 --block 4 --arg x=[0,1,2,3,4,1023,1024,-1] --arg lg=[0,0,0,0,0,0,0,0] --arg lgc=[0,0,0,0,0,0,0,0] --arg n=8
// run: --grid 1 --block 4 --arg x=[65535,65536,1000000] --arg lg=[0,0,0] --arg lgc=[0,0,0] --arg n=3
extern "C" __global__ void ilog2(const unsigned *x, int *lg, int *lgc, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned v = x[i];
  int l = -1;
  while (v != 0) {
    v >>= 1;
    l++;
  }
  lg[i] = l;
  lgc[i] = 31 - __clz(x[i]);
}
