// float_overloads: CUDA's C++ float overloads of the math names: y[i] = abs(a) + fmin(a, b) (abs of a float is the float's, not the int abs), s[i] = sqrt(fabs(a)) - round(b), t[i] = floor(a) + ceil(b) - trunc(a) - fmax(a, b), f[i] the flags isnan, isinf, isfinite, signbit of a and a < INFINITY
// run: --grid 2 --block 4 --arg a=[1.5,-2.5,0.75,-0.25,inf,-inf,nan,-0] --arg b=[2,-3.5,0.5,1e-45,-1,7,0,-2.5] --arg y=[0,0,0,0,0,0,0,0] --arg s=[0,0,0,0,0,0,0,0] --arg t=[0,0,0,0,0,0,0,0] --arg f=[0,0,0,0,0,0,0,0]
// run: --grid 2 --block 4 --arg a=[3.4028235e38,-1e-45,16777215,-8388607.5,0.49999997,100.5,-0.5,2] --arg b=[nan,-0,-16777216,2.5,-0.49999997,-100.5,0.5,-2] --arg y=[0,0,0,0,0,0,0,0] --arg s=[0,0,0,0,0,0,0,0] --arg t=[0,0,0,0,0,0,0,0] --arg f=[0,0,0,0,0,0,0,0]
__global__ void float_overloads(const float *a, const float *b, float *y, float *s, float *t, int *f) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  float x = a[k], z = b[k];
  y[k] = abs(x) + fmin(x, z);
  s[k] = sqrt(fabs(x)) - round(z);
  t[k] = floor(x) + ceil(z) - trunc(x) - fmax(x, z);
  f[k] = (isnan(x) ? 1 : 0) | (isinf(x) ? 2 : 0) | (isfinite(x) ? 4 : 0) | (signbit(x) ? 8 : 0) | (x < INFINITY ? 16 : 0);
}
