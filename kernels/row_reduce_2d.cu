// row_reduce_2d: rowsum[y] = sum of m[y][0..4) and rowmax[y] = max of row y, reduced along x in a 2-D __shared__ array (block 4,4)
// run: --grid 1 --block 4,4 --arg m=[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16] --arg rowsum=[0,0,0,0] --arg rowmax=[0,0,0,0]
// run: --grid 1 --block 4,4 --arg m=[-48,-16,12,-25,43,2,18,19,37,-38,-26,22,20,39,43,-17] --arg rowsum=[0,0,0,0] --arg rowmax=[0,0,0,0]
extern "C" __global__ void row_reduce_2d(const int *m, int *rowsum, int *rowmax) {
  __shared__ int s[4][4];
  __shared__ int mx[4][4];
  int x = threadIdx.x, y = threadIdx.y;
  s[y][x] = mx[y][x] = m[y * 4 + x];
  __syncthreads();
  for (int stride = 2; stride > 0; stride >>= 1) {
    if (x < stride) {
      s[y][x] += s[y][x + stride];
      mx[y][x] = max(mx[y][x], mx[y][x + stride]);
    }
    __syncthreads();
  }
  if (x == 0) {
    rowsum[y] = s[y][0];
    rowmax[y] = mx[y][0];
  }
}
