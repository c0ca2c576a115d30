// select_chain: grade[i] = a letter code from a score by a chain of ternaries (selects); sgn[i] = sign of score - 50
// run: --grid 3 --block 4 --arg score=[95,90,89,80,79,70,69,60,59,0,-5,100] --arg grade=[0,0,0,0,0,0,0,0,0,0,0,0] --arg sgn=[0,0,0,0,0,0,0,0,0,0,0,0] --arg n=12
extern "C" __global__ void select_chain(const int *score, int *grade, int *sgn, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int s = score[i];
  grade[i] = s >= 90 ? 'A' : s >= 80 ? 'B' : s >= 70 ? 'C' : s >= 60 ? 'D' : 'F';
  sgn[i] = s > 50 ? 1 : s < 50 ? -1 : 0;
}
