// warp_sum_down: sum[w] = sum of the 4 values of warp w, by a tree of __shfl_down_sync; lanes[i] = every lane's final partial (lane 0's is the sum)
// run: --grid 2 --block 8 --arg in=[1,2,3,4,10,20,30,40,-5,7,-9,11,100,-100,0,5] --arg sum=[0,0,0,0] --arg lanes=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
// run: --grid 1 --block 16 --arg in=[3,-1,4,-1,5,9,-2,6,5,3,-5,8,-9,7,9,-3] --arg sum=[0,0,0,0] --arg lanes=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
// run: --grid 3 --block 4 --arg in=[2147483647,1,0,0,-2147483648,-1,0,0,1000000,2000000,3000000,4000000] --arg sum=[0,0,0] --arg lanes=[0,0,0,0,0,0,0,0,0,0,0,0]
// Offsets 2 then 1: lane 0 ends with v0+v1+v2+v3. A lane whose source lane + offset is past
// the warp gets its own value back, so lane 1 ends with v1+v3+2*v2, lane 2 with 2*v2+2*v3,
// lane 3 with 4*v3 (the third case also wraps around 2^32).
extern "C" __global__ void warp_sum_down(const int *in, int *sum, int *lanes) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  for (int offset = warpSize / 2; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffff, v, offset);
  lanes[i] = v;
  if (threadIdx.x % warpSize == 0) sum[i / warpSize] = v;
}
