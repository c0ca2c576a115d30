// distance2: d[i] = |p_i - q|^2 for 3-d points p_i (xyz interleaved) and the point q = (qx, qy, qz): fmaf(dx, dx, fmaf(dy, dy, dz * dz))
// run: --grid 2 --block 3 --arg p=[0,0,0,1,0,0,0,2,0,1,1,1,0.1,0.2,0.3,-1,-2,-3] --arg qx=0 --arg qy=0 --arg qz=0 --arg d=[0,0,0,0,0,0]
// run: --grid 1 --block 4 --arg p=[1.5,2.5,3.5,1e20,0,0,1e-20,1e-20,1e-20,0.1,0.1,0.1] --arg qx=0.5 --arg qy=0.5 --arg qz=0.5 --arg d=[0,0,0,0]
extern "C" __global__ void distance2(const float *p, float qx, float qy, float qz, float *d) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float dx = p[3 * i] - qx, dy = p[3 * i + 1] - qy, dz = p[3 * i + 2] - qz;
  d[i] = fmaf(dx, dx, fmaf(dy, dy, dz * dz));
}
