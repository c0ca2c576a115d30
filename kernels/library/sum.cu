// sum: out[0] = values[0] + ... + values[n-1], in 32-bit integers (the host rejects a sum
// that would overflow). Parameters: values (n words, 1 <= n <= 100), out (1 word), n.
// Launch: one CUDA block of B threads, B = the smallest power of two >= min(n, 16) (16 when the
// __shared__ copies of smaller blocks do not fit); thread t
// adds values t, t+B, ...; a tree in __shared__ adds the B partial sums.
// run: --grid 1 --block 4 --arg values=[12,7,30,5] --arg out=[0] --arg n=4
// run: --grid 1 --block 16 --arg values=[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20] --arg out=[0] --arg n=20
extern "C" __global__ void sum(const int *values, int *out, int n) {
  __shared__ int buf[16];
  int t = threadIdx.x;
  int acc = 0;
  for (int i = t; i < n; i += blockDim.x) acc += values[i];
  buf[t] = acc;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) buf[t] += buf[t + s];
    __syncthreads();
  }
  if (t == 0) out[0] = buf[0];
}
