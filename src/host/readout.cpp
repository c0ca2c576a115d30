// A state row holds a field's code (lift/code.h), scaled: a head's read divides it back to
// 1, so the row's own largest entry is the peak its code is read against. Codes are
// checked, never repaired: a bad row is a divergence and an Error.
#include "host/readout.h"

#include <algorithm>
#include <cmath>

#include "base/error.h"
#include "gpu/isa.h"
#include "lift/code.h"
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

// The row's code from its first dim, read against the row's peak; Error naming `what`
// and the group when it is not a valid code.
lift::Reading read_row(const std::vector<float>& row, const lift::Code& c, const std::string& what) {
  const float peak = *std::max_element(row.begin(), row.end());
  lift::Reading r = lift::read(c, std::span<const float>(row).first(static_cast<size_t>(c.size())), peak);
  if (!r.valid()) fail("{}: {} (code peak {})", what, r.error, peak);
  return r;
}

uint32_t read_word(const std::vector<float>& row, const lift::Code& c, const std::string& what) {
  return lift::word_of(c, read_row(row, c, what));
}

}  // namespace

std::vector<std::optional<uint32_t>> read_memory(const engine::Model& m, const engine::State& s) {
  std::vector<std::optional<uint32_t>> words(kMemWords);
  for (int a = 0; a < kMemWords; ++a) {
    std::vector<float> row = state_row(m, s, lift::kMemoryLayer, lift::kMemoryHead, a);
    if (!all_zero(row)) words[a] = read_word(row, lift::machine_fields()["mr"].code, fmt::format("memory word {}", a));
  }
  return words;
}

std::array<RomSlot, kBlocks> read_rom(const engine::Model& m, const engine::State& s) {
  std::array<RomSlot, kBlocks> rom{};
  const int il = lift::kRomLayer;
  const lift::Code& field_code = lift::machine_fields()["f_op"].code;
  for (int blk = 0; blk < kBlocks; ++blk) {
    auto field = [&](int f) { return state_row(m, s, il, lift::rom_head(blk, f), blk % lift::kBankBlocks); };
    std::vector<float> op = field(0);
    if (all_zero(op)) continue;  // never written
    auto code = [&](int f, const char* name) {
      return read_row(field(f), field_code, fmt::format("ROM block {} {}", blk, name)).digit[0];
    };
    RomSlot& slot = rom[blk];
    int o = code(0, "op");
    if (o > 0) slot.op = static_cast<Op>(o - 1);
    slot.guard = code(1, "guard");
    slot.d = code(2, "d");
    slot.a = code(3, "a");
    slot.b = code(4, "b");
    slot.c = code(5, "c");
    slot.imm = read_word(field(6), lift::machine_fields()["f_imm"].code, fmt::format("ROM block {} imm", blk));
  }
  return rom;
}

Rec read_step(const engine::Model& m, const engine::State& s) {
  std::vector<float> row = state_row(m, s, lift::kControlLayer, lift::kStepHead, 0);
  if (all_zero(row)) fail("the step head was never written (no 'begin')");
  // warp | block / 16 | block % 16 | lane l in the mask (0) or not (1)
  const std::vector<int> d = read_row(row, lift::machine_fields()["step"].code, "step").digit;
  int mask = 0;
  for (int l = 0; l < kLanes; ++l)
    if (d[static_cast<size_t>(3 + l)] == 0) mask |= 1 << l;
  return Rec{Tok::kSched, d[0], lift::kBlockLo * d[1] + d[2], mask};
}

std::optional<LaneStatus> read_lane(const engine::Model& m, const engine::State& s, int warp, int lane) {
  std::vector<float> row = state_row(m, s, lift::kLaneLayer, lift::lane_head(warp, lane), 0);
  if (all_zero(row)) return std::nullopt;
  // The PC's dual-rail bits, then finished and the barrier flag (lift::kLaneFinished, kLaneFlag).
  const std::vector<int> d = read_row(row, lift::machine_fields()["ls00"].code, fmt::format("warp {} lane {} status", warp, lane)).digit;
  int pc = 0;
  for (int b = 0; b < lift::kLanePcBits; ++b)
    if (d[static_cast<size_t>(b)] == 0) pc |= 1 << b;
  return LaneStatus{.pc = pc, .finished = d[lift::kLaneFinished / 2] == 1, .flag = d[lift::kLaneFlag / 2]};
}

std::optional<uint32_t> read_register(const engine::Model& m, const engine::State& s, int warp, int lane, int code) {
  std::optional<uint32_t> first;
  for (int port = 0; port < lift::kPorts; ++port) {
    std::string what = fmt::format("warp {} lane {} {}{} (port {})", warp, lane, code <= kRegs ? "r" : "p",
                                   code <= kRegs ? code - 1 : code - 1 - kRegs, port);
    std::vector<float> row = state_row(m, s, lift::kRegisterLayer, lift::register_head(port, lane),
                                       lift::register_slot(warp, code));
    std::optional<uint32_t> v;
    // Ports a, b, c hold the word as the register reads' dual-rail bits, the guard port as nibbles.
    if (!all_zero(row)) v = read_word(row, port == 3 ? lift::machine_fields()["mr"].code : lift::machine_fields()["ra0"].code, what);
    if (port == 0) first = v;
    else if (v != first) fail("{}: the replicas disagree ({} in port 0)", what, first ? fmt::to_string(*first) : "unwritten");
  }
  return first;
}

}  // namespace qgpu::host
