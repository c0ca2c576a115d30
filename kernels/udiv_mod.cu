// udiv_mod: unsigned division: q10 = x / 10, r10 = x % 10, q3 = x / 3, qd = x / d[i], rd = x % d[i] (big values)
// run: --grid 2 --block 4 --arg x=[0,9,10,99,-1,-2147483648,2147483647,123456789] --arg d=[1,2,3,-1,7,-2147483648,65536,1000] --arg q10=[0,0,0,0,0,0,0,0] --arg r10=[0,0,0,0,0,0,0,0] --arg q3=[0,0,0,0,0,0,0,0] --arg qd=[0,0,0,0,0,0,0,0] --arg rd=[0,0,0,0,0,0,0,0] --arg n=8
extern "C" __global__ void udiv_mod(const unsigned *x, const unsigned *d, unsigned *q10,
                                    unsigned *r10, unsigned *q3, unsigned *qd, unsigned *rd,
                                    int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned v = x[i];
  q10[i] = v / 10;
  r10[i] = v % 10;
  q3[i] = v / 3;
  qd[i] = v / d[i];
  rd[i] = v % d[i];
}
