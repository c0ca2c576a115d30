// The compiled machine's state stages against the interpreter, by teacher forcing: real
// corpus launches are fed record by record (the prompt, then the interpreter's records),
// and after every token
//   - the step and every register and predicate written in this wave, decoded from the
//     recurrent state (host::read_step, host::read_register), equal the interpreter's;
//   - the fetch (the ROM fields of the step's block) and the operands of every lane in the
//     step's mask, decoded from the residual after L1 and L2, equal the interpreter's;
//   - L2's lane control (effective lanes, next PCs, exits and arrivals) equals the
//     interpreter's;
//   - every lane's runnable state and the scheduler's next record (barrier release, the
//     next warp and its min-PC lanes, another wave, the end), decoded from the residual
//     after L4 and L8, equal interp's schedule() while the launch runs;
//   - the residual stream has one norm per layer at every position (DESIGN-NOTES §3);
// in f32, bf16 and f16 weights (llama.cpp's rounding) and bf16 with transformers' rounding.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>

#include "engine/forward.h"
#include "gpu/interp.h"
#include "host/check.h"
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
// Under ASan+UBSan (the engine about 10x slower) the first two: the same code paths.
std::vector<Forced> launches() {
#if defined(QGPU_ASAN)
  return {test_util::corpus_forced("vecadd", 1), test_util::corpus_forced("atomic_minmax", 0)};
#endif
  return {test_util::corpus_forced("vecadd", 1),          test_util::corpus_forced("atomic_minmax", 0),
          test_util::corpus_forced("reduce_sum_shared", 1), test_util::corpus_forced("parity_branch", 0),
          test_util::corpus_forced("select_chain", 0),     test_util::corpus_forced("mulhi", 0),
          test_util::corpus_forced("byte_swap", 0),        test_util::corpus_forced("early_return", 0),
          test_util::corpus_forced("warp_sum_xor", 0),     test_util::corpus_forced("ballot_count", 0)};
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
    launches_ = new std::vector<Forced>(launches());
  }
  static void TearDownTestSuite() {
    delete launches_;
  }
  void check(const Setting& setting);

  static std::vector<Forced>* launches_;
};
std::vector<Forced>* MachineState_::launches_ = nullptr;

void MachineState_::check(const Setting& setting) {
  const Model& m = test_util::gpu_model(setting.dtype);
  std::map<std::string, std::pair<double, double>> norms;  // per traced name and layer: min, max
  const std::vector<int> hots = lift::machine_hots();
  double worst_energy = 0;  // |energy / designed hots - 1|
  auto trace = [&](const char* name, int il, int64_t, std::span<const float> v) {
    std::string_view what(name);
    if (what != "embed" && what != "attn_residual" && what != "layer_out") return;  // what RMSNorm sees
    double n = 0;
    for (float x : v) n += double(x) * x;
    auto& r = norms.try_emplace(std::string(name) + std::to_string(il), INFINITY, 0).first->second;
    r = {std::min(r.first, std::sqrt(n)), std::max(r.second, std::sqrt(n))};
    int sublayer = what == "embed" ? 0 : what == "attn_residual" ? 2 * il + 1 : 2 * il + 2;
    worst_energy = std::max(worst_energy, std::fabs(n / hots[sublayer] - 1));
  };
  int64_t tokens = 0;
  for (const Forced& f : *launches_) {
    host::CheckReport c = host::check_launch(
        m, {.threads = 1, .rounding = setting.rounding, .skip_zero_rows = true, .probe = trace}, f.prompt, f.records);
    ASSERT_FALSE(c.first) << setting.name() << " " << f.name << ": " << c.first->text();
    EXPECT_EQ(c.tokens, static_cast<int64_t>(f.prompt.size() + f.records.size()));
    tokens += c.tokens;
  }
  // The weights are scaled for machine_hots(): the energy must be what it says (bf16 and
  // f16: exactly, every read and rule output is 1; f32: to a few ulps of the gates. The
  // worst, 1.03e-5, is after L11, where the f32 errors of the rule outputs before it add
  // up; it rose above 1e-5 with %ctaid's division in L3-L4 and mw's move to L8, rules
  // that fire at every token: 8.4e-6 after L8).
  EXPECT_LT(worst_energy, 2e-5) << setting.name() << ": residual energy against machine_hots()";
  double worst = 0;
  for (const auto& [name, range] : norms) {
    auto [lo, hi] = range;
    EXPECT_LE(hi - lo, 1e-5 * hi) << setting.name() << " " << name << ": norm ranges over [" << lo << ", " << hi << "]";
    worst = std::max(worst, (hi - lo) / hi);
  }
  std::cout << "[ forced ] " << setting.name() << ": " << launches_->size() << " launches, " << tokens
            << " tokens; state, fetch, operands, lane control and the scheduler's record equal the interpreter's at every token; "
            << "the residual's norm varies by at most " << worst << " (relative) across positions, per layer, and its "
            << "energy is machine_hots()'s to " << worst_energy << "\n";
}

TEST_F(MachineState_, F32) { check({DType::f32, Rounding::llama_cpp}); }
TEST_F(MachineState_, Bf16) { check({DType::bf16, Rounding::llama_cpp}); }
TEST_F(MachineState_, Bf16Transformers) { check({DType::bf16, Rounding::transformers}); }
TEST_F(MachineState_, F16) { check({DType::f16, Rounding::llama_cpp}); }

}  // namespace
}  // namespace qgpu
