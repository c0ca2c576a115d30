// gray_code: gray[i] = x ^ (x >> 1) and back[i] = the inverse Gray code of x[i] by a prefix-xor loop
// run: --grid 2 --block 4 --arg x=[0,1,2,3,4,7,8,255] --arg gray=[0,0,0,0,0,0,0,0] --arg back=[0,0,0,0,0,0,0,0] --arg n=8
// run: --grid 1 --block 4 --arg x=[-1,1431655765,1000000] --arg gray=[0,0,0] --arg back=[0,0,0] --arg n=3
extern "C" __global__ void gray_code(const unsigned *x, unsigned *gray, unsigned *back, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned v = x[i];
  gray[i] = v ^ (v >> 1);
  unsigned b = v;
  for (unsigned s = v >> 1; s != 0; s >>= 1) b ^= s;
  back[i] = b;
}
