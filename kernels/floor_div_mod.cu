// floor_div_mod: fq[i], fr[i]: Python-style floor division and modulo of a by nonzero b (the remainder takes b's sign)
// run: --grid 3 --block 4 --arg a=[7,-7,7,-7,0,6,-6,1,-1,13,-13,100] --arg b=[2,2,-2,-2,5,3,3,4,4,-5,-5,-7] --arg fq=[0,0,0,0,0,0,0,0,0,0,0,0] --arg fr=[0,0,0,0,0,0,0,0,0,0,0,0] --arg n=12
extern "C" __global__ void floor_div_mod(const int *a, const int *b, int *fq, int *fr, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = a[i], y = b[i];
  int q = x / y, r = x % y;
  if (r != 0 && ((r < 0) != (y < 0))) {  // truncation went the wrong way: step down once
    q -= 1;
    r += y;
  }
  fq[i] = q;
  fr[i] = r;
}
