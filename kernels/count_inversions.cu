// count_inversions: inv[0] = number of pairs i < j with a[i] > a[j]: each thread counts its own pairs, then one atomicAdd
// run: --grid 3 --block 4 --arg a=[5,3,9,3,0,-2,7,5,5,1] --arg inv=[0] --arg n=10
// run: --grid 1 --block 16 --arg a=[16,15,14,13,12,11,10,9,8,7,6,5,4,3,2,1] --arg inv=[0] --arg n=16
extern "C" __global__ void count_inversions(const int *a, int *inv, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int c = 0;
  for (int j = i + 1; j < n; j++) c += a[i] > a[j];
  if (c != 0) atomicAdd(inv, c);
}
