// loop_break_continue: acc[i] = sum of j in 1..limit[i] skipping multiples of 3, stopping once the sum passes cap (per-lane exits)
// run: --grid 2 --block 4 --arg limit=[0,1,5,10,20,100,7,3] --arg acc=[0,0,0,0,0,0,0,0] --arg cap=50 --arg n=8
// run: --grid 1 --block 4 --arg limit=[1000,30,2] --arg acc=[0,0,0] --arg cap=200 --arg n=3
extern "C" __global__ void loop_break_continue(const int *limit, int *acc, int cap, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int s = 0;
  for (int j = 1; j <= limit[i]; j++) {
    if (j % 3 == 0) continue;
    s += j;
    if (s > cap) break;
  }
  acc[i] = s;
}
