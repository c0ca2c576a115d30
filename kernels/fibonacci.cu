// fibonacci: fib[i] = F(k[i]) mod 2^32 (unsigned, F(0) = 0, F(1) = 1) by an iterative loop
// run: --grid 2 --block 4 --arg k=[0,1,2,10,20,30,46,47] --arg fib=[0,0,0,0,0,0,0,0] --arg n=8
// run: --grid 1 --block 4 --arg k=[50,93,3] --arg fib=[0,0,0] --arg n=3
extern "C" __global__ void fibonacci(const int *k, unsigned *fib, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned a = 0, b = 1;
  for (int j = 0; j < k[i]; j++) {
    unsigned t = a + b;
    a = b;
    b = t;
  }
  fib[i] = a;
}
