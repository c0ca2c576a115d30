// matvec: y = A x for a rows x cols matrix, one thread per row with a loop over the columns
// run: --grid 2 --block 4 --arg a=[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30] --arg x=[1,-1,2,-2,3] --arg y=[0,0,0,0,0,0] --arg rows=6 --arg cols=5
// run: --grid 1 --block 4 --arg a=[-59,149,237,232,-257,458,-192,-53,-236,33,-190,61] --arg x=[-153,-489,307,-75] --arg y=[0,0,0] --arg rows=3 --arg cols=4
extern "C" __global__ void matvec(const int *a, const int *x, int *y, int rows, int cols) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  int acc = 0;
  for (int c = 0; c < cols; c++) acc += a[r * cols + c] * x[c];
  y[r] = acc;
}
