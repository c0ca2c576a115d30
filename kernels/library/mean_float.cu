// mean_float: the mean of n floats as a GPU computes it in binary32: out = {sum, mean}, the
// values added in order from 0.0f, then mean = sum / count, every add and the division
// rounded to nearest even (the float sum of large and small values loses the small ones,
// as on any GPU). Parameters: values (n floats, 1 <= n <= 100), out (2 words), n. The GPU
// converts n to the float count (until the ROM had 256 blocks the host passed it).
// Launch: one thread.
// run: --grid 1 --block 1 --arg values=[1.5,2.25,-0.75,0.1] --arg out=[0,0] --arg n=4
extern "C" __global__ void mean_float(const float *values, float *out, int n) {
  float s = 0.0f;
  int i = 0;
  do {
    s += values[i];
  } while (++i != n);
  out[0] = s;
  out[1] = s / (float)n;
}
