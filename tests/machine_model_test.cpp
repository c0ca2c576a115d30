// The compiled machine, stage by stage, against the interpreter: after the prompt of a real
// compiled kernel, the ROM and memory the host reads out of the model's recurrent state
// equal the interpreter's, in f32, bf16 and f16 weights; and the residual keeps one norm per
// layer at every position (DESIGN-NOTES §3).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "compiler/compile.h"
#include "engine/forward.h"
#include "gpu/interp.h"
#include "host/readout.h"
#include "lift/machine_model.h"
#include "test_util.h"

namespace qgpu {
namespace {

using namespace engine;

struct Launched {
  std::vector<int32_t> prompt;
  MachineState after_image;
};

Launched image_of(const std::string& kernel_file, std::vector<std::string> args, int grid, int block) {
  CompileOptions o{.file = kernel_file};
  o.launch = {grid, 1, block, 1};
  for (const std::string& a : args) o.args.push_back(parse_kernel_arg(a));
  CompiledKernel k = compile_cuda(test_util::read_file(std::string(QGPU_SOURCE_DIR) + "/" + kernel_file), o);
  Launched l;
  for (const Rec& r : encode_image(k.program, k.program.launch)) {
    l.prompt.push_back(token_id(r));
    apply(l.after_image, r);
  }
  return l;
}

// A prompt with large, negative and small words, ROM immediates before memory words, and
// random values: every path of the value assembly.
std::vector<Launched> launches() {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> any(INT32_MIN, INT32_MAX), small(-256, 511);
  std::string a = "a=[", b = "b=[";
  for (int i = 0; i < 24; ++i) {
    a += (i ? "," : "") + std::to_string(i % 3 ? any(rng) : small(rng));
    b += (i ? "," : "") + std::to_string(i % 2 ? any(rng) : small(rng));
  }
  return {image_of("kernels/vecadd.cu", {"a=[-5,7,1000,-2147483647,2147483647]", "b=[5,-8,24,-1,1]",
                                         "c=[0,0,0,0,0]", "n=5"}, 2, 3),
          image_of("kernels/vecadd.cu", {a + "]", b + "]", "c=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]", "n=24"}, 6, 4)};
}

class MachineModel : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new test_util::TempDir();
    lift::write_machine_model(*dir_ / "gpu", DType::f32);
  }
  static void TearDownTestSuite() { delete dir_; }
  static test_util::TempDir* dir_;
};
test_util::TempDir* MachineModel::dir_ = nullptr;

TEST_F(MachineModel, ImageReadOutEqualsTheInterpreterInEveryDtype) {
  std::vector<Launched> ls = launches();
  for (DType t : {DType::f32, DType::bf16, DType::f16}) {
    Model m = load_model(*dir_ / "gpu", t);
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

TEST_F(MachineModel, ResidualNormIsTheSameAtEveryPosition) {
  Launched l = launches()[1];
  Model m = load_model(*dir_ / "gpu");
  std::map<std::string, std::pair<double, double>> range;  // per named intermediate: min, max norm
  Runtime rt(m, {.threads = 1, .trace = [&](const char* name, int il, int64_t, std::span<const float> v) {
    double n = 0;
    for (float x : v) n += double(x) * x;
    auto& r = range.try_emplace(std::string(name) + std::to_string(il), INFINITY, 0).first->second;
    r.first = std::min(r.first, std::sqrt(n));
    r.second = std::max(r.second, std::sqrt(n));
  }});
  State s = make_state(m.config);
  std::vector<float> logits;
  rt.forward(s, l.prompt, logits);
  for (const char* name : {"embed-1", "attn_residual0", "layer_out0", "layer_out1", "layer_out2"}) {
    auto [lo, hi] = range.at(name);
    EXPECT_LE(hi - lo, 1e-5 * hi) << name << ": norm ranges over [" << lo << ", " << hi << "]";
  }
}

TEST_F(MachineModel, SkippingZeroRowsChangesNothing) {
  Launched l = launches()[0];
  for (DType t : {DType::f32, DType::bf16}) {
    Model m = load_model(*dir_ / "gpu", t);
    std::vector<float> logits[2];
    State states[2] = {make_state(m.config), make_state(m.config)};
    for (int skip = 0; skip < 2; ++skip) {
      Runtime rt(m, {.threads = 2, .skip_zero_rows = skip == 1});
      rt.forward(states[skip], l.prompt, logits[skip], true);
    }
    EXPECT_EQ(logits[0], logits[1]) << dtype_name(t);
    for (int il = 0; il < m.config.num_hidden_layers; ++il)
      EXPECT_EQ(states[0].layers[il].recurrent, states[1].layers[il].recurrent) << dtype_name(t) << " layer " << il;
  }
}

}  // namespace
}  // namespace qgpu
