// horner_poly: y[i] = c[0] + c[1] x + c[2] x^2 + c[3] x^3 + c[4] x^4 at x = x[i], by Horner's rule with an fmaf per step
// run: --grid 2 --block 4 --arg c=[1,1,0.5,0.16666667,0.041666668] --arg x=[0,1,-1,0.5,2,-2,10,1e-3] --arg y=[0,0,0,0,0,0,0,0]
// run: --grid 1 --block 5 --arg c=[-1,0,3,0,-2] --arg x=[1,-1,0.70710677,1e10,nan] --arg y=[0,0,0,0,0]
extern "C" __global__ void horner_poly(const float *c, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = x[i], acc = c[4];
  for (int k = 3; k >= 0; k--) acc = fmaf(acc, v, c[k]);
  y[i] = acc;
}
