// kahan_sum: naive[r] and comp[r] = sum of row r's 8 floats, left to right, plain and with Kahan's compensation (__fadd_rn, __fsub_rn: never reassociated or fused)
// run: --grid 1 --block 3 --arg x=[1,1e-8,1e-8,1e-8,1e-8,1e-8,1e-8,1e-8,16777216,1,1,1,1,1,1,1,0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1] --arg naive=[0,0,0] --arg comp=[0,0,0]
// run: --grid 2 --block 2 --arg x=[1e8,1,-1e8,1,1,1,1,1,3,-3,1e-45,2,2,2,2,2,0.3,0.6,0.9,1.2,1.5,1.8,2.1,2.4,1e30,-1e30,1e-30,1e-30,0,0,0,0] --arg naive=[0,0,0,0] --arg comp=[0,0,0,0]
extern "C" __global__ void kahan_sum(const float *x, float *naive, float *comp) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  float plain = 0.0f, sum = 0.0f, c = 0.0f;
  for (int k = 0; k < 8; k++) {
    float v = x[r * 8 + k];
    plain = plain + v;
    float y = __fsub_rn(v, c);
    float t = __fadd_rn(sum, y);
    c = __fsub_rn(__fsub_rn(t, sum), y);
    sum = t;
  }
  naive[r] = plain;
  comp[r] = sum;
}
