// matmul_4x4: c = a * b for n x n int matrices (n <= 4), one thread per output element (block 4,4, extra threads idle)
// run: --grid 1 --block 4,4 --arg a=[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16] --arg b=[16,15,14,13,12,11,10,9,8,7,6,5,4,3,2,1] --arg c=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg n=4
// run: --grid 1 --block 4,4 --arg a=[9,-2,1,-9,-1,-4,1,8,9,9,-6,-3,9,-1,0,-6] --arg b=[-7,6,6,-7,2,-7,4,-5,-9,0,4,4,-6,-8,-8,3] --arg c=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg n=4
// run: --grid 1 --block 4,4 --arg a=[1,2,3,4] --arg b=[5,6,7,8] --arg c=[0,0,0,0] --arg n=2
extern "C" __global__ void matmul_4x4(const int *a, const int *b, int *c, int n) {
  int row = threadIdx.y, col = threadIdx.x;
  if (row >= n || col >= n) return;
  int acc = 0;
  for (int k = 0; k < n; k++) acc += a[row * n + k] * b[k * n + col];
  c[row * n + col] = acc;
}
