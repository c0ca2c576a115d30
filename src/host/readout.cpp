// A memory slot is the sum of the two memory heads' rows (one of them is zero). Each of the
// 8 nibble groups must hold one entry near the code's value and fifteen near zero.
#include "host/readout.h"

#include <algorithm>
#include <cmath>

#include "base/error.h"
#include "gpu/isa.h"
#include "lift/machine_model.h"

namespace qgpu::host {

std::vector<std::optional<uint32_t>> read_memory(const engine::Model& m, const engine::State& s) {
  const engine::Config& c = m.config;
  const int dv = c.linear_value_head_dim;
  std::vector<std::optional<uint32_t>> words(kMemWords);
  for (int a = 0; a < kMemWords; ++a) {
    std::vector<float> row(dv, 0.0f);
    for (int h : lift::kMemoryHeads) {
      std::span<const float> S = s.recurrent(c, lift::kMemoryLayer, h);
      for (int j = 0; j < dv; ++j) row[j] += S[static_cast<size_t>(a) * dv + j];
    }
    float peak = *std::max_element(row.begin(), row.end());
    if (peak == 0.0f && *std::min_element(row.begin(), row.end()) == 0.0f) continue;  // never written
    uint32_t word = 0;
    for (int g = 0; g < 8; ++g) {
      int hot = -1;
      for (int n = 0; n < 16; ++n) {
        float v = row[16 * g + n];
        bool on = v > 0.5f * peak, off = std::fabs(v) < 0.25f * peak;
        if (!on && !off) fail("memory word {}: nibble {} entry {} is {} (code peak {}): not a valid code", a, g, n, v, peak);
        if (on) {
          if (hot >= 0) fail("memory word {}: nibble {} has two hot entries ({} and {})", a, g, hot, n);
          hot = n;
        }
      }
      if (hot < 0) fail("memory word {}: nibble {} has no hot entry", a, g);
      word |= static_cast<uint32_t>(hot) << (4 * g);
    }
    words[a] = word;
  }
  return words;
}

}  // namespace qgpu::host
