// vector_op: c[i] = a[i] OP b[i] elementwise; op 0 add, 1 sub (a - b), 2 mul, 3 min, 4 max
// (the host maps the tool's "add", "sub", "mul", "min", "max" to these and rejects a result
// that would overflow). Parameters: a, b, c (n words each, 1 <= n <= 40), n, op.
// Launch: ceil(n / B) CUDA blocks of B threads, B = min(n, 16) rounded up to a multiple of
// 4; one thread per element.
// run: --grid 1 --block 4 --arg a=[1,2,3] --arg b=[10,20,30] --arg c=[0,0,0] --arg n=3 --arg op=0
// run: --grid 2 --block 16 --arg a=[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18] --arg b=[3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3] --arg c=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg n=18 --arg op=2
extern "C" __global__ void vector_op(const int *a, const int *b, int *c, int n, int op) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = a[i], y = b[i], r;
  if (op == 0) r = x + y;
  else if (op == 1) r = x - y;
  else if (op == 2) r = x * y;
  else if (op == 3) r = min(x, y);
  else r = max(x, y);
  c[i] = r;
}
