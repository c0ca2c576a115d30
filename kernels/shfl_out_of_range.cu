// shfl_out_of_range: shuffles whose source lane is outside the warp: down and up by 3, 4, 5, and __shfl_sync from srcLane 5 and -1
// run: --grid 2 --block 4 --arg in=[10,11,12,13,20,21,22,23] --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
// run: --grid 1 --block 8 --arg in=[-1,-2,-3,-4,5,6,7,8] --arg out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
// out[k*n + i] (n threads in all) for shuffle k, per warp of lanes 0..3 holding v0..v3:
//   0: down 3  v3 v1 v2 v3     1: down 4  v0 v1 v2 v3    2: down 5  v0 v1 v2 v3
//   3: up 3    v0 v1 v2 v0     4: up 4    v0 v1 v2 v3    5: up 5    v0 v1 v2 v3
//   6: idx 5   v1 v1 v1 v1     7: idx -1  v3 v3 v3 v3
// A lane whose source is past the warp's ends gets its own value back; __shfl_sync's
// source lane counts modulo the width (5 is lane 1, -1 is lane 3), as CUDA documents.
extern "C" __global__ void shfl_out_of_range(const int *in, int *out) {
  int n = gridDim.x * blockDim.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  out[i] = __shfl_down_sync(0xffffffff, v, 3);
  out[n + i] = __shfl_down_sync(0xffffffff, v, 4);
  out[2 * n + i] = __shfl_down_sync(0xffffffff, v, 5);
  out[3 * n + i] = __shfl_up_sync(0xffffffff, v, 3);
  out[4 * n + i] = __shfl_up_sync(0xffffffff, v, 4);
  out[5 * n + i] = __shfl_up_sync(0xffffffff, v, 5);
  out[6 * n + i] = __shfl_sync(0xffffffff, v, 5);
  out[7 * n + i] = __shfl_sync(0xffffffff, v, -1);
}
