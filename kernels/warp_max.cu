// warp_max: per warp, the max of the int data (imax[w]) and of the unsigned data (umax[w]) by a butterfly of __shfl_xor_sync with max
// run: --grid 1 --block 16 --arg x=[3,-7,12,5,-1,-2,-3,-4,0,2147483647,-2147483648,1,9,9,8,9] --arg u=[1,2,3,4,-1,0,5,6,7,-2147483648,2147483647,8,0,0,0,0] --arg imax=[0,0,0,0] --arg umax=[0,0,0,0]
// run: --grid 2 --block 4 --arg x=[-50,-40,-60,-45,10,100,1000,-10000] --arg u=[-3,-4,-5,-6,1000,999,1001,0] --arg imax=[0,0] --arg umax=[0,0]
// Every lane ends with its warp's max; lane 0 writes it. The unsigned max compares as
// unsigned, so -1 (0xffffffff) is the largest unsigned value and -2147483648 beats 2147483647.
extern "C" __global__ void warp_max(const int *x, const unsigned *u, int *imax, unsigned *umax) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int a = x[i];
  unsigned b = u[i];
  for (int mask = warpSize / 2; mask > 0; mask /= 2) {
    a = max(a, __shfl_xor_sync(0xffffffff, a, mask));
    b = max(b, __shfl_xor_sync(0xffffffff, b, mask));
  }
  if (threadIdx.x % warpSize == 0) {
    imax[i / warpSize] = a;
    umax[i / warpSize] = b;
  }
}
