// stencil_2d: out = 5-point Laplacian 4*c - n - s - e - w of a rows x cols grid; border cells copy the input
// run: --grid 2,2 --block 4,4 --arg in=[0,3,6,9,1,4,1,4,7,10,2,5,4,7,10,2,5,8,9,1,4,7,10,2,5,8,0,3,6,9,3,6,9,1,4,7] --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg rows=6 --arg cols=6
// run: --grid 1,1 --block 4,4 --arg in=[0,1,2,3,4,5,6,7,8,9,10,11] --arg out=[0,0,0,0,0,0,0,0,0,0,0,0] --arg rows=3 --arg cols=4
extern "C" __global__ void stencil_2d(const int *in, int *out, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= cols || y >= rows) return;
  int i = y * cols + x;
  if (x == 0 || y == 0 || x == cols - 1 || y == rows - 1) {
    out[i] = in[i];
    return;
  }
  out[i] = 4 * in[i] - in[i - cols] - in[i + cols] - in[i - 1] - in[i + 1];
}
