// A sequence's state: per layer the DeltaNet conv window and recurrent matrices, or the
// attention KV cache; plus how many tokens it has seen. The recurrent state is what the
// qgpu host reads machine memory from, so it is public and laid out like transformers'
// cache: layer il, value head j holds S [dk][dv] (k-major: the output is S^T q).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/config.h"

namespace qgpu::engine {

struct LayerState {
  // DeltaNet: the last K-1 raw in_proj_qkv outputs, oldest first: [K-1][conv_dim].
  std::vector<float> conv;
  // DeltaNet: [Hv][dk][dv], f32.
  std::vector<float> recurrent;
  // DeltaNet, kept by forward with skip_zero_rows: per value head, 1 where S is known to
  // hold no -0, inf or NaN, so the skip need not read all of S each token; 0 or empty: not
  // known. Anything else that writes `recurrent` must clear it.
  std::vector<uint8_t> recurrent_plain;
  // Attention: keys and values of every past position, [n_past][nKV][D] each.
  std::vector<float> keys, values;
  // Attention, kept by forward: the keys again in blocks of 16 positions, element-major
  // ([n_past / 16 rounded up][nKV][D][16], the last block's missing positions 0), so the
  // scores read 16 positions' element i as one run; keys_blocked_n positions are in it.
  // Anything else that writes `keys` leaves these as they are: forward rebuilds them when
  // keys_blocked_n is not the position it appends.
  std::vector<float> keys_blocked;
  int64_t keys_blocked_n = 0;
};

struct State {
  std::vector<LayerState> layers;
  int64_t n_past = 0;

  // S of layer il, value head j: dk*dv floats, row i (key index) holds dv values.
  std::span<const float> recurrent(const Config& c, int il, int j) const;
  // The same, writable: whoever writes it clears the layer's recurrent_plain.
  std::span<float> recurrent(const Config& c, int il, int j);
};

// A fresh (all-zero) state for a model with this config.
State make_state(const Config& c);

}  // namespace qgpu::engine
