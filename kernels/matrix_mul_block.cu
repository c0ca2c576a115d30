// matrix_mul_block: C = A * B (A is hA x wA, B is wA x wB, every size a multiple of BLOCK_SIZE), one BLOCK_SIZE x BLOCK_SIZE tile of C per block, tiles of A and B staged in __shared__
// from: NVIDIA cuda-samples, 0_Introduction/matrixMul/matrixMul.cu (MatrixMulCUDA<BLOCK_SIZE>, as written), BLOCK_SIZE 16/32 -> 4 (one 16-thread block) and 2 (2x2 blocks)
// oracle: contract
// run: --grid 1,1 --block 4,4 --kernel 'MatrixMulCUDA<4>' --arg C=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg A=[-0.0221,0.227,1.24,-0.718,-0.716,0.773,-0.0553,-0.563,-0.378,-0.681,-1.33,0.527,1.58,0.755,0.539,-0.65,-0.266,-1.42,0.915,-0.814,-0.833,1.92,-0.639,1.91,0.472,1.04,0.512,-1.29,0.852,-0.965,-0.369,-1.48] --arg B=[1.71,-1.31,1.88,-1.05,-0.141,1.59,-0.577,0.0322,-1.35,1.84,1.94,-1.31,-1.51,-0.11,0.0749,1.1,-0.629,0.36,-1.36,-1.15,-1.68,0.183,0.251,0.468,1.74,-0.774,-0.629,-0.148,1.78,-0.77,-0.838,-0.293] --arg wA=8 --arg wB=4
// run: --grid 2,2 --block 2,2 --kernel 'MatrixMulCUDA<2>' --arg C=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg A=[-0.329,-1.24,2.46,-0.0942,-2.48,1.5,-2.55,-1.78,-2.56,0.769,2.06,0.667,-1.67,2.07,2.23,-1.03] --arg B=[-0.143,0.781,-0.576,2.52,-2.9,2.93,1.22,1.82,1.82,-1.79,1.92,0.918,-2.12,2.17,-0.36,1.33] --arg wA=4 --arg wB=4
// run: --grid 3,1 --block 2,2 --kernel 'MatrixMulCUDA<2>' --arg C=[0,0,0,0,0,0,0,0,0,0,0,0] --arg A=[1,2,3,4,5,6,7,8] --arg B=[1,0,0.5,0,1,0,-1,0,0.25,0,2,0,0,1,0,0,-1,0,1,0,0,0,0,1] --arg wA=4 --arg wB=6
/**
 * Matrix multiplication (CUDA Kernel) on the device: C = A * B
 * wA is A's width and wB is B's width
 */
template <int BLOCK_SIZE>
__global__ void MatrixMulCUDA(float *C, float *A, float *B, int wA, int wB) {
  // Block index
  int bx = blockIdx.x;
  int by = blockIdx.y;

  // Thread index
  int tx = threadIdx.x;
  int ty = threadIdx.y;

  // Index of the first sub-matrix of A processed by the block
  int aBegin = wA * BLOCK_SIZE * by;

  // Index of the last sub-matrix of A processed by the block
  int aEnd = aBegin + wA - 1;

  // Step size used to iterate through the sub-matrices of A
  int aStep = BLOCK_SIZE;

  // Index of the first sub-matrix of B processed by the block
  int bBegin = BLOCK_SIZE * bx;

  // Step size used to iterate through the sub-matrices of B
  int bStep = BLOCK_SIZE * wB;

  // Csub is used to store the element of the block sub-matrix
  // that is computed by the thread
  float Csub = 0;

  // Loop over all the sub-matrices of A and B
  // required to compute the block sub-matrix
  for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
    // Declaration of the shared memory array As used to
    // store the sub-matrix of A
    __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];

    // Declaration of the shared memory array Bs used to
    // store the sub-matrix of B
    __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];

    // Load the matrices from device memory
    // to shared memory; each thread loads
    // one element of each matrix
    As[ty][tx] = A[a + wA * ty + tx];
    Bs[ty][tx] = B[b + wB * ty + tx];

    // Synchronize to make sure the matrices are loaded
    __syncthreads();

    // Multiply the two matrices together;
    // each thread computes one element
    // of the block sub-matrix
#pragma unroll

    for (int k = 0; k < BLOCK_SIZE; ++k) {
      Csub += As[ty][k] * Bs[k][tx];
    }

    // Synchronize to make sure that the preceding
    // computation is done before loading two new
    // sub-matrices of A and B in the next iteration
    __syncthreads();
  }

  // Write the block sub-matrix to device memory;
  // each thread writes one element
  int c = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
  C[c + wB * ty + tx] = Csub;
}
