// polynomial_eval: y[i] = ((c3 x + c2) x + c1) x + c0 at x = x[i], written naturally: each step compiles to one fma
// oracle: contract
// run: --grid 2 --block 4 --arg c0=1 --arg c1=-0.5 --arg c2=0.1 --arg c3=0.3 --arg x=[0,1,-1,0.1,3,-3,100,1e-3] --arg y=[0,0,0,0,0,0,0,0]
// run: --grid 1 --block 4 --arg c0=-0.01 --arg c1=0 --arg c2=1 --arg c3=0 --arg x=[0.1,-0.1,1e20,nan] --arg y=[0,0,0,0]
// x = 0.1: 0.1f * 0.1f - 0.01f in one fma is the product's rounding error, not 0.
extern "C" __global__ void polynomial_eval(float c0, float c1, float c2, float c3, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = x[i];
  float acc = c3 * v + c2;
  acc = acc * v + c1;
  acc = acc * v + c0;
  y[i] = acc;
}
