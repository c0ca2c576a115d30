// is_prime: prime[i] = 1 when x[i] is prime, else 0, by trial division with odd divisors up to sqrt(x)
// run: --grid 3 --block 4 --arg x=[0,1,2,3,4,9,25,29,97,561,7919,65537] --arg prime=[0,0,0,0,0,0,0,0,0,0,0,0] --arg n=12
// run: --grid 1 --block 4 --arg x=[10007,9999,-7] --arg prime=[0,0,0] --arg n=3
static __device__ int prime_test(int v) {
  if (v < 2) return 0;
  if (v % 2 == 0) return v == 2;
  for (int d = 3; d <= v / d; d += 2)
    if (v % d == 0) return 0;
  return 1;
}

extern "C" __global__ void is_prime(const int *x, int *prime, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) prime[i] = prime_test(x[i]);
}
