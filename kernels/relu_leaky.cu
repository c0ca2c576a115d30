// relu_leaky: relu[i] = fmaxf(x[i], 0) (NaN -> 0), leaky[i] = x > 0 ? x : 0.01 x (NaN stays nan, -0 stays -0)
// run: --grid 2 --block 5 --arg x=[1,-1,0,-0,nan,1e-45,-1e-45,inf,-inf,-100] --arg relu=[0,0,0,0,0,0,0,0,0,0] --arg leaky=[0,0,0,0,0,0,0,0,0,0]
// run: --grid 1 --block 3 --arg x=[0.5,-0.5,-3.4028235e38] --arg relu=[7,7,7] --arg leaky=[7,7,7]
extern "C" __global__ void relu_leaky(const float *x, float *relu, float *leaky) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = x[i];
  relu[i] = fmaxf(v, 0.0f);
  leaky[i] = v > 0.0f ? v : 0.01f * v;
}
