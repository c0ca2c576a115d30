// vectorized_copy: d_out[0..N) = d_in[0..N), four (int4) or two (int2) ints per load and store in a grid-stride loop, the last N%4 (N%2) elements by one thread
// from: NVIDIA Developer Blog, "CUDA Pro Tip: Increase Performance with Vectorized Memory Access" (Justin Luitjens, 2013) (device_copy_vector4_kernel and device_copy_vector2_kernel, as written), 4- and 8-thread blocks
// run: --grid 2 --block 4 --kernel device_copy_vector4_kernel --arg d_in=[554,80,611,132,784,915,51,28,-704,582,-175,566,309,429,-19,-884,260,-768,843,-904,-170,-12,-252,-129,-246,-890,485,-835,283,-538] --arg d_out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg N=30
// run: --grid 2 --block 8 --kernel device_copy_vector2_kernel --arg d_in=[-236,705,-387,-822,-45,-372,932,-131,-316,855,-128,-433,396,-521,-240,-619,579,-741,977,-187,-623] --arg d_out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg N=21
// run: --grid 1 --block 4 --kernel device_copy_vector4_kernel --arg d_in=[21,9,47,-28,-12,21,-16,17,-22,-47,-11,-31,8,19,35,45] --arg d_out=[-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1] --arg N=16
__global__ void device_copy_vector4_kernel(int* d_in, int* d_out, int N) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  for(int i = idx; i < N/4; i += blockDim.x * gridDim.x) {
    reinterpret_cast<int4*>(d_out)[i] = reinterpret_cast<int4*>(d_in)[i];
  }

  // in only one thread, process final elements (if there are any)
  int remainder = N%4;
  if (idx==N/4 && remainder!=0) {
    while(remainder) {
      int idx = N - remainder--;
      d_out[idx] = d_in[idx];
    }
  }
}

__global__ void device_copy_vector2_kernel(int* d_in, int* d_out, int N) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = idx; i < N/2; i += blockDim.x * gridDim.x) {
    reinterpret_cast<int2*>(d_out)[i] = reinterpret_cast<int2*>(d_in)[i];
  }

  // in only one thread, process final element (if there is one)
  if (idx==N/2 && N%2==1)
    d_out[N-1] = d_in[N-1];
}
