// reduce_sum_shared: out[b] = sum of the 16 values of block b, by a tree reduction in __shared__ memory (block 16)
// run: --grid 1 --block 16 --arg in=[10,20,30,40,50,60,70,80,90,100,110,120,130,140,150,160] --arg out=[0]
// run: --grid 2 --block 16 --arg in=[-33,22,47,-42,-18,-35,13,47,7,10,33,-2,50,-24,-38,12,-47,-1,5,27,47,48,-50,39,7,-16,42,-21,25,-37,-10,-47] --arg out=[0,0]
// Each of the 4 warps of the block holds 4 threads; levels 8, 4, 2, 1 read what other warps
// wrote at the previous level, so a barrier separates the levels.
extern "C" __global__ void reduce_sum_shared(const int *in, int *out) {
  __shared__ int buf[16];
  unsigned t = threadIdx.x;
  buf[t] = in[blockIdx.x * 16 + t];
  __syncthreads();
  for (unsigned s = 8; s > 0; s >>= 1) {
    if (t < s) buf[t] += buf[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = buf[0];
}
