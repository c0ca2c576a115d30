// clamp_range: x[i] = min(max(x[i], lo), hi) in place, and relu[i] = max(x[i], 0) of the input
// run: --grid 3 --block 4 --arg x=[-20,-10,-5,-1,0,1,5,10,20,30,-300,300] --arg relu=[0,0,0,0,0,0,0,0,0,0,0,0] --arg lo=-5 --arg hi=10 --arg n=12
// run: --grid 2 --block 3 --arg x=[7,-8,9,-10,11] --arg relu=[0,0,0,0,0] --arg lo=0 --arg hi=0 --arg n=5
extern "C" __global__ void clamp_range(int *x, int *relu, int lo, int hi, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int v = x[i];
    relu[i] = max(v, 0);
    x[i] = min(max(v, lo), hi);
  }
}
