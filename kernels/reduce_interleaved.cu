// reduce_interleaved: out[b] = sum of block b's 8 values by the interleaved (tid % 2s == 0) tree, the divergent classic
// run: --grid 2 --block 8 --arg in=[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16] --arg out=[0,0]
// run: --grid 3 --block 8 --arg in=[-955,-948,330,108,-982,923,804,-220,405,-557,984,-136,486,-941,80,-546,564,-104,923,15,132,-523,-293,-528] --arg out=[0,0,0]
extern "C" __global__ void reduce_interleaved(const int *in, int *out) {
  __shared__ int sdata[8];
  unsigned tid = threadIdx.x;
  sdata[tid] = in[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}
