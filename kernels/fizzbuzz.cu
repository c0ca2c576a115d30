// fizzbuzz: out[i] = -15 if (i+1) % 15 == 0, -3 if % 3, -5 if % 5, else i + 1, for i < n
// run: --grid 4 --block 4 --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg n=16
// run: --grid 2 --block 16 --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg n=31
#include <cstdio>  // harmless: kernels may include host headers (printf itself is not supported)

extern "C" __global__ void fizzbuzz(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = i + 1;
  if (v % 15 == 0)
    out[i] = -15;
  else if (v % 3 == 0)
    out[i] = -3;
  else if (v % 5 == 0)
    out[i] = -5;
  else
    out[i] = v;
}
