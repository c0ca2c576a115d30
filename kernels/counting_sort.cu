// counting_sort: sorts 16 keys in 0..7 stably (block 16): a __shared__ histogram by atomicAdd, a serial scan by thread 0, then ranks
// run: --grid 1 --block 16 --arg keys=[3,1,4,1,5,7,2,6,5,3,5,0,7,7,1,2] --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
// run: --grid 1 --block 16 --arg keys=[0,0,0,0,0,0,0,0,7,7,7,7,7,7,7,7] --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
extern "C" __global__ void counting_sort(const int *keys, int *out) {
  __shared__ int count[8];
  __shared__ int key[16];
  int t = threadIdx.x;
  int k = keys[t];
  key[t] = k;
  if (t < 8) count[t] = 0;
  __syncthreads();
  atomicAdd(&count[k], 1);
  __syncthreads();
  if (t == 0) {  // exclusive scan: count[b] becomes the first slot of bucket b
    int sum = 0;
    for (int b = 0; b < 8; b++) {
      int c = count[b];
      count[b] = sum;
      sum += c;
    }
  }
  __syncthreads();
  int pos = count[k];
  for (int j = 0; j < t; j++) pos += key[j] == k;  // equal keys to the left keep their order
  out[pos] = k;
}
