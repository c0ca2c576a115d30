// vecadd: c[i] = a[i] + b[i] for i < n, with n not a multiple of the block size
// run: --grid 3 --block 4 --arg a=[1,2,3,4,5,6,7,8,9,10] --arg b=[10,20,30,40,50,60,70,80,90,100] --arg c=[0,0,0,0,0,0,0,0,0,0] --arg n=10
// run: --grid 2 --block 3 --arg a=[-5,7,1000,-2147483647,2147483647] --arg b=[5,-8,24,-1,1] --arg c=[0,0,0,0,0] --arg n=5
extern "C" __global__ void vecadd(const int *a, const int *b, int *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
