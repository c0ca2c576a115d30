// spmv_csr: y = A x for a sparse matrix in CSR form (row_ptr, col, val), one thread per row; empty rows give 0
// run: --grid 2 --block 4 --arg row_ptr=[0,2,3,3,6,8] --arg col=[0,3,1,0,2,4,4,1] --arg val=[2,-1,5,1,3,7,-2,1] --arg x=[1,2,3,4,5] --arg y=[0,0,0,0,0] --arg rows=5
// run: --grid 1 --block 4 --arg row_ptr=[0,1,3] --arg col=[1,0,1] --arg val=[-4,6,9] --arg x=[10,-10] --arg y=[0,0] --arg rows=2
extern "C" __global__ void spmv_csr(const int *row_ptr, const int *col, const int *val,
                                    const int *x, int *y, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  int acc = 0;
  for (int k = row_ptr[r]; k < row_ptr[r + 1]; k++) acc += val[k] * x[col[k]];
  y[r] = acc;
}
