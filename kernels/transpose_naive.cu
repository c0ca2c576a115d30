// transpose_naive: out (cols x rows) = transpose of in (rows x cols), one thread per element read, 2-D grid
// run: --grid 2,2 --block 4,4 --arg in=[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30] --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg rows=5 --arg cols=6
// run: --grid 1,2 --block 4,4 --arg in=[10,11,12,13,14,15,16,17] --arg out=[0,0,0,0,0,0,0,0] --arg rows=8 --arg cols=1
extern "C" __global__ void transpose_naive(const int *in, int *out, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;  // column of in
  int y = blockIdx.y * blockDim.y + threadIdx.y;  // row of in
  if (x < cols && y < rows) out[x * rows + y] = in[y * cols + x];
}
