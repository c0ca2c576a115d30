// rgba_to_greyscale: greyImage[r * numCols + c] = .299 R + .587 G + .114 B of the RGBA pixel (uchar4) at row r, column c, truncated to a byte, over a 2D grid of 2D blocks
// from: Udacity CS344 (Intro to Parallel Programming), Problem Set 1, student_func.cu (rgba_to_greyscale, the usual 2D-index solution); changed: the image arrives as its bytes (const unsigned char *, read as uchar4 through reinterpret_cast: uchar4 arrays are no parameter type here) and .299f * R + .587f * G + .114f * B is written as fmaf(.114f, B, fmaf(.587f, G, .299f * R)) so that clang and the oracle round it alike; 8x6 -> 5x6 and 3x4 images, 4x4 and 4x2 blocks
// run: --grid 2,2 --block 4,4 --arg rgbaBytes=[255,255,255,255,0,0,0,0,255,0,0,7,0,255,0,128,216,130,192,255,152,213,89,255,202,59,85,255,13,103,82,255,153,59,6,255,194,175,87,255,223,118,71,255,209,228,208,255,213,41,35,255,147,48,17,255,43,54,184,255,78,249,76,255,32,97,8,255,71,174,197,255,61,153,179,255,166,187,1,255,255,107,31,255,16,88,91,255,172,220,226,255,61,42,102,255,114,254,242,255,79,195,62,255,55,231,64,255,225,46,241,255,201,184,233,255,115,26,101,255] --arg greyImage=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg numRows=5 --arg numCols=6
// run: --grid 1,2 --block 4,2 --arg rgbaBytes=[25,228,57,255,55,108,2,255,11,186,221,255,47,102,117,255,165,196,100,255,3,148,151,255,40,164,206,255,114,151,40,255,214,189,164,255,154,182,151,255,55,100,248,255,189,193,159,255] --arg greyImage=[9,9,9,9,9,9,9,9,9,9,9,9] --arg numRows=3 --arg numCols=4
__global__
void rgba_to_greyscale(const unsigned char* const rgbaBytes,
                       unsigned char* const greyImage,
                       int numRows, int numCols)
{
  const uchar4* const rgbaImage = reinterpret_cast<const uchar4*>(rgbaBytes);
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < numRows && c < numCols) {
    uchar4 rgba = rgbaImage[r * numCols + c];
    float channelSum = fmaf(.114f, rgba.z, fmaf(.587f, rgba.y, .299f * rgba.x));
    greyImage[r * numCols + c] = channelSum;
  }
}
