// caesar_text: rot[i] = text[i] shifted by k within 'a'..'z' or 'A'..'Z' (other codes unchanged); up[i] = upper-cased text[i]
// run: --grid 3 --block 4 --arg text=[72,101,108,108,111,44,32,87,111,114,108,100] --arg rot=[0,0,0,0,0,0,0,0,0,0,0,0] --arg up=[0,0,0,0,0,0,0,0,0,0,0,0] --arg k=13 --arg n=12
// run: --grid 3 --block 4 --arg text=[120,121,122,88,89,90,32,48,57] --arg rot=[0,0,0,0,0,0,0,0,0] --arg up=[0,0,0,0,0,0,0,0,0] --arg k=3 --arg n=9
extern "C" __global__ void caesar_text(const int *text, int *rot, int *up, int k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int c = text[i];
  if (c >= 'a' && c <= 'z')
    rot[i] = 'a' + (c - 'a' + k) % 26;
  else if (c >= 'A' && c <= 'Z')
    rot[i] = 'A' + (c - 'A' + k) % 26;
  else
    rot[i] = c;
  up[i] = c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c;
}
