// matadd_2d: c = a + 2*b for rows x cols row-major matrices, one thread per element, 2-D grid of 4x4 blocks
// run: --grid 2,2 --block 4,4 --arg a=[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35] --arg b=[-2,9,8,-5,2,6,9,-7,-9,6,-1,8,-2,-3,6,8,8,6,3,-5,-2,-5,7,3,-9,-7,-4,9,-8,0,-9,-1,6,3,4,3] --arg c=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg rows=6 --arg cols=6
// run: --grid 2,1 --block 4,4 --arg a=[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14] --arg b=[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1] --arg c=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg rows=3 --arg cols=5
extern "C" __global__ void matadd_2d(const int *a, const int *b, int *c, int rows, int cols) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < rows && col < cols) {
    int i = row * cols + col;
    c[i] = a[i] + 2 * b[i];
  }
}
