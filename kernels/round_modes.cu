// round_modes: fl/ce/tr/ri[i] = floorf, ceilf, truncf, rintf of x[i] (rintf: halves to even), on halves, negatives, 2^23 + 0.5, -0, NaN, inf
// run: --grid 2 --block 6 --arg x=[0.5,1.5,2.5,-0.5,-1.5,-2.5,8388607.5,8388608,-0,nan,-inf,1e-45] --arg fl=[0,0,0,0,0,0,0,0,0,0,0,0] --arg ce=[0,0,0,0,0,0,0,0,0,0,0,0] --arg tr=[0,0,0,0,0,0,0,0,0,0,0,0] --arg ri=[0,0,0,0,0,0,0,0,0,0,0,0]
// run: --grid 1 --block 4 --arg x=[-0.3,0.49999997,-1e30,3.7] --arg fl=[0,0,0,0] --arg ce=[0,0,0,0] --arg tr=[0,0,0,0] --arg ri=[0,0,0,0]
// ceilf(-0.5) and truncf(-0.3) are -0; 8388607.5 is the largest float with a .5.
extern "C" __global__ void round_modes(const float *x, float *fl, float *ce, float *tr, float *ri) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = x[i];
  fl[i] = floorf(v);
  ce[i] = ceilf(v);
  tr[i] = truncf(v);
  ri[i] = rintf(v);
}
