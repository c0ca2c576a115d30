// parity_branch: out[i] = 3*x+1 on even threads, x/2 on odd threads: the two halves of each warp take different paths
// run: --grid 2 --block 4 --arg x=[1,2,3,4,5,6,7,-9] --arg out=[0,0,0,0,0,0,0,0] --arg n=8
// run: --grid 1 --block 16 --arg x=[-8,-7,-6,-5,-4,-3,-2,-1,0,1,2,3,4,5,6,7] --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg n=13
extern "C" __global__ void parity_branch(const int *x, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = x[i];
  if ((threadIdx.x & 1) == 0)
    v = 3 * v + 1;
  else
    v = v / 2;
  out[i] = v;
}
