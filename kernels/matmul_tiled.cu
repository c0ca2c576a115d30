// matmul_tiled: c = a * b for n x n matrices (n even) with 2x2 tiles of a and b staged in __shared__ (block 2,2, grid n/2,n/2)
// run: --grid 2,2 --block 2,2 --arg a=[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16] --arg b=[16,15,14,13,12,11,10,9,8,7,6,5,4,3,2,1] --arg c=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg n=4
// run: --grid 2,2 --block 2,2 --arg a=[9,1,8,-1,7,-2,-8,0,-9,-7,-6,8,-8,-3,4,0] --arg b=[-1,-5,-8,1,1,2,-5,3,3,5,7,3,8,-6,7,-1] --arg c=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg n=4
// run: --grid 1,1 --block 2,2 --arg a=[1,2,3,4] --arg b=[5,6,7,8] --arg c=[0,0,0,0] --arg n=2
// tile[0..3] holds the 2x2 tile of a, tile[4..7] the tile of b, both row-major. pa walks
// along this thread's row of a, pb down its column of b, one tile (2 steps) per phase.
extern "C" __global__ void matmul_tiled(const int *a, const int *b, int *c, int n) {
  __shared__ int tile[8];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * 2 + ty, col = blockIdx.x * 2 + tx;
  int *out = c + row * n + col;
  const int *pa = a + row * n + tx;
  const int *pb = b + ty * n + col;
  int acc = 0;
  for (int p = 0; p < n; p += 2) {
    tile[ty * 2 + tx] = *pa;
    tile[4 + ty * 2 + tx] = *pb;
    __syncthreads();  // the tiles are loaded
    acc += tile[ty * 2] * tile[4 + tx] + tile[ty * 2 + 1] * tile[6 + tx];
    __syncthreads();  // everyone is done with them before the next load
    pa += 2;
    pb += 2 * n;
  }
  *out = acc;
}
