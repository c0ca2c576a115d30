// transpose_shared: out = transpose of in (rows x cols) through a padded 4x5 __shared__ tile: coalesced reads and writes
// run: --grid 2,2 --block 4,4 --arg in=[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36] --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg rows=6 --arg cols=6
// run: --grid 2,1 --block 4,4 --arg in=[100,101,102,103,104,105,106,107,108,109,110,111,112,113,114,115,116,117,118,119,120,121,122,123,124,125,126,127] --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg rows=4 --arg cols=7
#define TILE 4

extern "C" __global__ void transpose_shared(const int *in, int *out, int rows, int cols) {
  __shared__ int tile[TILE][TILE + 1];  // +1 column: the classic bank-conflict padding
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  if (x < cols && y < rows) tile[threadIdx.y][threadIdx.x] = in[y * cols + x];
  __syncthreads();
  // Write the transposed tile: block (bx, by) goes to (by, bx); threads swap roles.
  x = blockIdx.y * TILE + threadIdx.x;  // column of out = row of in
  y = blockIdx.x * TILE + threadIdx.y;  // row of out = column of in
  if (x < rows && y < cols) out[y * rows + x] = tile[threadIdx.x][threadIdx.y];
}
