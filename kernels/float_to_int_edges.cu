// float_to_int_edges: z[i] = __float2int_rz(x[i]), u[i] = __float2uint_rz(x[i]), r[i] = __float2int_rn(x[i]): truncate or round half to even, saturate, NaN -> 0
// run: --grid 2 --block 8 --arg x=[nan,inf,-inf,2147483648,-2147483904,-2147483648,0.5,-0.5,1.5,2.5,-2.5,1e10,1e-45,-0.99999994,4294967296,4294967040] --arg z=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg u=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg r=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
// run: --grid 1 --block 5 --arg x=[-1,3.999,-3.999,2147483520,0fff800001] --arg z=[0,0,0,0,0] --arg u=[0,0,0,0,0] --arg r=[0,0,0,0,0]
extern "C" __global__ void float_to_int_edges(const float *x, int *z, unsigned *u, int *r) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = x[i];
  z[i] = __float2int_rz(v);
  u[i] = __float2uint_rz(v);
  r[i] = __float2int_rn(v);
}
