// mandelbrot_float: iters[p] = escape iteration count (at most 24) of c = (-2 + 0.5 x, -1 + 0.5 y) over a grid of pixels (a row of 4, 6x5, 4x4), in float
// run: --grid 1,1 --block 4,1 --arg iters=[0,0,0,0] --arg w=4
// run: --grid 2,1 --block 3,5 --arg iters=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg w=6
// run: --grid 1,2 --block 4,2 --arg iters=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg w=4
// |z|^2 and z^2's parts are products rounded on their own (__fmul_rn, __fadd_rn); the new
// imaginary part is one fmaf: 2 zr zi + ci.
extern "C" __global__ void mandelbrot_float(int *iters, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  float cr = fmaf(0.5f, (float)x, -2.0f), ci = fmaf(0.5f, (float)y, -1.0f);
  float zr = 0.0f, zi = 0.0f;
  int k = 0;
  while (k < 24) {
    float zr2 = __fmul_rn(zr, zr), zi2 = __fmul_rn(zi, zi);
    if (__fadd_rn(zr2, zi2) > 4.0f) break;
    zi = fmaf(zr + zr, zi, ci);
    zr = zr2 - zi2 + cr;
    k++;
  }
  iters[y * w + x] = k;
}
