// The compiled machine's state stages against the interpreter, by teacher forcing: real
// corpus launches are fed record by record (the prompt, then the interpreter's records),
// and after every token
//   - the step and every register and predicate written in this wave, decoded from the
//     recurrent state (host::read_step, host::read_register), equal the interpreter's;
//   - the fetch (the ROM fields of the step's block) and the operands of every lane in the
//     step's mask, decoded from the residual after L1 and L2, equal the interpreter's;
//   - L2's lane control (effective lanes, next PCs, exits and arrivals) equals the
//     interpreter's;
//   - the residual stream has one norm per layer at every position (DESIGN-NOTES §3);
// in f32, bf16 and f16 weights (llama.cpp's rounding) and bf16 with transformers' rounding.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>

#include "engine/forward.h"
#include "gpu/interp.h"
#include "host/readout.h"
#include "lift/machine_model.h"
#include "machine_launches.h"
#include "test_util.h"

namespace qgpu {
namespace {

using namespace engine;
using test_util::Forced;

// Launches that reach every kind of record: 4-byte values, broadcast and per-lane values,
// predicates and guards, branches and divergence, stores, atomics, barriers, waves, exits.
std::vector<Forced> launches() {
  return {test_util::corpus_forced("vecadd", 1),          test_util::corpus_forced("atomic_minmax", 0),
          test_util::corpus_forced("reduce_sum_shared", 1), test_util::corpus_forced("parity_branch", 0),
          test_util::corpus_forced("select_chain", 0),     test_util::corpus_forced("mulhi", 0),
          test_util::corpus_forced("byte_swap", 0),        test_util::corpus_forced("early_return", 0)};
}

// The hot entry of a one-hot residual field; -1 unless exactly one entry is near 1 and the
// others near 0.
int hot(std::span<const float> x, const lift::Field& f, int first = 0, int n = -1) {
  if (n < 0) n = f.size - first;
  int found = -1;
  for (int i = 0; i < n; ++i) {
    float v = x[f.dim(first + i)];
    if (v > 0.5f && v < 1.5f && found < 0) found = i;
    else if (std::fabs(v) > 0.25f) return -1;
  }
  return found;
}

// A word of 8 one-hot nibbles in a residual field; nullopt when it is not a valid code.
std::optional<uint32_t> word(std::span<const float> x, const lift::Field& f) {
  uint32_t w = 0;
  for (int g = 0; g < 8; ++g) {
    int n = hot(x, f, 16 * g, 16);
    if (n < 0) return std::nullopt;
    w |= static_cast<uint32_t>(n) << (4 * g);
  }
  return w;
}

struct Setting {
  DType dtype;
  Rounding rounding;
  std::string name() const {
    return std::string(dtype_name(dtype)) + (rounding == Rounding::transformers ? "/transformers" : "");
  }
};

class MachineState_ : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new test_util::TempDir();
    lift::write_machine_model(*dir_ / "gpu", DType::f32);
    launches_ = new std::vector<Forced>(launches());
  }
  static void TearDownTestSuite() {
    delete dir_;
    delete launches_;
  }
  void check(const Setting& setting);

  static test_util::TempDir* dir_;
  static std::vector<Forced>* launches_;
};
test_util::TempDir* MachineState_::dir_ = nullptr;
std::vector<Forced>* MachineState_::launches_ = nullptr;

// L2's lane control for one lane: effective or not, the PC after the step, exit/arrive.
// `pred` says what the lane's guard predicate holds (nullopt: not written in this wave,
// so the interpreter has no say).
void check_lane_control(const lift::Layout& l, const MachineState& st, std::span<const float> x, int lane,
                        const std::function<std::optional<uint32_t>(int)>& pred, const std::string& at) {
  Rec step = test_util::expected_step(st);
  const RomSlot& slot = st.rom[step.y];
  const std::string s = std::to_string(lane);
  bool in = step.z >> lane & 1;
  std::optional<uint32_t> p = slot.guard == 0 ? std::optional<uint32_t>(1) : pred(kRegs + 1 + (slot.guard - 1) % 4);
  if (!p) return;
  bool eff = in && ((*p != 0) != (slot.guard >= 5));
  EXPECT_EQ(hot(x, l["eff" + s]), eff ? 0 : 1) << at << ": lane " << lane << " effective";
  int target = eff && slot.op == Op::kBra ? static_cast<int>(slot.imm) : (step.y + 1) % kBlocks;
  EXPECT_EQ(hot(x, l["npc_hi" + s]), in ? target / 8 : 16) << at << ": lane " << lane << " next PC / 8";
  EXPECT_EQ(hot(x, l["npc_lo" + s]), in ? target % 8 : 8) << at << ": lane " << lane << " next PC % 8";
  if (in && st.window[3].kind == Tok::kSched) {
    EXPECT_EQ(st.lane[step.x][lane].pc, target) << at << ": the interpreter's PC of lane " << lane;
  }
  int act = !eff ? 0 : slot.op == Op::kExit ? 1 : slot.op == Op::kBar ? 2 : 0;
  EXPECT_EQ(hot(x, l["act" + s]), act) << at << ": lane " << lane << " exit/arrive";
}

