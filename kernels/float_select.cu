// float_select: out[i] = c[i] ? a[i] : b[i], and big[i] = x > t ? x : -1 for x = a[i] (a float select and a compare-select; NaN is never > t)
// run: --grid 2 --block 4 --arg c=[1,0,1,0,-5,0,1,0] --arg a=[1.5,2.5,-0,nan,inf,7,1e-45,8] --arg b=[-1,-2,0,-0,3,-inf,9,nan] --arg t=1 --arg out=[0,0,0,0,0,0,0,0] --arg big=[0,0,0,0,0,0,0,0]
// run: --grid 1 --block 3 --arg c=[0,1,2] --arg a=[0.1,0.2,0.3] --arg b=[10,20,30] --arg t=0.2 --arg out=[0,0,0] --arg big=[5,5,5]
extern "C" __global__ void float_select(const int *c, const float *a, const float *b, float t, float *out, float *big) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = a[i];
  out[i] = c[i] ? x : b[i];
  big[i] = x > t ? x : -1.0f;
}
