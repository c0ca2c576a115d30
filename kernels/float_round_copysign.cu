// float_round_copysign: r[i] = roundf(a[i]) (half away from zero), c[i] = copysignf(b[i], a[i]), e[i] = nearbyintf(a[i]) (half to even), q[i] = __frcp_rn(b[i]) on halves, the edges of truncation, zeros, subnormals, infinities and NaNs
// run: --grid 2 --block 4 --arg a=[0.5,-0.5,1.5,-2.5,0.49999997,-0.49999997,8388607.5,-8388607.5] --arg b=[3,-3,0,-0,7,1e-45,inf,-inf] --arg r=[0,0,0,0,0,0,0,0] --arg c=[0,0,0,0,0,0,0,0] --arg e=[0,0,0,0,0,0,0,0] --arg q=[0,0,0,0,0,0,0,0]
// run: --grid 2 --block 4 --arg a=[0,-0,1e-45,-1.1754942e-38,8388608,-16777215,3.4028235e38,-inf] --arg b=[nan,3e38,0.1,-10,2.5e-39,8.507059e37,-1.7014118e38,1] --arg r=[0,0,0,0,0,0,0,0] --arg c=[0,0,0,0,0,0,0,0] --arg e=[0,0,0,0,0,0,0,0] --arg q=[0,0,0,0,0,0,0,0]
// run: --grid 2 --block 4 --arg a=[nan,inf,2.5000002,-3.4999998,123456.5,-0.75,0.25,1e30] --arg b=[0.3,-0.7,1.0000001,-0.99999994,6e-39,-1e-38,12345.678,0.5] --arg r=[0,0,0,0,0,0,0,0] --arg c=[0,0,0,0,0,0,0,0] --arg e=[0,0,0,0,0,0,0,0] --arg q=[0,0,0,0,0,0,0,0]
// roundf is truncf, one exact subtraction, a compare and an add: no x + 0.5 rounding twice
// (0.49999997 rounds to 0). copysignf moves bits; __frcp_rn is 1 / b rounded once.
__global__ void float_round_copysign(const float *a, const float *b, float *r, float *c, float *e, float *q) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  r[k] = roundf(a[k]);
  c[k] = copysignf(b[k], a[k]);
  e[k] = nearbyintf(a[k]);
  q[k] = __frcp_rn(b[k]);
}
