// A word is a row of 8 one-hot nibble groups: one entry near the row's peak and fifteen near
// zero in each. Codes are checked, never repaired: a bad row is a divergence and an Error.
#include "host/readout.h"

#include <algorithm>
#include <cmath>

#include "base/error.h"
#include "gpu/isa.h"
#include "lift/machine_model.h"

namespace qgpu::host {

namespace {

// Row `slot` of head h of layer il.
std::vector<float> state_row(const engine::Model& m, const engine::State& s, int il, int h, int slot) {
  const int dv = m.config.linear_value_head_dim;
  std::span<const float> S = s.recurrent(m.config, il, h);
  auto first = S.begin() + static_cast<std::ptrdiff_t>(slot) * dv;
  return std::vector<float>(first, first + dv);
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

// `bits` dual-rail bits at the start of a row (lift::bit_dim): a register of ports a, b, c
// (32), a lane's PC (lift::kLanePcBits).
uint32_t decode_bits(const std::vector<float>& row, int bits, float peak, const std::string& what) {
  uint32_t word = 0;
  for (int i = 0; i < bits; ++i)
    if (one_hot(row, lift::bit_dim(i, true), 2, peak, fmt::format("{} bit {}", what, i)) == 0) word |= 1u << i;
  return word;
}

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
    std::vector<float> row = state_row(m, s, lift::kMemoryLayer, lift::kMemoryHead, a);
    if (!all_zero(row)) words[a] = decode_word(row, fmt::format("memory word {}", a));
  }
  return words;
}

std::array<RomSlot, kBlocks> read_rom(const engine::Model& m, const engine::State& s) {
  std::array<RomSlot, kBlocks> rom{};
  const int il = lift::kRomLayer;
  for (int blk = 0; blk < kBlocks; ++blk) {
    auto field = [&](int f) { return state_row(m, s, il, lift::rom_head(blk, f), blk % lift::kBankBlocks); };
    std::vector<float> op = field(0);
    if (all_zero(op)) continue;  // never written
    auto code = [&](int f, const char* name) {
      std::vector<float> r = field(f);
      return one_hot(r, 0, lift::kFx, peak_of(r), fmt::format("ROM block {} {}", blk, name));
    };
    RomSlot& slot = rom[blk];
    int o = code(0, "op");
    if (o > 0) slot.op = static_cast<Op>(o - 1);
    slot.guard = code(1, "guard");
    slot.d = code(2, "d");
    slot.a = code(3, "a");
    slot.b = code(4, "b");
    slot.c = code(5, "c");
    slot.imm = decode_word(field(6), fmt::format("ROM block {} imm", blk));
  }
  return rom;
}

Rec read_step(const engine::Model& m, const engine::State& s) {
  std::vector<float> row = state_row(m, s, lift::kControlLayer, lift::kStepHead, 0);
  if (all_zero(row)) fail("the step head was never written (no 'begin')");
  float peak = peak_of(row);
  int w = one_hot(row, lift::kStepWarp, kWarps, peak, "step warp");
  int hi = one_hot(row, lift::kStepHi, lift::kBlockHi, peak, "step block / 16");
  int lo = one_hot(row, lift::kStepLo, lift::kBlockLo, peak, "step block % 16");
  int mask = 0;
  for (int l = 0; l < kLanes; ++l)
    if (one_hot(row, lift::step_lane(l, true), 2, peak, fmt::format("step lane {}", l)) == 0) mask |= 1 << l;
  return Rec{Tok::kSched, w, lift::kBlockLo * hi + lo, mask};
}

std::optional<LaneStatus> read_lane(const engine::Model& m, const engine::State& s, int warp, int lane) {
  std::vector<float> row = state_row(m, s, lift::kLaneLayer, lift::lane_head(warp, lane), 0);
  if (all_zero(row)) return std::nullopt;
  float peak = peak_of(row);
  std::string what = fmt::format("warp {} lane {} status", warp, lane);
  const int pc = static_cast<int>(decode_bits(row, lift::kLanePcBits, peak, what + " PC"));
  return LaneStatus{.pc = pc, .finished = one_hot(row, lift::kLaneFinished, 2, peak, what + " finished") == 1,
                    .flag = one_hot(row, lift::kLaneFlag, 2, peak, what + " barrier flag")};
}

std::optional<uint32_t> read_register(const engine::Model& m, const engine::State& s, int warp, int lane, int code) {
  std::optional<uint32_t> first;
  for (int port = 0; port < lift::kPorts; ++port) {
    std::string what = fmt::format("warp {} lane {} {}{} (port {})", warp, lane, code <= kRegs ? "r" : "p",
                                   code <= kRegs ? code - 1 : code - 1 - kRegs, port);
    std::vector<float> row = state_row(m, s, lift::kRegisterLayer, lift::register_head(port, lane),
                                       lift::register_slot(warp, code));
    std::optional<uint32_t> v;
    if (!all_zero(row)) v = port == 3 ? decode_word(row, what) : decode_bits(row, 32, peak_of(row), what);
    if (port == 0) first = v;
    else if (v != first) fail("{}: the replicas disagree ({} in port 0)", what, first ? fmt::to_string(*first) : "unwritten");
  }
  return first;
}

}  // namespace qgpu::host
