// adjacent_diff: d[0] = in[0], d[i] = in[i] - in[i-1] for 0 < i < n (each thread reads a neighbour)
// run: --grid 3 --block 4 --arg in=[1,4,9,16,25,36,49,64,81,100] --arg d=[0,0,0,0,0,0,0,0,0,0] --arg n=10
// run: --grid 1 --block 8 --arg in=[5,3,-2,-2,7] --arg d=[0,0,0,0,0] --arg n=5
extern "C" __global__ void adjacent_diff(const int *in, int *d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  d[i] = i == 0 ? in[0] : in[i] - in[i - 1];
}
