/* cooperative_groups/reduce.h: cg::reduce over a tile, with CUDA's operators. Every thread
 * of the tile gets the result; the order is a butterfly (shfl_xor by N/2, ..., 1), the
 * same in every thread, so a float sum is the same value in all of them. */
#ifndef QGPU_COOPERATIVE_GROUPS_REDUCE_H
#define QGPU_COOPERATIVE_GROUPS_REDUCE_H
#include "../cooperative_groups.h"

namespace cooperative_groups {

template <class T> struct plus { __device__ T operator()(T a, T b) const { return a + b; } };
template <class T> struct less { __device__ T operator()(T a, T b) const { return b < a ? b : a; } };
template <class T> struct greater { __device__ T operator()(T a, T b) const { return a < b ? b : a; } };
template <class T> struct bit_and { __device__ T operator()(T a, T b) const { return a & b; } };
template <class T> struct bit_or { __device__ T operator()(T a, T b) const { return a | b; } };
template <class T> struct bit_xor { __device__ T operator()(T a, T b) const { return a ^ b; } };

template <unsigned N, class T, class Op>
static __device__ __forceinline__ T reduce(const thread_block_tile<N> &tile, T value, Op op) {
  for (unsigned offset = N / 2; offset > 0; offset /= 2) value = op(value, tile.shfl_xor(value, offset));
  return value;
}

}  // namespace cooperative_groups

#endif /* QGPU_COOPERATIVE_GROUPS_REDUCE_H */
