// cellular_automaton: next[i] = bit (4*left + 2*cell + right) of rule (Wolfram's elementary automata), cells outside [0, n) are 0
// run: --grid 4 --block 4 --arg cells=[0,0,0,0,0,0,0,1,0,0,0,0,0,0,0,0] --arg next=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg rule=90 --arg n=16
// run: --grid 4 --block 4 --arg cells=[0,1,1,0,1,0,0,1,1,1,0,0,0,1,0,1] --arg next=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0] --arg rule=30 --arg n=16
// run: --grid 3 --block 4 --arg cells=[1,0,1,1,0,1,1,1,0,0] --arg next=[0,0,0,0,0,0,0,0,0,0] --arg rule=110 --arg n=10
extern "C" __global__ void cellular_automaton(const int *cells, int *next, int rule, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int l = i > 0 ? cells[i - 1] : 0;
  int r = i + 1 < n ? cells[i + 1] : 0;
  int pattern = (l << 2) | (cells[i] << 1) | r;
  next[i] = (rule >> pattern) & 1;
}
