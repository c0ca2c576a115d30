// saxpy_grid_stride: y[i] = a*x[i] + y[i] for i < n, a grid-stride loop (one fused multiply-add per element, as clang contracts it)
// from: NVIDIA Developer Blog, "CUDA Pro Tip: Write Flexible Kernels with Grid-Stride Loops" (Mark Harris, 2013) (saxpy, as written), 4- to 16-thread blocks
// oracle: contract
// run: --grid 2 --block 4 --arg n=30 --arg a=2.5 --arg x=[-8.25,1.68,-2.04,8.29,2.29,0.45,8.76,-4.29,6.97,-1.56,3.52,9.37,6.14,2.09,6.11,-9.51,-1.43,7.19,5.06,-0.978,-5.41,-3.06,-1.41,-7.69,8.74,2.96,0.595,-6.36,-3.55,-1.75] --arg y=[0.2,1.94,-3.95,8.6,4.59,5.22,-0.838,6.71,4.68,1.85,-7.88,-0.997,9.41,1.16,-2.43,2.57,-7.16,-3.43,5.59,-0.575,-2.26,9.47,0.431,-0.97,-8.36,1.92,-0.123,-4.36,8.64,2.46]
// run: --grid 1 --block 16 --arg n=20 --arg a=-0.1 --arg x=[-8.95,-8.26,-1.86,-7.85,8.02,-9.24,0.724,-3.36,7.04,-6.81,-3.26,-3.32,-5.1,-9.97,-1.27,-8.25,1.95,-8.6,-3.69,-1.03] --arg y=[9.22,0.965,-6.46,9.31,-1.68,5.75,-9.37,-6.69,9.36,6.31,-9.56,-0.523,-1.49,-5.42,-7.97,-3.68,-7.16,-6.18,7.28,-2.87]
// run: --grid 3 --block 8 --arg n=5 --arg a=3 --arg x=[1,2,3,0.1,1e38] --arg y=[1,-6,0,0.7,1e38]
__global__
void saxpy(int n, float a, float *x, float *y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x;
         i < n;
         i += blockDim.x * gridDim.x)
      {
          y[i] = a * x[i] + y[i];
      }
}
