// warp_collatz_any: Collatz steps to 1 per lane (steps[i]), in a loop that runs until no lane of the warp is still going (__any_sync); rounds[w] = the loop's trips
// run: --grid 1 --block 8 --arg x=[1,2,3,6,7,1,1,1] --arg steps=[0,0,0,0,0,0,0,0] --arg rounds=[0,0]
// run: --grid 2 --block 4 --arg x=[27,1,2,4,5,5,5,5] --arg steps=[0,0,0,0,0,0,0,0] --arg rounds=[0,0]
// The loop condition is the same for every lane of a warp, so the vote is always made by
// the whole warp; a lane that reached 1 keeps taking trips without counting them. rounds[w]
// is the warp's largest steps[i] (x = 27 takes 111 steps).
extern "C" __global__ void warp_collatz_any(const int *x, int *steps, int *rounds) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = x[i];
  int s = 0, trips = 0;
  while (__any_sync(0xffffffff, v != 1)) {
    if (v != 1) {
      v = (v & 1) ? 3 * v + 1 : v / 2;
      s++;
    }
    trips++;
  }
  steps[i] = s;
  if (threadIdx.x % warpSize == 0) rounds[i / warpSize] = trips;
}