// What the residual after L1 (the fetch) and L2 (the operands) must hold at a position.
void check_residual(const lift::Layout& l, const MachineState& st, std::span<const float> after1,
                    std::span<const float> after2, const std::string& at) {
  Rec step = test_util::expected_step(st);
  const RomSlot& slot = st.rom[step.y];
  ASSERT_EQ(hot(after1, l["f_op"]), slot.op ? static_cast<int>(*slot.op) + 1 : 0) << at << ": fetched op";
  EXPECT_EQ(hot(after1, l["f_guard"]), slot.guard) << at;
  EXPECT_EQ(hot(after1, l["f_d"]), slot.d) << at;
  EXPECT_EQ(hot(after1, l["f_a"]), slot.a) << at;
  EXPECT_EQ(hot(after1, l["f_b"]), slot.b) << at;
  EXPECT_EQ(hot(after1, l["f_c"]), slot.c) << at;
  EXPECT_EQ(word(after1, l["f_imm"]), slot.imm) << at;
  const char* port[3] = {"ra", "rb", "rc"};
  const int codes[3] = {slot.a, slot.b, slot.c};
  for (int lane = 0; lane < kLanes; ++lane) {
    bool in = step.z >> lane & 1;
    const LaneState& ls = st.lane[step.x][lane];
    // What a port of this lane must read: the null slot's 0 unless the lane is in the mask
    // and the field is a register or predicate; nothing to compare when the interpreter
    // says it is not written in this wave (the model still holds an older valid word).
    auto expected = [&](int code) -> std::optional<uint32_t> {
      if (!in || code < 1 || code > kRegs + kPreds) return 0u;
      if (code <= kRegs) return (ls.r_written >> (code - 1) & 1) ? std::optional<uint32_t>(ls.r[code - 1]) : std::nullopt;
      int pi = code - 1 - kRegs;
      return (ls.p_written >> pi & 1) ? std::optional<uint32_t>(ls.p[pi]) : std::nullopt;
    };
    for (int p = 0; p < 3; ++p) {
      std::optional<uint32_t> got = word(after2, l[port[p] + std::to_string(lane)]);
      ASSERT_TRUE(got.has_value()) << at << ": lane " << lane << " port " << port[p] << " is not a word";
      std::optional<uint32_t> want = expected(codes[p]);
      if (want) {
        EXPECT_EQ(*got, *want) << at << ": lane " << lane << " port " << port[p];
      }
    }
    ASSERT_NO_FATAL_FAILURE(check_lane_control(l, st, after2, lane, expected, at));
    int g = hot(after2, l["rg" + std::to_string(lane)]);
    std::optional<uint32_t> want = expected(slot.guard >= 1 ? kRegs + 1 + (slot.guard - 1) % 4 : 0);
    ASSERT_GE(g, 0) << at << ": lane " << lane << " guard is not a code";
    if (want) {
      EXPECT_EQ(static_cast<uint32_t>(g), *want) << at << ": lane " << lane << " guard";
    }
  }
}

void MachineState_::check(const Setting& setting) {
  Model m = load_model(*dir_ / "gpu", setting.dtype);
  const lift::Layout l = lift::machine_layout();
  std::map<std::string, std::pair<double, double>> norms;  // per traced name and layer: min, max
  std::vector<float> after1, after2;
  Runtime rt(m, {.threads = 1, .rounding = setting.rounding, .skip_zero_rows = true,
                 .trace = [&](const char* name, int il, int64_t, std::span<const float> v) {
                   std::string_view what(name);
                   if (what != "embed" && what != "attn_residual" && what != "layer_out") return;  // what RMSNorm sees
                   double n = 0;
                   for (float x : v) n += double(x) * x;
                   auto& r = norms.try_emplace(std::string(name) + std::to_string(il), INFINITY, 0).first->second;
                   r = {std::min(r.first, std::sqrt(n)), std::max(r.second, std::sqrt(n))};
                   if (what == "layer_out" && il == 1) after1.assign(v.begin(), v.end());
                   if (what == "layer_out" && il == 2) after2.assign(v.begin(), v.end());
                 }});
  int64_t tokens = 0;
  for (const Forced& f : *launches_) {
    State s = make_state(m.config);
    std::vector<float> logits;
    for (size_t i = 0; i < f.tokens.size(); ++i) {
      rt.forward(s, std::span(&f.tokens[i], 1), logits);
      const MachineState& st = f.after[i];
      std::string at = setting.name() + " " + f.name + " token " + std::to_string(i) + " (" +
                       record_text(decode_token(f.tokens[i])) + ")";
      ASSERT_NO_FATAL_FAILURE(test_util::expect_machine_state(m, s, st, at));
      ASSERT_NO_FATAL_FAILURE(check_residual(l, st, after1, after2, at));
    }
    tokens += static_cast<int64_t>(f.tokens.size());
  }
  double worst = 0;
  for (const auto& [name, range] : norms) {
    auto [lo, hi] = range;
    EXPECT_LE(hi - lo, 1e-4 * hi) << setting.name() << " " << name << ": norm ranges over [" << lo << ", " << hi << "]";
    worst = std::max(worst, (hi - lo) / hi);
  }
  std::cout << "[ forced ] " << setting.name() << ": the residual's norm varies by at most " << worst
            << " (relative) across positions, per layer\n";
  std::cout << "[ forced ] " << setting.name() << ": " << launches_->size() << " launches, " << tokens
            << " tokens; state, fetch, operands and lane control equal the interpreter's at every token\n";
}

TEST_F(MachineState_, F32) { check({DType::f32, Rounding::llama_cpp}); }
TEST_F(MachineState_, Bf16) { check({DType::bf16, Rounding::llama_cpp}); }
TEST_F(MachineState_, Bf16Transformers) { check({DType::bf16, Rounding::transformers}); }
TEST_F(MachineState_, F16) { check({DType::f16, Rounding::llama_cpp}); }

}  // namespace
}  // namespace qgpu
