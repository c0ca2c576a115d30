// A memory slot is the sum of the two memory heads' rows (one of them is zero). Each of the
// 8 nibble groups must hold one entry near the code's value and fifteen near zero.
#include "host/readout.h"

#include <algorithm>
#include <cmath>

#include "base/error.h"
#include "gpu/isa.h"
#include "lift/machine_model.h"

namespace qgpu::host {

namespace {

// Row `slot` of the listed heads of layer il, summed.
std::vector<float> state_row(const engine::Model& m, const engine::State& s, int il,
                             std::span<const int> heads, int slot) {
  const int dv = m.config.linear_value_head_dim;
  std::vector<float> row(dv, 0.0f);
  for (int h : heads) {
    std::span<const float> S = s.recurrent(m.config, il, h);
    for (int j = 0; j < dv; ++j) row[j] += S[static_cast<size_t>(slot) * dv + j];
  }
  return row;
}

bool all_zero(const std::vector<float>& row) {
  return std::all_of(row.begin(), row.end(), [](float v) { return v == 0.0f; });
}

// The hot entry of a one-hot code in row[first, first + n); Error unless exactly one entry
// is near the peak and the others near zero.
int one_hot(const std::vector<float>& row, int first, int n, float peak, const std::string& what) {
  int hot = -1;
  for (int i = 0; i < n; ++i) {
    float v = row[first + i];
    bool on = v > 0.5f * peak, off = std::fabs(v) < 0.25f * peak;
    if (!on && !off) fail("{}: entry {} is {} (code peak {}): not a valid code", what, i, v, peak);
    if (on && hot >= 0) fail("{}: two hot entries ({} and {})", what, hot, i);
    if (on) hot = i;
  }
  if (hot < 0) fail("{}: no hot entry", what);
  return hot;
}

float peak_of(const std::vector<float>& row) { return *std::max_element(row.begin(), row.end()); }

uint32_t decode_word(const std::vector<float>& row, const std::string& what) {
  uint32_t word = 0;
  float peak = peak_of(row);
  for (int g = 0; g < 8; ++g)
    word |= static_cast<uint32_t>(one_hot(row, 16 * g, 16, peak, fmt::format("{} nibble {}", what, g))) << (4 * g);
  return word;
}

}  // namespace

std::vector<std::optional<uint32_t>> read_memory(const engine::Model& m, const engine::State& s) {
  std::vector<std::optional<uint32_t>> words(kMemWords);
  for (int a = 0; a < kMemWords; ++a) {
    std::vector<float> row = state_row(m, s, lift::kMemoryLayer, lift::kMemoryHeads, a);
    if (!all_zero(row)) words[a] = decode_word(row, fmt::format("memory word {}", a));
  }
  return words;
}

std::array<RomSlot, kBlocks> read_rom(const engine::Model& m, const engine::State& s) {
  std::array<RomSlot, kBlocks> rom{};
  const int il = lift::kRomLayer;
  for (int blk = 0; blk < kBlocks; ++blk) {
    auto field = [&](int f) { return state_row(m, s, il, std::span<const int>(&lift::kRomHeads[f], 1), blk); };
    std::vector<float> op = field(0);
    if (all_zero(op)) continue;  // never written
    auto code = [&](int f, const char* name) {
      std::vector<float> r = field(f);
      return one_hot(r, 0, 64, peak_of(r), fmt::format("ROM block {} {}", blk, name));
    };
    RomSlot& slot = rom[blk];
    int o = code(0, "op");
    if (o > 0) slot.op = static_cast<Op>(o - 1);
    slot.guard = code(1, "guard");
    slot.d = code(2, "d");
    slot.a = code(3, "a");
    slot.b = code(4, "b");
    slot.c = code(5, "c");
    slot.imm = decode_word(state_row(m, s, il, std::span<const int>(&lift::kRomHeads[6], 2), blk),
                           fmt::format("ROM block {} imm", blk));
  }
  return rom;
}

}  // namespace qgpu::host
