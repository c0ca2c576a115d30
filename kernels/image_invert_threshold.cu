// image_invert_threshold: invert: out[i] = maxVal - in[i] (the negative of an 8-bit or 16-bit grey image, T = unsigned char or unsigned short); threshold: out[i] = in[i] > thresh ? 255 : 0, for i < n
// from: written for this corpus (no single published source) after the image-negative and binary-threshold kernels of CUDA image-processing tutorials (one thread per pixel, idx = blockIdx.x * blockDim.x + threadIdx.x, `if (idx < n)`), written here as a template over the pixel type; 16-thread and 8-thread blocks
// run: --grid 2 --block 16 --kernel 'invert<unsigned char>' --arg in=[0,255,1,254,127,128,200,55,17,240,99,100,101,250,3,64,192,33,222,111] --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg maxVal=255 --arg n=20
// run: --grid 2 --block 8 --kernel 'invert<unsigned short>' --arg in=[0,65535,1,65534,32767,32768,4095,40000,12345] --arg out=[0,0,0,0,0,0,0,0,0] --arg maxVal=65535 --arg n=9
// run: --grid 3 --block 8 --kernel threshold --arg in=[0,255,1,254,127,128,200,55,17,240,99,100,101,250,3,64,192,33,222,111] --arg out=[7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7,7] --arg thresh=127 --arg n=20
template <typename T>
__global__ void invert(const T *in, T *out, T maxVal, int n) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < n) out[idx] = maxVal - in[idx];
}

__global__ void threshold(const unsigned char *in, unsigned char *out, unsigned char thresh, int n) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < n) out[idx] = in[idx] > thresh ? 255 : 0;
}
