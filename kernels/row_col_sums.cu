// row_col_sums: rows[y] and cols[x] of a 4x4 block: sums of m[y][x] over each row and column by atomicAdd (block 4,4)
// run: --grid 1 --block 4,4 --arg m=[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16] --arg rows=[0,0,0,0] --arg cols=[0,0,0,0]
// run: --grid 1 --block 4,4 --arg m=[-6,-4,7,3,2,6,-9,6,-8,0,9,9,3,-4,-4,7] --arg rows=[0,0,0,0] --arg cols=[0,0,0,0]
extern "C" __global__ void row_col_sums(const int *m, int *rows, int *cols) {
  int x = threadIdx.x, y = threadIdx.y;
  int v = m[y * blockDim.x + x];
  atomicAdd(&rows[y], v);
  atomicAdd(&cols[x], v);
}
