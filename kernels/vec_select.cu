// vec_select: out[i] = a[i] > b[i] ? a[i] - b[i] : 2 * b[i]; eq[i] = (a[i] == b[i])
// run: --grid 2 --block 4 --arg a=[5,1,3,3,-2,10,0,-7] --arg b=[1,5,3,4,-3,-10,0,-6] --arg out=[0,0,0,0,0,0,0,0] --arg eq=[0,0,0,0,0,0,0,0] --arg n=8
// run: --grid 2 --block 4 --arg a=[9,8,7,6,5] --arg b=[5,6,7,8,9] --arg out=[0,0,0,0,0] --arg eq=[0,0,0,0,0] --arg n=5
extern "C" __global__ void vec_select(const int *a, const int *b, int *out, int *eq, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = a[i] > b[i] ? a[i] - b[i] : 2 * b[i];
    eq[i] = a[i] == b[i];
  }
}
