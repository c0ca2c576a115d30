// rotate_bits: rotl[i] = x[i] rotated left by k[i] & 31, rotr[i] = rotated right (shifts and or; k = 0 handled)
// run: --grid 2 --block 4 --arg x=[1,-2147483648,305419896,-1,15,255,0,123456789] --arg k=[1,1,4,13,0,28,5,32] --arg rotl=[0,0,0,0,0,0,0,0] --arg rotr=[0,0,0,0,0,0,0,0] --arg n=8
extern "C" __global__ void rotate_bits(const unsigned *x, const int *k, unsigned *rotl,
                                       unsigned *rotr, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned v = x[i];
  int s = k[i] & 31;
  rotl[i] = s == 0 ? v : (v << s) | (v >> (32 - s));
  rotr[i] = s == 0 ? v : (v >> s) | (v << (32 - s));
}
