// int_to_float_edges: f[i] = (float)x[i] (nearest even: 16777217 -> 16777216, INT_MAX -> 2^31) and u[i] = __uint2float_rn((unsigned)x[i])
// run: --grid 2 --block 8 --arg x=[0,1,-1,16777216,16777217,16777218,16777219,-16777217,2147483647,-2147483648,2147483520,2147483584,33554435,-33554435,123456789,-7] --arg f=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg u=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
// run: --grid 1 --block 3 --arg x=[-1,-129,4095] --arg f=[0,0,0] --arg u=[0,0,0]
// As unsigned, -1 is 0xffffffff -> 2^32 and -2147483648 is 2^31 exactly.
extern "C" __global__ void int_to_float_edges(const int *x, float *f, float *u) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  f[i] = (float)x[i];
  u[i] = __uint2float_rn((unsigned)x[i]);
}
