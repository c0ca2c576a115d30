// warp_sum_xor: out[i] = sum of the 4 values of thread i's warp, by a butterfly of __shfl_xor_sync: every lane gets the sum
// run: --grid 1 --block 16 --arg in=[1,2,3,4,10,20,30,40,-1,-2,-3,-4,7,0,0,0] --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
// run: --grid 3 --block 4 --arg in=[5,6,7,8,-100,50,25,25,2147483647,1,1,1] --arg out=[9,9,9,9,9,9,9,9,9,9,9,9]
// run: --grid 2 --block 8 --arg in=[11,22,33,44,55,66,77,88,-9,8,-7,6,-5,4,-3,2] --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
// Lane masks 1 then 2: after the first step each pair holds its pair sum, after the second
// each lane holds its pair's sum plus the other pair's.
extern "C" __global__ void warp_sum_xor(const int *in, int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  for (int mask = 1; mask < warpSize; mask *= 2)
    v += __shfl_xor_sync(0xffffffff, v, mask);
  out[i] = v;
}
