// clamp_float: y[i] = fminf(fmaxf(x[i], lo), hi) for i < n (a NaN x becomes lo), and neg[i] = -y[i]
// run: --grid 3 --block 4 --arg x=[-2,-1,-0.5,0,0.5,1,1.5,2,nan,-inf,inf,-0] --arg lo=-1 --arg hi=1.5 --arg y=[0,0,0,0,0,0,0,0,0,0,0,0] --arg neg=[0,0,0,0,0,0,0,0,0,0,0,0] --arg n=12
// run: --grid 1 --block 5 --arg x=[0.1,0.2,-0.3,1e-45,-0] --arg lo=0 --arg hi=0.15 --arg y=[9,9,9,9,9] --arg neg=[9,9,9,9,9] --arg n=4
extern "C" __global__ void clamp_float(const float *x, float lo, float hi, float *y, float *neg, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = fminf(fmaxf(x[i], lo), hi);
  y[i] = v;
  neg[i] = -v;
}
