// collatz_steps: steps[i] = number of Collatz steps (n -> n/2 or 3n+1) from x[i] down to 1; trip counts differ per lane
// run: --grid 2 --block 4 --arg x=[1,2,3,6,7,9,27,97] --arg steps=[0,0,0,0,0,0,0,0] --arg n=8
// run: --grid 2 --block 4 --arg x=[5,8,16,31,41] --arg steps=[0,0,0,0,0] --arg n=5
extern "C" __global__ void collatz_steps(const int *x, int *steps, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned v = x[i];
  int count = 0;
  while (v != 1) {
    v = (v & 1) ? 3 * v + 1 : v / 2;
    count++;
  }
  steps[i] = count;
}
