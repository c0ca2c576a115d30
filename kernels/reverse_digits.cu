// reverse_digits: rev[i] = x[i] with its decimal digits reversed (sign kept), pal[i] = 1 when x[i] is a palindrome
// run: --grid 2 --block 4 --arg x=[0,7,10,123,-456,12321,1200,-9889] --arg rev=[0,0,0,0,0,0,0,0] --arg pal=[0,0,0,0,0,0,0,0] --arg n=8
// run: --grid 1 --block 4 --arg x=[1000000001,45] --arg rev=[0,0] --arg pal=[0,0] --arg n=2
extern "C" __global__ void reverse_digits(const int *x, int *rev, int *pal, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = x[i], r = 0;
  while (v != 0) {
    r = r * 10 + v % 10;  // % keeps the sign of v, so r gets the sign of x
    v /= 10;
  }
  rev[i] = r;
  pal[i] = r == x[i];
}
