// factorial: fact[i] = k[i]! mod 2^32 (unsigned multiply wraps past 12!)
// run: --grid 2 --block 4 --arg k=[0,1,5,10,12,13,20,34] --arg fact=[0,0,0,0,0,0,0,0] --arg n=8
// run: --grid 2 --block 2 --arg k=[3,7,9] --arg fact=[0,0,0] --arg n=3
extern "C" __global__ void factorial(const int *k, unsigned *fact, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned f = 1;
  for (unsigned j = 2; j <= (unsigned)k[i]; j++) f *= j;
  fact[i] = f;
}
