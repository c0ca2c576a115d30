// matmul: c = a * b for an n x k matrix a and a k x m matrix b, all row-major 32-bit
// integers (the host rejects a product with an entry that would overflow).
// Parameters: a (n*k words), b (k*m words), c (n*m words), n, k, m; n, k, m <= 8 and
// n*k + k*m + n*m <= 120.
// Launch: grid (ceil(m / bx), ceil(n / by)) of CUDA blocks (bx, by) = (min(m, 4), min(n, 4));
// thread (col, row) computes c[row][col].
// run: --grid 1 --block 2,2 --arg a=[1,2,3,4] --arg b=[5,6,7,8] --arg c=[0,0,0,0] --arg n=2 --arg k=2 --arg m=2
// run: --grid 1 --block 1,2 --arg a=[1,2,3,4,5,6] --arg b=[1,0,-1] --arg c=[0,0] --arg n=2 --arg k=3 --arg m=1
extern "C" __global__ void matmul(const int *a, const int *b, int *c, int n, int k, int m) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n || col >= m) return;
  int acc = 0;
  for (int j = 0; j < k; j++) acc += a[row * k + j] * b[j * m + col];
  c[row * m + col] = acc;
}
