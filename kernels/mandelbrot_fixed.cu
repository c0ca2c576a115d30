// mandelbrot_fixed: iters[py][px] = Mandelbrot escape count (at most max_iter) on an 8x8 grid in Q10 fixed point, x in [-2, 1.5), y in [-1.25, 1.25)
// run: --grid 2,2 --block 4,4 --arg iters=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg max_iter=10
// run: --grid 2,2 --block 4,4 --arg iters=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg max_iter=3
#define W 8
#define H 8
#define ONE 1024  // Q10 fixed point: 1.0 == 1024

extern "C" __global__ void mandelbrot_fixed(int *iters, int max_iter) {
  int px = blockIdx.x * blockDim.x + threadIdx.x;
  int py = blockIdx.y * blockDim.y + threadIdx.y;
  int cr = -2 * ONE + px * (ONE * 7 / 2) / W;
  int ci = -ONE * 5 / 4 + py * (ONE * 5 / 2) / H;
  int zr = 0, zi = 0, k = 0;
  while (k < max_iter) {
    int zr2 = zr * zr / ONE, zi2 = zi * zi / ONE;
    if (zr2 + zi2 > 4 * ONE) break;
    zi = 2 * zr * zi / ONE + ci;
    zr = zr2 - zi2 + cr;
    k++;
  }
  iters[py * W + px] = k;
}
