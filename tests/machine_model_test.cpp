// The compiled machine, stage by stage, against the interpreter: after the prompt of a real
// compiled kernel, the ROM and memory the host reads out of the model's recurrent state
// equal the interpreter's, in f32, bf16 and f16 weights (machine_state_test checks the
// residual's norm and the stages that follow).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "compiler/compile.h"
#include "engine/forward.h"
#include "gpu/interp.h"
#include "host/readout.h"
#include "lift/machine_model.h"
#include "machine_launches.h"
#include "test_util.h"

namespace qgpu {
namespace {

using namespace engine;

using test_util::Launched;
std::vector<Launched> launches() { return test_util::image_launches(); }


// generation_gap accepts atomics whose d is apart from their base, b and c (the model
// reads them at the token that writes d) and names the others.
TEST(MachineModel, GenerationGapOnAtomics) {
  auto gap = [](const std::string& body) {
    Program p = assemble(".kernel k\n.grid 1\n.block 4\n.array x 4 = 1, 2, 3, 4\n    mov r1, 1\n" + body + "    exit\n", "k.qasm");
    return lift::generation_gap(p.code, p.launch).value_or("");
  };
  EXPECT_EQ(gap("    atom.add r2, [x], r1\n"), "");
  EXPECT_EQ(gap("    atom.add r2, [r1+x], r1\n"), "");
  EXPECT_NE(gap("    atom.add r1, [x], r1\n").find("block 1: atom.add writes r1, which it also reads"), std::string::npos);
  EXPECT_NE(gap("    atom.add r1, [r1+x], r2\n").find("writes r1, which it also reads"), std::string::npos);
  EXPECT_NE(gap("    atom.add r2, [x], %tid.x\n").find("not a register"), std::string::npos);
  EXPECT_EQ(gap("    atom.min.s r2, [x], r1\n    atom.max.u r3, [x], r2\n    atom.exch r4, [x], r3\n"), "");
  EXPECT_NE(gap("    atom.max.s r1, [x], r1\n").find("writes r1, which it also reads"), std::string::npos);
  EXPECT_EQ(gap("    atom.cas r2, [x], r1, r1\n"), "");
  EXPECT_NE(gap("    atom.cas r2, [x], r1, r2\n").find("writes r2, which it also reads"), std::string::npos);
  EXPECT_NE(gap("    atom.cas r2, [x], r1, %tid.x\n").find("base or operand b or c that is not a register"), std::string::npos);
}

TEST(MachineModel, ImageReadOutEqualsTheInterpreterInEveryDtype) {
  std::vector<Launched> ls = launches();
  for (DType t : {DType::f32, DType::bf16, DType::f16}) {
    Model m = load_model(test_util::machine_model(), t);
    Runtime rt(m, {.threads = 2, .skip_zero_rows = true});
    for (const Launched& l : ls) {
      State s = make_state(m.config);
      std::vector<float> logits;
      rt.forward(s, l.prompt, logits);
      std::vector<std::optional<uint32_t>> mem = host::read_memory(m, s);
      int checked = 0;
      for (int a = 0; a < kMemWords; ++a) {
        if (!l.after_image.mem_written[a]) {
          EXPECT_FALSE(mem[a].has_value()) << dtype_name(t) << ": word " << a << " was never written";
          continue;
        }
        ASSERT_TRUE(mem[a].has_value()) << dtype_name(t) << ": word " << a;
        EXPECT_EQ(*mem[a], l.after_image.mem[a]) << dtype_name(t) << ": word " << a;
        ++checked;
      }
      EXPECT_GT(checked, 10);
      std::array<RomSlot, kBlocks> rom = host::read_rom(m, s);
      for (int blk = 0; blk < kBlocks; ++blk)
        EXPECT_TRUE(rom[blk] == l.after_image.rom[blk]) << dtype_name(t) << ": ROM block " << blk;
    }
  }
}

// The compiled machine's weights all go to the CSR kernel, which sums in the reference's
// order, so skip_zero_rows on the fast path gives the reference path's bits (not the dense
// fast path's: that one sums in another order). The KV cache is not compared: the
// attention layer's o_proj is zero, so skip_zero_rows never runs that layer. The first 5
// tokens of the prompt only: the reference multiplies every weight densely, in scalar
// loops, about 150 ms a token here.
TEST(MachineModel, SkippingZeroRowsEqualsTheReference) {
  Launched l = launches()[0];
  l.prompt.resize(std::min<size_t>(l.prompt.size(), 5));
  for (DType t : {DType::f32, DType::bf16}) {
    Model m = load_model(test_util::machine_model(), t);
    std::vector<float> logits[2];
    State states[2] = {make_state(m.config), make_state(m.config)};
    Runtime ref(m, {.threads = 2, .matmul = MatmulPath::reference});
    ref.forward(states[0], l.prompt, logits[0], true);
    Runtime skip(m, {.threads = 2, .skip_zero_rows = true});
    skip.forward(states[1], l.prompt, logits[1], true);
    auto same_bits = [](const std::vector<float>& a, const std::vector<float>& b) {
      // (an attention layer's recurrent state is empty: memcmp must not see its null data())
      return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
    };
    EXPECT_TRUE(same_bits(logits[0], logits[1])) << dtype_name(t);
    for (int il = 0; il < m.config.num_hidden_layers; ++il) {
      const LayerState &a = states[0].layers[il], &b = states[1].layers[il];
      EXPECT_TRUE(same_bits(a.recurrent, b.recurrent)) << dtype_name(t) << " layer " << il;
      EXPECT_TRUE(same_bits(a.conv, b.conv)) << dtype_name(t) << " layer " << il;
    }
  }
}

TEST(MachineModel, AutoThreadsCountsTheWorkAsItWillRun) {
  // Multiplied densely the machine is large (all cores); from its CSR copies it is about
  // 79 thousand multiply-adds a token (one thread).
  Model m = load_model(test_util::machine_model());
  EXPECT_EQ(Runtime(m).threads(), default_thread_count());
  EXPECT_EQ(Runtime(m, {.skip_zero_rows = true}).threads(), 1);
}

}  // namespace
}  // namespace qgpu
