// cg::reduce for the host oracle (see ../cooperative_groups.h): reduce(tile, v, op) over a
// thread_block_tile<N> (N = 1, 2, 4), every thread of the tile getting the result.
// The combining order is CUDA's own for tiles under 16 threads and for floats
// (cooperative_groups/details/coalesced_reduce.h, shuffle_reduce_pow2): v = op(v,
// tile.shfl_down(v, offset)) for offset N/2 down to 1, then every thread takes thread 0's
// result (tile.shfl(v, 0)): a 4-thread tile gets op(op(v0, v2), op(v1, v3)).
// Ops: plus (a + b), less (the minimum: b < a ? b : a), greater (the maximum: a < b ? b : a),
// bit_and, bit_or, bit_xor.
#pragma once

#include "../cooperative_groups.h"

namespace cooperative_groups {

template <class T> struct plus { T operator()(T a, T b) const { return a + b; } };
template <class T> struct less { T operator()(T a, T b) const { return b < a ? b : a; } };
template <class T> struct greater { T operator()(T a, T b) const { return a < b ? b : a; } };
template <class T> struct bit_and { T operator()(T a, T b) const { return a & b; } };
template <class T> struct bit_or { T operator()(T a, T b) const { return a | b; } };
template <class T> struct bit_xor { T operator()(T a, T b) const { return a ^ b; } };

template <unsigned N, class T, class Op>
inline T reduce(const thread_block_tile<N, void> &tile, T v, Op op,
                std::source_location loc = std::source_location::current()) {
  for (int offset = (int)N / 2; offset > 0; offset /= 2) v = op(v, tile.shfl_down(v, offset, loc));
  return tile.shfl(v, 0, loc);
}

}  // namespace cooperative_groups
