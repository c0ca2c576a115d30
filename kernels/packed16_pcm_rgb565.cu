// packed16_pcm_rgb565: mix_pcm16: out[i] = a[i] + b[i] clamped to -32768..32767 (16-bit PCM audio mixing); rgba_to_rgb565: out[i] = R>>3 << 11 | G>>2 << 5 | B>>3 of the uchar4 pixel i, a 16-bit RGB565 pixel; adjacent threads write the two halves of a memory word
// from: written for this corpus (no single published source): the saturating 16-bit PCM mix of audio code (the int sum clamped to SHRT_MIN..SHRT_MAX, written -32768 and 32767) and the RGB888 -> RGB565 packing of display code, as one-thread-per-element kernels in the style of the NVIDIA blog's saxpy (i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n)); 8- and 16-thread blocks
// run: --grid 2 --block 16 --kernel mix_pcm16 --arg a=[32767,-32768,1000,-1000,20000,-20000,16384,-16384,1,-1,0,32000,-32000,12345,-12345,30000,7,8,-9] --arg b=[1,-1,-1000,1000,20000,-20000,16384,-16383,-1,1,0,767,-769,-12345,12345,-30000,-7,9,10] --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg n=19
// run: --grid 3 --block 8 --kernel mix_pcm16 --arg a=[32767,-32768,1000,-1000,20000,-20000,16384,-16384,1,-1,0] --arg b=[-20000,16384,-16383,-1,1,0,767,-769,-12345,12345,-30000] --arg out=[-5,-5,-5,-5,-5,-5,-5,-5,-5,-5,-5] --arg n=11
// run: --grid 2 --block 8 --kernel rgba_to_rgb565 --arg rgba=[255,255,255,255,0,0,0,255,255,0,0,255,0,255,0,255,0,0,255,255,128,64,32,255,7,3,7,255,8,4,8,255,200,150,100,255,31,127,248,255,129,130,131,255] --arg out=[0,0,0,0,0,0,0,0,0,0,0] --arg n=11
__global__ void mix_pcm16(const short *a, const short *b, short *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int s = a[i] + b[i];
    out[i] = (short)min(max(s, -32768), 32767);
  }
}

__global__ void rgba_to_rgb565(const unsigned char *rgba, unsigned short *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const uchar4 p = reinterpret_cast<const uchar4 *>(rgba)[i];
    out[i] = (unsigned short)((p.x >> 3) << 11 | (p.y >> 2) << 5 | p.z >> 3);
  }
}
