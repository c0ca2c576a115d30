/* cooperative_groups.h: the subset of CUDA's cooperative groups that published kernels use,
 * over what qgpu_cuda.h has (warpSize is 4 here, so a tile has 1, 2 or 4 threads):
 *   thread_block (this_thread_block(), sync(), thread_rank(), size(), group_index(),
 *   thread_index(), group_dim()), thread_block_tile<N> (tiled_partition<N>(block): sync,
 *   thread_rank, size, meta_group_rank, meta_group_size, shfl, shfl_up, shfl_down, shfl_xor,
 *   any, all, ballot), thread_group (tiled_partition(block, N)), cg::sync(g), and in
 *   <cooperative_groups/reduce.h> cg::reduce with plus, less, greater, bit_and, bit_or,
 *   bit_xor. Grid groups (this_grid(), a cooperative launch) are not here: the machine
 *   runs a grid in waves, so a grid-wide barrier would wait for blocks that never start. */
#ifndef QGPU_COOPERATIVE_GROUPS_H
#define QGPU_COOPERATIVE_GROUPS_H
#include "qgpu_cuda.h"

namespace cooperative_groups {

namespace details {
static __device__ __forceinline__ unsigned block_rank() {
  return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
}
static __device__ __forceinline__ unsigned block_size() { return blockDim.x * blockDim.y * blockDim.z; }
/* Called where a tile's size is known at compile time and is wider than the warp. */
__device__ void tile_wider_than_warp() __attribute__((error(
    "qgpu: a thread group tile has at most warpSize = 4 threads on this machine (1, 2 or 4)")));
}  // namespace details

class thread_group {
 public:
  __device__ thread_group(unsigned size) : size_(size) {}
  __device__ void sync() const {
    if (size_ == details::block_size()) __syncthreads();
    else __syncwarp();
  }
  __device__ unsigned thread_rank() const { return details::block_rank() % size_; }
  __device__ unsigned size() const { return size_; }
  __device__ unsigned num_threads() const { return size_; }
  __device__ unsigned meta_group_rank() const { return details::block_rank() / size_; }
  __device__ unsigned meta_group_size() const { return (details::block_size() + size_ - 1) / size_; }

 protected:
  unsigned size_;
};

class thread_block : public thread_group {
 public:
  __device__ thread_block() : thread_group(details::block_size()) {}
  __device__ void sync() const { __syncthreads(); }
  __device__ unsigned thread_rank() const { return details::block_rank(); }
  __device__ unsigned size() const { return details::block_size(); }
  __device__ unsigned num_threads() const { return details::block_size(); }
  __device__ dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  __device__ dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  __device__ dim3 group_dim() const { return dim3(blockDim.x, blockDim.y, blockDim.z); }
  __device__ dim3 dim_threads() const { return group_dim(); }
};

static __device__ __forceinline__ thread_block this_thread_block() { return thread_block(); }

/* A tile of N consecutive threads of the block: lanes of one warp (thread t is lane t % 4). */
template <unsigned N>
class thread_block_tile : public thread_group {
  static_assert(N == 1 || N == 2 || N == 4,
                "qgpu: a thread_block_tile has at most warpSize = 4 threads on this machine (1, 2 or 4)");

 public:
  __device__ thread_block_tile() : thread_group(N) {}
  __device__ void sync() const { __syncwarp(); }
  __device__ unsigned thread_rank() const { return details::block_rank() % N; }
  __device__ unsigned size() const { return N; }
  __device__ unsigned num_threads() const { return N; }
  __device__ unsigned meta_group_rank() const { return details::block_rank() / N; }
  __device__ unsigned meta_group_size() const { return (details::block_size() + N - 1) / N; }
  template <class T> __device__ T shfl(T v, int src) const { return __shfl_sync(0xffffffff, v, src, N); }
  template <class T> __device__ T shfl_up(T v, unsigned d) const { return __shfl_up_sync(0xffffffff, v, d, N); }
  template <class T> __device__ T shfl_down(T v, unsigned d) const { return __shfl_down_sync(0xffffffff, v, d, N); }
  template <class T> __device__ T shfl_xor(T v, int m) const { return __shfl_xor_sync(0xffffffff, v, m, N); }
  /* The votes see the whole warp; a tile keeps its own lanes' bits, from bit 0. */
  __device__ unsigned ballot(int p) const { return (__ballot_sync(0xffffffff, p) >> first_lane()) & ((1u << N) - 1); }
  __device__ int any(int p) const { return ballot(p) != 0; }
  __device__ int all(int p) const { return ballot(!p) == 0; }

 private:
  __device__ unsigned first_lane() const { return details::block_rank() % warpSize / N * N; }
};

template <unsigned N>
static __device__ __forceinline__ thread_block_tile<N> tiled_partition(const thread_block &) {
  return thread_block_tile<N>();
}
static __device__ __forceinline__ thread_group tiled_partition(const thread_group &parent, unsigned n) {
  if (__builtin_constant_p(n) && n > 4) details::tile_wider_than_warp();
  (void)parent;
  return thread_group(n);
}

template <class Group>
static __device__ __forceinline__ void sync(const Group &g) { g.sync(); }

}  // namespace cooperative_groups

#endif /* QGPU_COOPERATIVE_GROUPS_H */
