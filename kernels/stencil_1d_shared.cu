// stencil_1d_shared: out[i] = in[i-1] + 2*in[i] + in[i+1] (0 outside [0, n)), each block of 4 staging its tile plus a halo in __shared__
// run: --grid 3 --block 4 --arg in=[1,2,3,4,5,6,7,8,9,10,11,12] --arg out=[0,0,0,0,0,0,0,0,0,0,0,0] --arg n=12
// run: --grid 3 --block 4 --arg in=[-2,0,-6,3,6,-5,-7,-7,-9,3] --arg out=[0,0,0,0,0,0,0,0,0,0] --arg n=10
// run: --grid 1 --block 4 --arg in=[5] --arg out=[0] --arg n=1
#define RADIUS 1
#define BLOCK 4

extern "C" __global__ void stencil_1d_shared(const int *in, int *out, int n) {
  __shared__ int s[BLOCK + 2 * RADIUS];
  int g = blockIdx.x * BLOCK + threadIdx.x;
  int l = threadIdx.x + RADIUS;
  s[l] = g < n ? in[g] : 0;
  if (threadIdx.x < RADIUS) {  // the first thread also loads the halo on both sides
    int left = g - RADIUS, right = g + BLOCK;
    s[l - RADIUS] = left >= 0 && left < n ? in[left] : 0;
    s[l + BLOCK] = right < n ? in[right] : 0;
  }
  __syncthreads();
  if (g < n) out[g] = s[l - 1] + 2 * s[l] + s[l + 1];
}
