// minmax_nan_zero: lo[i] = fminf(a[i], b[i]), hi[i] = fmaxf(a[i], b[i]), m[i] = fabsf(a[i]): one NaN gives the other operand, two give nan, -0 < +0
// run: --grid 2 --block 5 --arg a=[1,nan,nan,-0,0,-0,inf,-inf,0f7fc00001,-5] --arg b=[2,3,nan,0,-0,-0,nan,5,-1,0fffc00002] --arg lo=[0,0,0,0,0,0,0,0,0,0] --arg hi=[0,0,0,0,0,0,0,0,0,0] --arg m=[0,0,0,0,0,0,0,0,0,0]
// run: --grid 1 --block 4 --arg a=[1e-45,-1e-45,3.4028235e38,0fffffffff] --arg b=[-1e-45,-0,inf,0fff800001] --arg lo=[0,0,0,0] --arg hi=[0,0,0,0] --arg m=[0,0,0,0]
// a and b hold NaNs with payloads (0f7fc00001, ...): the kernel does not write them, so
// they print with their payload; any NaN a result holds is the canonical one.
extern "C" __global__ void minmax_nan_zero(const float *a, const float *b, float *lo, float *hi, float *m) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  lo[i] = fminf(a[i], b[i]);
  hi[i] = fmaxf(a[i], b[i]);
  m[i] = fabsf(a[i]);
}
