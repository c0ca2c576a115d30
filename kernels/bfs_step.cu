// bfs_step: one BFS level: each node u with dist[u] == level relaxes its CSR neighbours: next[v] = min(next[v], level + 1)
// run: --grid 2 --block 4 --arg row_ptr=[0,2,3,5,6,8,9,10,10] --arg nbr=[1,2,3,3,4,5,5,6,7,7] --arg dist=[0,99,99,99,99,99,99,99] --arg next=[0,99,99,99,99,99,99,99] --arg level=0 --arg nodes=8
// run: --grid 2 --block 4 --arg row_ptr=[0,2,3,5,6,8,9,10,10] --arg nbr=[1,2,3,3,4,5,5,6,7,7] --arg dist=[0,1,1,99,99,99,99,99] --arg next=[0,1,1,99,99,99,99,99] --arg level=1 --arg nodes=8
// run: --grid 2 --block 4 --arg row_ptr=[0,2,3,5,6,8,9,10,10] --arg nbr=[1,2,3,3,4,5,5,6,7,7] --arg dist=[0,1,1,2,2,99,99,99] --arg next=[0,1,1,2,2,99,99,99] --arg level=2 --arg nodes=8
// dist is this level's distances, next the following level's (it starts as a copy of
// dist): reading one array while atomically lowering the other keeps the step race-free.
extern "C" __global__ void bfs_step(const int *row_ptr, const int *nbr, const int *dist,
                                    int *next, int level, int nodes) {
  int u = blockIdx.x * blockDim.x + threadIdx.x;
  if (u >= nodes || dist[u] != level) return;
  for (int k = row_ptr[u]; k < row_ptr[u + 1]; k++) atomicMin(&next[nbr[k]], level + 1);
}
