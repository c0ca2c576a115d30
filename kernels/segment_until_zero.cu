// segment_until_zero: len[s] and sum[s]: each thread walks its segment s of seg words and stops at the first 0 (a sentinel)
// run: --grid 1 --block 4 --arg data=[3,1,4,0,0,9,9,9,5,5,5,5,2,0,7,7] --arg len=[0,0,0,0] --arg sum=[0,0,0,0] --arg seg=4
// run: --grid 2 --block 2 --arg data=[1,2,3,0,5,6,0,0,0,0,0,0,8,8,0,1,1,1,9,9,9,9,9,0] --arg len=[0,0,0,0] --arg sum=[0,0,0,0] --arg seg=6
extern "C" __global__ void segment_until_zero(const int *data, int *len, int *sum, int seg) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  const int *p = data + s * seg;
  int k = 0, acc = 0;
  while (k < seg && p[k] != 0) {
    acc += p[k];
    k++;
  }
  len[s] = k;
  sum[s] = acc;
}
