// Cooperative groups for the host oracle (tests/oracle/cuda_emu.h): the subset of CUDA's
// <cooperative_groups.h> that published kernels use, built on the emulator's __syncthreads
// and warp functions. gen_expected.py compiles the drivers with -I tests/oracle, so a kernel
// file's `#include <cooperative_groups.h>` finds this header (there is no CUDA on the host).
//
// - thread_block: this_thread_block(); sync() is __syncthreads(); thread_rank() is
//   threadIdx.y * blockDim.x + threadIdx.x (+ z); size()/num_threads(); group_index() is
//   blockIdx, thread_index() threadIdx, group_dim() blockDim.
// - thread_block_tile<N> (N = 1, 2 or 4: the machine's warps have 4 lanes; a wider tile fails
//   to compile): tiled_partition<N>(g) splits the block into tiles of N consecutive threads
//   (by thread_rank, so a tile lies inside one warp). thread_rank() = block rank % N,
//   meta_group_rank() = block rank / N, meta_group_size() = ceil(block size / N). sync() is
//   __syncwarp(). shfl/shfl_down/shfl_up/shfl_xor are __shfl*_sync with width N (a source
//   lane out of the tile gives the lane its own value; shfl's source counts modulo N).
//   any/all/ballot are the warp's vote restricted to the tile (ballot's bit i is the tile's
//   thread i). As everywhere in the emulator, the warp's live lanes must all make the call
//   together (one tile of a warp may not shuffle while another tile of it does not).
// - thread_group: tiled_partition(g, N) (N at run time, 1, 2 or 4) and the base of the two
//   above: sync(), thread_rank(), size(). cg::sync(g) is g.sync().
// - cooperative_groups/reduce.h: cg::reduce(tile, v, op) with cg::plus, cg::less (the
//   minimum), cg::greater (the maximum), cg::bit_and, cg::bit_or, cg::bit_xor.
#pragma once

#include "cuda_emu.h"

#include <source_location>

namespace cooperative_groups {

namespace details {
inline unsigned block_rank() {
  return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
}
inline unsigned block_size() { return blockDim.x * blockDim.y * blockDim.z; }
[[noreturn]] inline void fail(const char *what) {
  std::fprintf(stderr, "cooperative_groups: %s\n", what);
  std::abort();
}
}  // namespace details

// A block (size 0 here means "the whole block") or a tile of 1, 2 or 4 threads.
class thread_group {
 public:
  void sync(std::source_location loc = std::source_location::current()) const {
    if (tile_ == 0)
      __syncthreads();
    else
      __syncwarp(0xffffffffu, loc);
  }
  // (CUDA's size(), num_threads() and thread_rank() are unsigned long long, as here.)
  unsigned long long size() const { return tile_ == 0 ? details::block_size() : tile_; }
  unsigned long long num_threads() const { return size(); }
  unsigned long long thread_rank() const {
    return tile_ == 0 ? details::block_rank() : details::block_rank() % tile_;
  }

 protected:
  explicit thread_group(unsigned tile) : tile_(tile) {}
  unsigned tile_;
};

class thread_block : public thread_group {
 public:
  thread_block() : thread_group(0) {}
  static dim3 group_index() { return blockIdx; }
  static dim3 thread_index() { return threadIdx; }
  static dim3 group_dim() { return blockDim; }
  static dim3 dim_threads() { return blockDim; }
};

inline thread_block this_thread_block() { return thread_block(); }

template <class Group>
inline void sync(const Group &g, std::source_location loc = std::source_location::current()) {
  g.sync(loc);
}
inline void sync(const thread_block &g) { g.sync(); }

// thread_block_tile<N, ParentT> (what tiled_partition<N>(parent) returns) converts to
// thread_block_tile<N> (ParentT void), which holds everything, as in CUDA.
template <unsigned N, class ParentT = void>
class thread_block_tile;

template <unsigned N>
class thread_block_tile<N, void> : public thread_group {
  static_assert(N == 1 || N == 2 || N == 4,
                "thread_block_tile<N>: N must be 1, 2 or 4 (the machine's warps have 4 lanes)");

 public:
  thread_block_tile() : thread_group(N) {}
  static constexpr unsigned long long size() { return N; }
  static constexpr unsigned long long num_threads() { return N; }
  unsigned long long thread_rank() const { return details::block_rank() % N; }
  unsigned long long meta_group_rank() const { return details::block_rank() / N; }
  unsigned long long meta_group_size() const { return (details::block_size() + N - 1) / N; }
  void sync(std::source_location loc = std::source_location::current()) const {
    __syncwarp(0xffffffffu, loc);
  }

  template <class T>
  T shfl(T v, int src, std::source_location loc = std::source_location::current()) const {
    return __shfl_sync(0xffffffffu, v, src, (int)N, loc);
  }
  template <class T>
  T shfl_down(T v, unsigned delta, std::source_location loc = std::source_location::current()) const {
    return __shfl_down_sync(0xffffffffu, v, delta, (int)N, loc);
  }
  template <class T>
  T shfl_up(T v, unsigned delta, std::source_location loc = std::source_location::current()) const {
    return __shfl_up_sync(0xffffffffu, v, delta, (int)N, loc);
  }
  template <class T>
  T shfl_xor(T v, int mask, std::source_location loc = std::source_location::current()) const {
    return __shfl_xor_sync(0xffffffffu, v, mask, (int)N, loc);
  }
  // Bit i: the tile's thread i is live and pred is nonzero.
  unsigned ballot(int pred, std::source_location loc = std::source_location::current()) const {
    const unsigned first = (details::block_rank() % warpSize) / N * N;  // the tile's first lane
    return (__ballot_sync(0xffffffffu, pred, loc) >> first) & ((1u << N) - 1);
  }
  int any(int pred, std::source_location loc = std::source_location::current()) const {
    return ballot(pred, loc) != 0;
  }
  int all(int pred, std::source_location loc = std::source_location::current()) const {
    return ballot(pred == 0, loc) == 0;
  }
};

template <unsigned N, class ParentT>
class thread_block_tile : public thread_block_tile<N, void> {};

template <unsigned N, class ParentT>
inline thread_block_tile<N, ParentT> tiled_partition(const ParentT &) {
  return thread_block_tile<N, ParentT>();
}

namespace details {
class dynamic_tile : public thread_group {
 public:
  explicit dynamic_tile(unsigned n) : thread_group(n) {
    if (n != 1 && n != 2 && n != 4) fail("tiled_partition(g, N): N must be 1, 2 or 4 (4-lane warps)");
  }
};
}  // namespace details

inline thread_group tiled_partition(const thread_group &, unsigned n) {
  return details::dynamic_tile(n);
}

}  // namespace cooperative_groups
