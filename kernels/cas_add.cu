// cas_add: sum[0] += x[i] and prod[0] *= x[i] over i < n, each a read-modify-write built from an atomicCAS retry loop
// run: --grid 2 --block 4 --arg x=[1,2,3,4,5,-6,7] --arg sum=[100] --arg prod=[1] --arg n=7
// run: --grid 1 --block 16 --arg x=[2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2] --arg sum=[0] --arg prod=[3] --arg n=16
// atomicCAS(p, expected, desired) swaps only when *p == expected and returns the old word.
// The loop starts from a guess instead of a plain read of *p: a wrong guess costs one retry.
static __device__ void cas_update(int *p, int v, bool multiply) {
  int assumed = multiply ? 1 : 0, old;
  while ((old = atomicCAS(p, assumed, multiply ? assumed * v : assumed + v)) != assumed)
    assumed = old;
}

extern "C" __global__ void cas_add(const int *x, int *sum, int *prod, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  cas_update(sum, x[i], false);
  cas_update(prod, x[i], true);
}
