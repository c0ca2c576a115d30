// Zero state: what every engine starts a sequence from.
#include "engine/state.h"

#include <utility>

#include "base/error.h"

namespace qgpu::engine {

State make_state(const Config& c) {
  State s;
  s.layers.resize(c.num_hidden_layers);
  for (int il = 0; il < c.num_hidden_layers; ++il) {
    if (!c.is_linear(il)) continue;
    LayerState& l = s.layers[il];
    l.conv.assign(static_cast<size_t>(c.linear_conv_kernel_dim - 1) * c.conv_dim(), 0.0f);
    l.recurrent.assign(static_cast<size_t>(c.linear_num_value_heads) * c.linear_key_head_dim *
                           c.linear_value_head_dim, 0.0f);
  }
  return s;
}

std::span<const float> State::recurrent(const Config& c, int il, int j) const {
  CHECK(il >= 0 && il < static_cast<int>(layers.size()) && c.is_linear(il));
  CHECK(j >= 0 && j < c.linear_num_value_heads);
  size_t n = static_cast<size_t>(c.linear_key_head_dim) * c.linear_value_head_dim;
  return std::span<const float>(layers[il].recurrent).subspan(j * n, n);
}

std::span<float> State::recurrent(const Config& c, int il, int j) {
  const std::span<const float> r = std::as_const(*this).recurrent(c, il, j);  // this is not const: neither is r's data
  return {const_cast<float*>(r.data()), r.size()};
}

}  // namespace qgpu::engine
