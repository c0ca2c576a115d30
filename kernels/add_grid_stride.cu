// add_grid_stride: y[i] = x[i] + y[i] for i < n, every thread striding by the grid's thread count
// from: NVIDIA Developer Blog, "An Even Easier Introduction to CUDA" (Mark Harris, 2017) (add, the grid-stride version, as written), 4- to 16-thread blocks
// run: --grid 2 --block 16 --arg n=45 --arg x=[-3.69,5.4,-8.25,-4.26,-2.19,7.91,-3.04,1.88,-7.99,-6.56,3.98,1.06,4.41,-1.17,-0.22,-5.99,-5.53,-8.98,-6.64,-0.987,1.84,4.75,2.86,6.31,4.74,-9.82,7.76,-0.0631,-1.29,-8.25,-6.93,-8.68,-8.16,5.74,-2.53,5.58,9.69,2.46,-5.89,-6.82,9.3,-0.152,-3.27,9.11,-6.61] --arg y=[-1.75,-1.85,7.96,7.96,-3.86,6.97,9.16,6.72,-9.5,9.6,-4.81,5.98,-6.58,1.54,-1.98,3.79,5.37,6.89,6.62,7.47,2.4,0.636,5.64,2.43,5.91,-2.36,9.12,7.81,-6.08,5.9,0.963,2.08,6.03,3.46,3.38,7.64,-6.96,-8.64,-4.27,-2.82,-7.38,-9.15,-0.348,7.2,5.55]
// run: --grid 3 --block 4 --arg n=7 --arg x=[1,1,1,1,1,1,1] --arg y=[2,2,2,2,2,2,2]
__global__
void add(int n, float *x, float *y)
{
  int index = blockIdx.x * blockDim.x + threadIdx.x;
  int stride = blockDim.x * gridDim.x;
  for (int i = index; i < n; i += stride)
    y[i] = x[i] + y[i];
}
