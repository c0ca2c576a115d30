// bitfield: get[i] = bits [pos, pos+len) of x[i]; put[i] = x[i] with those bits replaced by the low bits of y[i]
// run: --grid 2 --block 4 --arg x=[-1,305419896,0,255,-1,1,-2147483648,12345] --arg y=[0,15,-1,3,5,1,1,0] --arg pos=[0,4,8,2,28,0,31,3] --arg len=[8,8,4,4,4,1,1,12] --arg get=[0,0,0,0,0,0,0,0] --arg put=[0,0,0,0,0,0,0,0] --arg n=8
extern "C" __global__ void bitfield(const unsigned *x, const unsigned *y, const int *pos,
                                    const int *len, unsigned *get, unsigned *put, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int p = pos[i], l = len[i];  // 0 <= p, 1 <= l, p + l <= 32 (l < 32)
  unsigned mask = ((1u << l) - 1) << p;
  get[i] = (x[i] & mask) >> p;
  put[i] = (x[i] & ~mask) | ((y[i] << p) & mask);
}
