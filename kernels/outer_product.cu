// outer_product: m[i][j] = u[i] * v[j] for i < rows, j < cols (2-D threads, partial blocks at the edges)
// run: --grid 2,2 --block 4,4 --arg u=[1,2,3,4,5] --arg v=[1,-1,10,-10,100] --arg m=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg rows=5 --arg cols=5
// run: --grid 1,1 --block 4,2 --arg u=[7,8] --arg v=[1,2,3] --arg m=[0,0,0,0,0,0] --arg rows=2 --arg cols=3
extern "C" __global__ void outer_product(const int *u, const int *v, int *m, int rows, int cols) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < rows && j < cols) m[i * cols + j] = u[i] * v[j];
}
