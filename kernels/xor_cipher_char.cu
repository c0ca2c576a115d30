// xor_cipher_char: out[i] = in[i] ^ key over a char buffer (key a char parameter), each thread writing its own byte, so the four bytes of a memory word come from four threads (grid-stride loop)
// from: written for this corpus (no single published source): the single-byte XOR cipher of GPU-programming exercises (one thread per character, out[i] = in[i] ^ key), with the grid-stride loop of NVIDIA Developer Blog, "CUDA Pro Tip: Write Flexible Kernels with Grid-Stride Loops" (Harris, 2013); 8- and 16-thread blocks
// run: --grid 2 --block 8 --arg in=[97,116,116,97,99,107,32,97,116,32,100,97,119,110,33,-128,-1,127,0,-86,85,1] --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg key=90 --arg n=22
// run: --grid 2 --block 16 --arg in=[5,-104,26,-54,68,-100,-29,-110,122,-125,39,56,123,117,-1,37,-9,-13,68,64,61,-29,-63,51,61,-58,-2,-128,127,-114,-73,-128,-43,33,85,-13,105,77,-86,35,94,-43,59,27,-86] --arg out=[-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1,-1] --arg key=-91 --arg n=45
// run: --grid 5 --block 3 --arg in=[97,116,116,97,99,107,32,97,116,32,100,97,119,110,33,-128,-1,127,0,-86,85,1] --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg key=-128 --arg n=19
__global__ void xor_cipher(const char *in, char *out, char key, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = in[i] ^ key;
}
