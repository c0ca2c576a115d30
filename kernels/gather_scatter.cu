// gather_scatter: gather out[i] = in[idx[i]]; scatter out[idx[i]] = in[i] (idx a permutation)
// run: --kernel gather --grid 2 --block 4 --arg in=[10,20,30,40,50,60] --arg idx=[5,0,4,1,3,2] --arg out=[0,0,0,0,0,0] --arg n=6
// run: --kernel scatter --grid 2 --block 4 --arg in=[10,20,30,40,50,60] --arg idx=[5,0,4,1,3,2] --arg out=[0,0,0,0,0,0] --arg n=6
// run: --kernel gather --grid 1 --block 4 --arg in=[7,-7] --arg idx=[1,1,0,1] --arg out=[0,0,0,0] --arg n=4
extern "C" __global__ void gather(const int *in, const int *idx, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[idx[i]];
}

extern "C" __global__ void scatter(const int *in, const int *idx, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[idx[i]] = in[i];
}
