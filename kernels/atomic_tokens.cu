// atomic_tokens: a semaphore: every thread takes a token with atomicSub; granted/denied count who found one left
// run: --grid 3 --block 4 --arg tokens=[5] --arg granted=[0] --arg denied=[0]
// run: --grid 2 --block 16 --arg tokens=[40] --arg granted=[0] --arg denied=[0]
// run: --grid 1 --block 3 --arg tokens=[0] --arg granted=[10] --arg denied=[0]
extern "C" __global__ void atomic_tokens(int *tokens, int *granted, int *denied) {
  int before = atomicSub(tokens, 1);
  if (before > 0)
    atomicAdd(granted, 1);
  else
    atomicAdd(denied, 1);
}
