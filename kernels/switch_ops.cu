// switch_ops: r[i] = a op b for op[i] in 0..7 (add, sub, mul, and, or, xor, shl by b & 31, min), -1 for unknown ops
// run: --grid 3 --block 4 --arg op=[0,1,2,3,4,5,6,7,8,-1,0,6] --arg a=[5,5,5,12,12,12,1,-3,1,1,-7,-1] --arg b=[3,3,3,10,10,10,4,2,1,1,7,31] --arg r=[0,0,0,0,0,0,0,0,0,0,0,0] --arg n=12
// run: --grid 1 --block 4 --arg op=[2,2,7] --arg a=[65536,-46341,0] --arg b=[65536,46341,0] --arg r=[0,0,0] --arg n=3
extern "C" __global__ void switch_ops(const int *op, const int *a, const int *b, int *r, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = a[i], y = b[i], v;
  switch (op[i]) {
    case 0: v = x + y; break;
    case 1: v = x - y; break;
    case 2: v = (int)((unsigned)x * (unsigned)y); break;
    case 3: v = x & y; break;
    case 4: v = x | y; break;
    case 5: v = x ^ y; break;
    case 6: v = (int)((unsigned)x << (y & 31)); break;
    case 7: v = min(x, y); break;
    default: v = -1; break;
  }
  r[i] = v;
}
