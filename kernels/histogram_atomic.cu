// histogram_atomic: bins[((x % nbins) + nbins) % nbins] += 1 for each x of data[0..n), by global atomicAdd (negative x wrap around)
// run: --grid 3 --block 16 --arg data=[35,40,34,-17,-15,-15,3,33,-10,27,31,22,34,-1,-4,18,-7,18,-18,17,23,-10,7,20,5,31,26,35,12,40,3,14,39,8,12,-3,37,-18,35,-19] --arg bins=[0,0,0,0,0,0,0,0] --arg nbins=8 --arg n=40
// run: --grid 2 --block 4 --arg data=[0,1,2,3,4,5,6,-1] --arg bins=[0,0,0] --arg nbins=3 --arg n=8
extern "C" __global__ void histogram_atomic(const int *data, int *bins, int nbins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int b = ((data[i] % nbins) + nbins) % nbins;
    atomicAdd(&bins[b], 1);
  }
}
