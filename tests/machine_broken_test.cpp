// The divergence finder can fail, and says where: models broken in one place (a conv tap
// of the byte assembly, a scheduler rule's output, the adder's carries) are named at the
// first token, layer and field the break shows. Each case builds its model in memory.
#include <gtest/gtest.h>

#include "engine/forward.h"
#include "gpu/interp.h"
#include "host/check.h"
#include "lift/machine_model.h"
#include "machine_launches.h"
#include "test_util.h"

namespace qgpu {
namespace {

using namespace engine;
using test_util::Forced;

class MachineBroken : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { vecadd_ = new Forced(test_util::corpus_forced("vecadd", 1)); }
  static void TearDownTestSuite() { delete vecadd_; }
  static Forced* vecadd_;
};
Forced* MachineBroken::vecadd_ = nullptr;

// The checker can fail, and says where: a model whose byte assembly lost a tap holds
// wrong 4-byte image words, named at the end of the prompt.
TEST_F(MachineBroken, ABrokenModelDivergesWhereItIsBroken) {
  lift::Builder b = lift::build_machine();
  const Config& c = b.config;
  int64_t channel = 2 * int64_t{c.key_dim()} + int64_t{lift::kWordBytesHead} * c.linear_value_head_dim + 16 * 4;
  b.conv(lift::kControlLayer, channel, 2) = 0.0f;  // byte 2's low nibble, one token back
  const Model m = b.model(DType::f32);  // in memory, as `--engine model` builds it
  const Forced& f = *vecadd_;
  host::CheckReport r = host::check_launch(m, {.threads = 1, .skip_zero_rows = true}, f.prompt, f.records);
  ASSERT_TRUE(r.first.has_value());
  EXPECT_EQ(r.first->token, static_cast<int64_t>(f.prompt.size()) - 1) << r.first->text();
  EXPECT_EQ(r.first->layer, lift::kMemoryLayer) << r.first->text();
  EXPECT_TRUE(r.first->field.starts_with("memory")) << r.first->text();
  std::cout << "[ broken ] " << r.first->text() << "\n";
}

// A scheduler that never picks warp 1 (its rules' output row zeroed) is named at the first
// token after which the interpreter would run warp 1, in the scheduler's record.
TEST_F(MachineBroken, ABrokenSchedulerDivergesWhereItIsBroken) {
  lift::Builder b = lift::build_machine();
  const lift::Layout l = lift::machine_layout();
  const std::string down = b.layer(lift::sched_layer(1)) + "mlp.down_proj.weight";
  for (int64_t u = 0; u < b.config.intermediate_size; ++u) b.at(down, l["nw"].dim(1), u) = 0.0f;
  const Model m = b.model(DType::f32);  // in memory, as `--engine model` builds it
  const Forced& f = *vecadd_;  // vecadd: 3 warps
  int64_t want = -1;
  MachineState st;
  for (size_t i = 0; i < f.prompt.size() + f.records.size() && want < 0; ++i) {
    apply(st, i < f.prompt.size() ? f.prompt[i] : f.records[i - f.prompt.size()]);
    if (st.phase == Phase::kRunning && schedule(st).kind == Tok::kSched && schedule(st).x == 1) want = i;
  }
  ASSERT_GE(want, 0);
  host::CheckReport r = host::check_launch(m, {.threads = 1, .skip_zero_rows = true}, f.prompt, f.records);
  ASSERT_TRUE(r.first.has_value());
  EXPECT_EQ(r.first->token, want) << r.first->text();
  EXPECT_EQ(r.first->layer, lift::kSchedLast) << r.first->text();
  EXPECT_EQ(r.first->field, "the scheduler's next record") << r.first->text();
  std::cout << "[ broken ] " << r.first->text() << "\n";
}

// An adder that never carries between nibbles emits a wrong value at the first add whose
// nibbles carry: `add r0, r0, r0` for a lane with %tid.x 4 or more in examples/lanes.qasm
// (the greedy record, checked at every running token of a program the model generates).
TEST_F(MachineBroken, ABrokenAdderDivergesAtTheEmittedRecord) {
  lift::Builder b = lift::build_machine();
  const lift::Layout l = lift::machine_layout();
  const std::string down = b.layer(lift::kAluLayer + 1) + "mlp.down_proj.weight";
  for (int g = 1; g < 8; ++g)
    for (int64_t u = 0; u < b.config.intermediate_size; ++u) {
      float& no = b.at(down, l["car"].dim(2 * (g - 1)), u);
      float& yes = b.at(down, l["car"].dim(2 * (g - 1) + 1), u);
      no += yes;  // a carry reads as none
      yes = 0.0f;
    }
  const Model m = b.model(DType::f32);  // in memory, as `--engine model` builds it
  Program p = assemble(test_util::read_file(std::string(QGPU_SOURCE_DIR) + "/examples/lanes.qasm"), "lanes.qasm");
  Trace t = run(p, p.launch);
  host::CheckReport r = host::check_launch(m, {.threads = 1, .skip_zero_rows = true}, t.prompt, t.records);
  ASSERT_TRUE(r.first.has_value());
  EXPECT_FALSE(r.gap);
  EXPECT_EQ(r.first->layer, lift::kEmitLayer) << r.first->text();
  EXPECT_EQ(r.first->field, "the emitted record (greedy)") << r.first->text();
  EXPECT_GT(r.emitted, 0) << r.first->text();
  std::cout << "[ broken ] " << r.first->text() << "\n";
}

}  // namespace
}  // namespace qgpu
