// saxpy_int: y[i] = a * x[i] + y[i] for i < n (integer saxpy, wraps on overflow)
// run: --grid 4 --block 4 --arg a=3 --arg x=[1,2,3,4,5,6,7,8,9,10,11,12,13] --arg y=[100,100,100,100,100,100,100,100,100,100,100,100,100] --arg n=13
// run: --grid 1 --block 16 --arg a=-7 --arg x=[5,-5,0,1,-1,300,-300,65536,1000000,7,8,9] --arg y=[1,2,3,4,5,6,7,8,9,10,11,12] --arg n=12
extern "C" __global__ void saxpy_int(int a, const int *x, int *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
