// argmin_packed: key[0] = min over i < n of (x[i] << 8 | i) for 0 <= x < 2^23: one atomicMin finds the value and its first index
// run: --grid 3 --block 4 --arg x=[50,7,30,7,99,8,7,100,5000,12] --arg key=[2147483647] --arg n=10
// run: --grid 1 --block 16 --arg x=[8388607,0,0,3] --arg key=[2147483647] --arg n=4
extern "C" __global__ void argmin_packed(const int *x, int *key, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicMin(key, (x[i] << 8) | i);
}
