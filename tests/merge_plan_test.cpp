// The merged checkpoint's shape (merge::plan_merge, issue 6): Qwen3.5-2B and -0.8B take
// the compiled GPU; bases with other head shapes get one error naming the key; and the
// norm compensation restores each part's RMSNorm over the widened residual.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "base/error.h"
#include "engine/ops.h"
#include "lift/machine_model.h"
#include "merge/plan.h"

namespace qgpu {
namespace {

// A Qwen3.5 text config with the table's values (shared/reference/qwen35.md §2).
engine::Config qwen35(int hidden, int intermediate, int value_heads, bool tied) {
  engine::Config c;
  c.hidden_size = hidden;
  c.num_hidden_layers = 24;
  for (int i = 0; i < 24; ++i) c.layer_types.push_back((i + 1) % 4 ? "linear_attention" : "full_attention");
  c.intermediate_size = intermediate;
  c.vocab_size = 248320;
  c.num_attention_heads = 8;
  c.num_key_value_heads = 2;
  c.head_dim = 256;
  c.linear_num_key_heads = 16;
  c.linear_num_value_heads = value_heads;
  c.linear_key_head_dim = 128;
  c.linear_value_head_dim = 128;
  c.tie_word_embeddings = tied;
  return c;
}

TEST(MergePlan, Qwen35_2BTakesTheGpuInFront) {
  const engine::Config gpu = lift::machine_config();
  const merge::MergePlan p = merge::plan_merge(qwen35(2048, 6144, 16, true), gpu, "2b/config.json");
  EXPECT_EQ(p.merged.hidden_size, 2048 + gpu.hidden_size);
  EXPECT_EQ(p.merged.num_hidden_layers, gpu.num_hidden_layers + 24);
  EXPECT_EQ(p.merged.intermediate_size, 6144);  // the GPU's 6,080 units padded
  EXPECT_EQ(p.merged.vocab_size, 248320 + gpu.vocab_size);
  EXPECT_EQ(p.base_vocab, 248320);
  EXPECT_EQ(p.gpu_layers, gpu.num_hidden_layers);
  ASSERT_EQ(std::ssize(p.merged.layer_types), p.merged.num_hidden_layers);
  for (int il = 0; il < gpu.num_hidden_layers; ++il) EXPECT_EQ(p.merged.layer_types[il], gpu.layer_types[il]);
  EXPECT_EQ(p.merged.layer_types[gpu.num_hidden_layers + 3], "full_attention");  // base layer 3
  EXPECT_TRUE(p.untied);
  EXPECT_FALSE(p.merged.tie_word_embeddings);
  EXPECT_DOUBLE_EQ(p.base_norm_scale * p.base_norm_scale + p.gpu_norm_scale * p.gpu_norm_scale, 1.0);
}

TEST(MergePlan, Qwen35_08BPadsItsMlpToTheGpus) {
  const engine::Config gpu = lift::machine_config();
  const merge::MergePlan p = merge::plan_merge(qwen35(1024, 3584, 16, true), gpu, "0.8b/config.json");
  EXPECT_EQ(p.merged.intermediate_size, gpu.intermediate_size);
  EXPECT_EQ(p.merged.hidden_size, 1024 + gpu.hidden_size);
}

TEST(MergePlan, OtherHeadShapesAreOneErrorNamingTheKey) {
  try {
    merge::plan_merge(qwen35(4096, 12288, 32, false), lift::machine_config(), "9b/config.json");
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("9b/config.json"), std::string::npos) << what;
    EXPECT_NE(what.find("linear_num_value_heads is 32"), std::string::npos) << what;
    EXPECT_NE(what.find("need 16"), std::string::npos) << what;
  }
}

// RMSNorm of a part's d entries, and of the same entries followed by G entries of +0 with
// the compensated multiplier: equal to a few f32 roundings (eps 0 here: the merge keeps
// the config's eps, which the design measures separately).
TEST(MergePlan, CompensatedNormsRestoreEachPartsRms) {
  std::mt19937 rng(3);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (auto [d, G] : {std::pair{2048, 7808}, std::pair{7808, 2048}, std::pair{64, 7808}}) {
    const double scale = std::sqrt(static_cast<double>(d) / (d + G));
    std::vector<float> x(static_cast<size_t>(d + G), 0.0f), w(static_cast<size_t>(d)), mult(static_cast<size_t>(d)),
        mult_merged(static_cast<size_t>(d + G), 1.0f), y(static_cast<size_t>(d)), y_merged(static_cast<size_t>(d + G));
    for (int i = 0; i < d; ++i) {
      x[i] = normal(rng) * 3.0f;
      w[i] = normal(rng) * 0.1f;
      mult[i] = 1.0f + w[i];
      mult_merged[i] = 1.0f + merge::compensate_norm_weight(w[i], scale);
    }
    engine::rms_norm(x.data(), mult.data(), y.data(), d, 0.0f);
    engine::rms_norm(x.data(), mult_merged.data(), y_merged.data(), d + G, 0.0f);
    for (int i = 0; i < d; ++i) ASSERT_NEAR(y_merged[i], y[i], 4e-6f * std::abs(y[i]) + 1e-30f) << d << " " << i;
    for (int i = d; i < d + G; ++i) ASSERT_EQ(y_merged[i], 0.0f);
  }
}

}  // namespace
}  // namespace qgpu
