// softsign: y[i] = x[i] / (1 + |x[i]|) for i < n (inf gives nan: inf / inf)
// run: --grid 3 --block 4 --arg x=[0,1,-1,0.5,-0.5,3,-3,100,1e10,-1e-10,inf,nan] --arg y=[0,0,0,0,0,0,0,0,0,0,0,0] --arg n=12
// run: --grid 1 --block 4 --arg x=[-0,16777216,1e-45,2] --arg y=[9,9,9,9] --arg n=3
extern "C" __global__ void softsign(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] / (1.0f + fabsf(x[i]));
}
