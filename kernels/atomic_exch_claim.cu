// atomic_exch_claim: claims: one thread per block wins flag[b] by atomicExch (winners[b] = 1); slot[b] is taken and zeroed by thread 0
// run: --grid 3 --block 4 --arg flag=[0,0,0] --arg winners=[0,0,0] --arg slot=[7,8,9] --arg taken=[0,0,0]
// run: --grid 2 --block 16 --arg flag=[0,1] --arg winners=[0,0] --arg slot=[-5,500] --arg taken=[1,1]
// Exactly one thread of the block sees the 0 that atomicExch replaces, so the result does
// not depend on which one it is. (A flag that starts at 1 has no winner.)
extern "C" __global__ void atomic_exch_claim(int *flag, int *winners, int *slot, int *taken) {
  int b = blockIdx.x;
  if (atomicExch(&flag[b], 1) == 0) atomicAdd(&winners[b], 1);
  if (threadIdx.x == 0) taken[b] = atomicExch(&slot[b], 0);
}
