// matmul_float_3x3: C = A * B for 3x3 row-major float matrices, one thread per element, an fmaf chain per dot product
// run: --grid 1 --block 3,3 --arg A=[1,2,3,4,5,6,7,8,9] --arg B=[0.5,0,0,0,0.5,0,0,0,0.5] --arg C=[0,0,0,0,0,0,0,0,0]
// run: --grid 1 --block 3,3 --arg A=[0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9] --arg B=[1.5,-2.25,3,1e-3,1e3,-1e-3,7,0.3,-0.7] --arg C=[0,0,0,0,0,0,0,0,0]
extern "C" __global__ void matmul_float_3x3(const float *A, const float *B, float *C) {
  int r = threadIdx.y, c = threadIdx.x;
  float acc = 0.0f;
  for (int k = 0; k < 3; k++) acc = fmaf(A[r * 3 + k], B[k * 3 + c], acc);
  C[r * 3 + c] = acc;
}
