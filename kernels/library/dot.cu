// dot: out[0] = a[0]*b[0] + ... + a[n-1]*b[n-1], in 32-bit integers (the host rejects a dot
// product that would overflow). Parameters: a, b (n words each, 1 <= n <= 50), out (1 word), n.
// Launch: one CUDA block of B threads, B = the smallest power of two >= min(n, 16) (16 when the
// __shared__ copies of smaller blocks do not fit); thread t
// adds the products t, t+B, ...; a tree in __shared__ adds the B partial sums.
// run: --grid 1 --block 4 --arg a=[1,2,3] --arg b=[4,5,6] --arg out=[0] --arg n=3
// run: --grid 1 --block 16 --arg a=[1,-2,3,-4,5,-6,7,-8,9,-10,11,-12,13,-14,15,-16,17] --arg b=[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,2] --arg out=[0] --arg n=17
extern "C" __global__ void dot(const int *a, const int *b, int *out, int n) {
  __shared__ int buf[16];
  int t = threadIdx.x;
  int acc = 0;
  for (int i = t; i < n; i += blockDim.x) acc += a[i] * b[i];
  buf[t] = acc;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) buf[t] += buf[t + s];
    __syncthreads();
  }
  if (t == 0) out[0] = buf[0];
}
