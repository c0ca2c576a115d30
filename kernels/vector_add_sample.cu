// vector_add_sample: C[i] = A[i] + B[i] + 0.0f for i < numElements
// from: NVIDIA cuda-samples, 0_Introduction/vectorAdd/vectorAdd.cu (vectorAdd, as written: C++ linkage, const pointers), 16- and 4-thread blocks
// run: --grid 3 --block 16 --arg A=[-3.52,2.4,-9.83,9.66,6.44,9.98,-4.73,-6.01,-8.91,-6.12,-9.52,3.83,-2.69,6.31,5.21,-3.01,-6.66,-3.05,-9.39,2.97,-6.2,-7.03,7.77,-1.26,8.92,9.61,3.28,-5.01,-7.05,-5.07,4.73,0.236,-4.04,-9.65,-2.98,-2.15,-8.61,-5.01,-4.09,-1.68] --arg B=[-8.53,1.89,9.79,-3.12,0.879,-2.51,4.79,3.71,1.97,9.52,4.06,-3.14,-2.4,2.67,3.84,-5.56,6.18,-1.06,5.45,-8.18,-3.65,-9.64,-1.66,-4.92,-3.06,-5.59,7.03,2.7,-3,-0.0509,-6.3,8.85,8.11,1.43,-6.93,9.06,-5.67,-8.9,-1.63,-2.45] --arg C=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg numElements=37
// run: --grid 2 --block 4 --arg A=[-0,1e30,inf,nan,3.5,-2,16777216,0.1] --arg B=[-0,1e30,-inf,1,-3.5,2,1,0.2] --arg C=[7,7,7,7,7,7,7,7] --arg numElements=8
/**
 * CUDA Kernel Device code
 *
 * Computes the vector addition of A and B into C. The 3 vectors have the same
 * number of elements numElements.
 */
__global__ void vectorAdd(const float *A, const float *B, float *C,
                          int numElements) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;

  if (i < numElements) {
    C[i] = A[i] + B[i] + 0.0f;
  }
}
