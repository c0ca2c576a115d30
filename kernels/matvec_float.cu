// matvec_float: y = M x for an n x 4 row-major float matrix, one thread per row, fmaf over the row
// run: --grid 2 --block 3 --arg M=[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1,0.5,0.5,0.5,0.5,1,-1,1,-1] --arg x=[1.5,-2,3.25,1e-7] --arg y=[0,0,0,0,0,0] --arg n=6
// run: --grid 1 --block 4 --arg M=[0.1,0.2,0.3,0.4,1e20,1,-1e20,1,3,3,3,3] --arg x=[0.3,0.3,0.3,0.3] --arg y=[0,0,0] --arg n=3
extern "C" __global__ void matvec_float(const float *M, const float *x, float *y, int n) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n) return;
  float acc = 0.0f;
  for (int k = 0; k < 4; k++) acc = fmaf(M[r * 4 + k], x[k], acc);
  y[r] = acc;
}
