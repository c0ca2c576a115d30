// early_return: out[i]: -1 for negative x, 0 for zero, x for x > 100, else x*x; each case leaves by its own return
// run: --grid 3 --block 4 --arg x=[-5,0,101,5,-1,200,10,0,1,100,-100,7] --arg out=[9,9,9,9,9,9,9,9,9,9,9,9] --arg n=12
// run: --grid 2 --block 4 --arg x=[3,-3,300] --arg out=[0,0,0] --arg n=3
extern "C" __global__ void early_return(const int *x, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = x[i];
  if (v < 0) {
    out[i] = -1;
    return;
  }
  if (v == 0) {
    out[i] = 0;
    return;
  }
  if (v > 100) {
    out[i] = v;
    return;
  }
  out[i] = v * v;
}
