// caesar_cipher_char: out[i] = in[i] shifted by offset (any sign) within 'a'..'z' or 'A'..'Z', every other char (negative UTF-8 bytes included) unchanged, for i < n
// from: the Caesar-cipher exercise of JHU EN605.617 (GPU programming), e.g. naterjlao/EN605.617 module4 (caesar_cipher(char *in, char *out, int offset): thread_idx = blockIdx.x * blockDim.x + threadIdx.x; the `while (temp < 0) temp += 26` wrap); changed: lower case handled as its own range instead of everything that is not upper case, non-letters copied, an `if (i < n)` bound, shrunk to 8- and 16-thread blocks
// run: --grid 2 --block 16 --arg in=[72,101,108,108,111,44,32,87,111,114,108,100,33,32,120,121,122,-61,-87,-128,127] --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg offset=3 --arg n=21
// run: --grid 3 --block 8 --arg in=[85,114,121,121,98,44,32,74,98,101,121,113,-1,0,96,123,64,91] --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg offset=13 --arg n=18
// run: --grid 1 --block 8 --arg in=[97,98,99,88,89,90,-61,-96] --arg out=[5,5,5,5,5,5,5,5] --arg offset=-29 --arg n=8
__global__ void caesar_cipher(const char *in, char *out, int offset, int n) {
  const unsigned int thread_idx = (blockIdx.x * blockDim.x) + threadIdx.x;
  if (thread_idx >= n) return;
  int temp = in[thread_idx];
  if (temp >= 'A' && temp <= 'Z') {
    temp += offset % 26 - 'A';
    while (temp < 0) temp += 26;
    temp = (temp % 26) + 'A';
  } else if (temp >= 'a' && temp <= 'z') {
    temp += offset % 26 - 'a';
    while (temp < 0) temp += 26;
    temp = (temp % 26) + 'a';
  }
  out[thread_idx] = temp;
}
