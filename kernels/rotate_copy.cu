// rotate_copy: out[(i + k) % n] = in[i] (rotate right by k, k may exceed n) and rev[n-1-i] = in[i]
// run: --grid 2 --block 4 --arg in=[10,11,12,13,14,15,16] --arg out=[0,0,0,0,0,0,0] --arg rev=[0,0,0,0,0,0,0] --arg k=3 --arg n=7
// run: --grid 1 --block 8 --arg in=[1,2,3,4,5] --arg out=[0,0,0,0,0] --arg rev=[0,0,0,0,0] --arg k=12 --arg n=5
extern "C" __global__ void rotate_copy(const int *in, int *out, int *rev, int k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[(i + k) % n] = in[i];
    rev[n - 1 - i] = in[i];
  }
}
