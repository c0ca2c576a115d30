// bitonic_sort_step: one compare-exchange step (j, k) of a bitonic sort of dev_values; the run lines are single steps (a sort is log2(n)*(log2(n)+1)/2 launches)
// from: the widely copied bitonic_sort.cu gist (bitonic_sort_step, "Bitonic Sort in CUDA", as written), float values, 4- and 8-thread blocks
// run: --grid 2 --block 4 --arg dev_values=[3,7,4,8,6,2,1,5] --arg j=1 --arg k=2
// run: --grid 2 --block 8 --arg dev_values=[1.62,-6.1,9.31,8.48,-0.657,3.27,-5.71,-5.57,-4.23,3.85,-5.75,9.42,-8.59,-6.13,-8.22,5.4] --arg j=4 --arg k=8
// run: --grid 4 --block 4 --arg dev_values=[1,3,5,7,9,11,13,15,16,14,12,10,8,6,4,-inf] --arg j=8 --arg k=16
__global__ void bitonic_sort_step(float *dev_values, int j, int k)
{
  unsigned int i, ixj; /* Sorting partners: i and ixj */
  i = threadIdx.x + blockDim.x * blockIdx.x;
  ixj = i^j;

  /* The threads with the lowest ids sort the array. */
  if ((ixj)>i) {
    if ((i&k)==0) {
      /* Sort ascending */
      if (dev_values[i]>dev_values[ixj]) {
        /* exchange(i,ixj); */
        float temp = dev_values[i];
        dev_values[i] = dev_values[ixj];
        dev_values[ixj] = temp;
      }
    }
    if ((i&k)!=0) {
      /* Sort descending */
      if (dev_values[i]<dev_values[ixj]) {
        /* exchange(i,ixj); */
        float temp = dev_values[i];
        dev_values[i] = dev_values[ixj];
        dev_values[ixj] = temp;
      }
    }
  }
}
