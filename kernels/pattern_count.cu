// pattern_count: hit[i] = 1 where pat[0..m) occurs in text at i, and count[0] = number of occurrences (atomicAdd)
// run: --grid 2 --block 16 --arg text=[3,1,4,1,5,9,2,6,5,3,5,8,9,7,9,3,2,3,8,4,6,2,6,4,3,3,8,3,2,7,9,5] --arg pat=[3] --arg hit=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg count=[0] --arg m=1 --arg n=32
// run: --grid 2 --block 16 --arg text=[3,1,4,1,5,9,2,6,5,3,5,8,9,7,9,3,2,3,8,4,6,2,6,4,3,3,8,3,2,7,9,5] --arg pat=[2,6] --arg hit=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg count=[0] --arg m=2 --arg n=32
// run: --grid 3 --block 4 --arg text=[1,1,1,1,1,2,1,1] --arg pat=[1,1,1] --arg hit=[0,0,0,0,0,0,0,0] --arg count=[0] --arg m=3 --arg n=8
extern "C" __global__ void pattern_count(const int *text, const int *pat, int *hit, int *count,
                                         int m, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int ok = i + m <= n;
  for (int k = 0; ok && k < m; k++) ok = text[i + k] == pat[k];
  hit[i] = ok;
  if (ok) atomicAdd(count, 1);
}
