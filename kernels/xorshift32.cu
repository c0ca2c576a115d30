// xorshift32: out[i] = the state of Marsaglia's xorshift32 generator after steps iterations from seed[i] (large values)
// run: --grid 2 --block 4 --arg seed=[1,2,3,42,-1831433054,-1,7,123456789] --arg out=[0,0,0,0,0,0,0,0] --arg steps=1 --arg n=8
// run: --grid 1 --block 4 --arg seed=[1,99,-5] --arg out=[0,0,0] --arg steps=10 --arg n=3
extern "C" __global__ void xorshift32(const unsigned *seed, unsigned *out, int steps, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned s = seed[i];
  for (int k = 0; k < steps; k++) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
  }
  out[i] = s;
}
