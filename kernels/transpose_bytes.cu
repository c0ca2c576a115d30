// transpose_bytes: odata = the transpose of the square byte matrix idata (width = gridDim.x * TILE_DIM), tiles of TILE_DIM x TILE_DIM per block, BLOCK_ROWS rows of threads each doing TILE_DIM / BLOCK_ROWS rows: copy, transposeNaive, and transposeNoBankConflicts through a padded __shared__ tile of bytes; the bytes of one output word come from threads of different warps
// from: NVIDIA Developer Blog, "An Efficient Matrix Transpose in CUDA C/C++" (Harris, 2013) (copy, transposeNaive and transposeNoBankConflicts, as written but for float -> unsigned char data; TILE_DIM 32 -> 4, BLOCK_ROWS 8 -> 2, matrices 8x8 and 12x12)
// run: --grid 2,2 --block 4,2 --kernel transposeNaive --arg odata=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg idata=[107,66,134,247,187,193,47,17,93,1,24,101,164,193,112,58,204,162,97,79,117,226,29,230,13,2,237,129,8,35,66,178,43,61,113,173,38,156,92,118,33,51,94,9,8,126,163,186,178,94,4,186,5,11,13,91,55,44,115,192,242,27,65,229]
// run: --grid 2,2 --block 4,2 --kernel transposeNoBankConflicts --arg odata=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg idata=[107,66,134,247,187,193,47,17,93,1,24,101,164,193,112,58,204,162,97,79,117,226,29,230,13,2,237,129,8,35,66,178,43,61,113,173,38,156,92,118,33,51,94,9,8,126,163,186,178,94,4,186,5,11,13,91,55,44,115,192,242,27,65,229]
// run: --grid 3,3 --block 4,2 --kernel transposeNoBankConflicts --arg odata=[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1] --arg idata=[140,105,100,155,45,200,112,19,164,228,137,78,109,242,154,63,13,189,227,70,130,153,151,121,1,229,78,76,24,118,215,124,43,2,38,144,67,154,192,250,186,241,9,252,201,130,75,177,178,53,178,194,101,48,14,186,7,141,143,37,117,228,144,214,8,62,203,188,31,40,8,178,213,100,88,62,39,83,206,40,82,85,90,66,209,228,197,93,95,146,77,225,12,60,91,137,171,61,73,176,248,70,219,47,183,210,52,113,72,237,113,236,62,101,145,237,107,175,122,128,20,119,208,165,43,236,41,229,97,46,15,140,182,209,51,218,110,32,241,23,195,230,214,21]
// run: --grid 3,3 --block 4,2 --kernel copy --arg odata=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg idata=[140,105,100,155,45,200,112,19,164,228,137,78,109,242,154,63,13,189,227,70,130,153,151,121,1,229,78,76,24,118,215,124,43,2,38,144,67,154,192,250,186,241,9,252,201,130,75,177,178,53,178,194,101,48,14,186,7,141,143,37,117,228,144,214,8,62,203,188,31,40,8,178,213,100,88,62,39,83,206,40,82,85,90,66,209,228,197,93,95,146,77,225,12,60,91,137,171,61,73,176,248,70,219,47,183,210,52,113,72,237,113,236,62,101,145,237,107,175,122,128,20,119,208,165,43,236,41,229,97,46,15,140,182,209,51,218,110,32,241,23,195,230,214,21]
const int TILE_DIM = 4;
const int BLOCK_ROWS = 2;

__global__ void copy(unsigned char *odata, const unsigned char *idata)
{
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  int width = gridDim.x * TILE_DIM;

  for (int j = 0; j < TILE_DIM; j+= BLOCK_ROWS)
    odata[(y+j)*width + x] = idata[(y+j)*width + x];
}

__global__ void transposeNaive(unsigned char *odata, const unsigned char *idata)
{
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  int width = gridDim.x * TILE_DIM;

  for (int j = 0; j < TILE_DIM; j+= BLOCK_ROWS)
    odata[x*width + (y+j)] = idata[(y+j)*width + x];
}

__global__ void transposeNoBankConflicts(unsigned char *odata, const unsigned char *idata)
{
  __shared__ unsigned char tile[TILE_DIM][TILE_DIM+1];

  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  int width = gridDim.x * TILE_DIM;

  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
     tile[threadIdx.y+j][threadIdx.x] = idata[(y+j)*width + x];

  __syncthreads();

  x = blockIdx.y * TILE_DIM + threadIdx.x;  // transpose block offset
  y = blockIdx.x * TILE_DIM + threadIdx.y;

  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
     odata[(y+j)*width + x] = tile[threadIdx.x][threadIdx.y + j];
}
