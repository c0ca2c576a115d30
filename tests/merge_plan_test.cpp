// The merged checkpoint's shape (merge::plan_merge, issue 6): Qwen3.5-2B and -0.8B take
// the compiled GPU; bases with other head shapes get one error naming every key; the norm
// compensation restores each part's RMSNorm over the widened residual; and a tiny base
// widened tensor by tensor (merge::widen_base_tensor) keeps its logits.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <vector>

#include "base/error.h"
#include "engine/forward.h"
#include "engine/model.h"
#include "engine/ops.h"
#include "engine/safetensors.h"
#include "engine/state.h"
#include "engine/tiny_model.h"
#include "lift/machine_model.h"
#include "merge/plan.h"
#include "merge/widen.h"
#include "test_util.h"

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
  EXPECT_EQ(p.merged.intermediate_size, 6144);  // the GPU's, Qwen3.5-2B's
  EXPECT_EQ(p.merged.vocab_size, 248320 + gpu.vocab_size);
  EXPECT_EQ(p.base_vocab, 248320);
  EXPECT_EQ(p.gpu_layers, gpu.num_hidden_layers);
  ASSERT_EQ(std::ssize(p.merged.layer_types), p.merged.num_hidden_layers);
  for (int il = 0; il < gpu.num_hidden_layers; ++il) EXPECT_EQ(p.merged.layer_types[il], gpu.layer_types[il]);
  EXPECT_EQ(p.merged.layer_types[gpu.num_hidden_layers + 3], "full_attention");  // base layer 3
  EXPECT_TRUE(p.merged.tie_word_embeddings);  // as the base: the GPU's rows are input codes and head patterns
  EXPECT_DOUBLE_EQ(p.base_norm_scale * p.base_norm_scale + p.gpu_norm_scale * p.gpu_norm_scale, 1.0);
}

TEST(MergePlan, Qwen35_08BPadsItsMlpToTheGpus) {
  const engine::Config gpu = lift::machine_config();
  const merge::MergePlan p = merge::plan_merge(qwen35(1024, 3584, 16, true), gpu, "0.8b/config.json");
  EXPECT_EQ(p.merged.intermediate_size, gpu.intermediate_size);
  EXPECT_EQ(p.merged.hidden_size, 1024 + gpu.hidden_size);
}

TEST(MergePlan, OtherHeadShapesAreOneErrorNamingEveryKey) {
  engine::Config base = qwen35(4096, 12288, 32, false);  // Qwen3.5-9B's 32 value heads
  base.head_dim = 128;
  base.rms_norm_eps = 1e-5;
  try {
    merge::plan_merge(base, lift::machine_config(), "9b/config.json");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "9b/config.json: the compiled GPU cannot be merged into this base: 3 of its keys differ from the GPU's "
              "layers, which are built for Qwen3.5-2B's head shapes (Qwen3.5-0.8B and -2B share them):\n"
              "  linear_num_value_heads is 32 but the compiled GPU's layers need 16: take a base whose "
              "linear_num_value_heads is 16\n"
              "  head_dim is 128 but the compiled GPU's layers need 256: take a base whose head_dim is 256\n"
              "  rms_norm_eps is 1e-05 but the compiled GPU's layers need 1e-06: take a base whose rms_norm_eps is "
              "1e-06\n"
              "Merge into Qwen/Qwen3.5-2B or Qwen/Qwen3.5-0.8B (`qgpu build --base Qwen/Qwen3.5-2B`), or, to try the "
              "merge without their weights, into a tiny random base: `qgpu tiny-model --mergeable --out DIR`");
  }
}

// `qgpu tiny-model --mergeable` (engine::mergeable_tiny_spec of the GPU's config): a base
// the plan takes, whatever the other flags' sizes; a head-shape flag that disagrees with
// the GPU's is an error before anything is written.
TEST(MergePlan, TinyModelMergeableIsABaseThePlanTakes) {
  test_util::TempDir tmp;
  const engine::Config gpu = lift::machine_config();
  engine::write_tiny_model(tmp / "spec", engine::mergeable_tiny_spec(gpu));
  EXPECT_NO_THROW(merge::plan_merge(engine::load_config(tmp / "spec"), gpu, "spec/config.json"));

  test_util::Result r = test_util::qgpu("tiny-model --mergeable --hidden 96 --heads 8 --out " + tmp / "cli");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("qgpu build --base " + tmp / "cli"), std::string::npos) << r.out;
  const engine::Config c = engine::load_config(tmp / "cli");
  EXPECT_EQ(c.hidden_size, 96);
  EXPECT_EQ(c.layer_types, (std::vector<std::string>{"linear_attention", "full_attention"}));
  EXPECT_NO_THROW(merge::plan_merge(c, gpu, "cli/config.json"));

  r = test_util::qgpu("tiny-model --mergeable --head-dim 16 --out " + tmp / "bad");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, fmt::format("qgpu: error: tiny-model: --head-dim 16 conflicts with --mergeable: the compiled GPU's "
                               "layers need --head-dim {}; drop --head-dim (or --mergeable, for a base `qgpu build` "
                               "will not take)\n",
                               gpu.head_dim));
  EXPECT_FALSE(std::filesystem::exists(tmp / "bad"));
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

std::vector<float> all_logits(const std::string& dir, const std::vector<int32_t>& tokens) {
  engine::Model m = engine::load_model(dir, engine::DType::f32);
  engine::Runtime rt(m, {.threads = 1, .matmul = engine::MatmulPath::reference});
  engine::State s = engine::make_state(m.config);
  std::vector<float> logits;
  rt.forward(s, tokens, logits, true);
  return logits;
}

// KL(base || widened) per position over the base's vocabulary, the largest.
double max_kl(const std::vector<float>& base, const std::vector<float>& wide, int64_t V, int64_t wide_V, size_t T,
              int& agree) {
  double worst = 0;
  agree = 0;
  for (size_t t = 0; t < T; ++t) {
    const float* a = &base[t * V];
    const float* b = &wide[t * wide_V];
    const double ma = *std::max_element(a, a + V), mb = *std::max_element(b, b + V);
    double za = 0, zb = 0;
    for (int64_t i = 0; i < V; ++i) za += std::exp(a[i] - ma), zb += std::exp(b[i] - mb);
    double kl = 0;
    for (int64_t i = 0; i < V; ++i)
      kl += std::exp(a[i] - ma) / za * ((a[i] - ma - std::log(za)) - (b[i] - mb - std::log(zb)));
    worst = std::max(worst, kl);
    agree += std::max_element(a, a + V) - a == std::max_element(b, b + V) - b;
  }
  return worst;
}

// A tiny base (tied, in the multimodal wrapper's layout: its vision and MTP tensors are
// left out) widened by 243 +0 dims and 4 +0 MLP units, as a merge does with no GPU layers
// in front: the same greedy tokens and a KL at f32's rounding floor (this model's reference
// and fast matmuls differ by a KL of ~1e-9), with the config's eps: the residual scale
// sqrt(D / d) on what writes the residual gives the main norms exactly their own eps. Without
// it (eps * D / d) this random model, whose residual is small, is ~1e-5 off.
TEST(MergePlan, WideningATinyBaseKeepsItsLogits) {
  test_util::TempDir tmp;
  engine::TinySpec spec;
  spec.layers = "LLLF";
  spec.multimodal_wrapper = true;
  engine::write_tiny_model(tmp / "base", spec);
  engine::Config base = engine::load_config(tmp / "base");
  base.model_type = "qwen3_5_text";
  std::ofstream(tmp / "base/config.json") << engine::config_to_json(base).dump(2);  // now a text config
  engine::Config gpu = base;  // a GPU of 243 dims and no layers: the widening alone
  gpu.hidden_size = 243;
  gpu.num_hidden_layers = 0;
  gpu.layer_types.clear();
  gpu.vocab_size = 0;
  gpu.intermediate_size = base.intermediate_size + 4;
  const merge::MergePlan p = merge::plan_merge(base, gpu, "base/config.json");

  engine::SafetensorsDir dir = engine::load_safetensors_dir(tmp / "base");
  std::vector<engine::TensorData> out;
  auto add = [&](const std::string& name, const engine::TensorView& v) {
    std::optional<merge::MergedTensor> t = merge::widen_base_tensor(p, name, v);
    if (!t) return;
    engine::TensorData d{t->name, engine::DType::f32, t->shape, {}};
    d.bytes.resize(t->values.size() * 4);
    std::memcpy(d.bytes.data(), t->values.data(), d.bytes.size());
    out.push_back(std::move(d));
  };
  int skipped = 0;
  for (const auto& [name, v] : dir.by_name) {
    skipped += !merge::widen_base_tensor(p, name, *v).has_value();
    add(name, *v);
  }
  EXPECT_EQ(skipped, 2);  // model.visual.*, mtp.*
  // Tied as the base: the embedding, scaled with everything that writes the residual, is the
  // head, and the final norm takes the scale back off.
  ASSERT_TRUE(p.merged.tie_word_embeddings);
  std::filesystem::create_directories(tmp / "wide");
  std::vector<engine::TensorView> views;
  for (const engine::TensorData& t : out) views.push_back(t.view());
  engine::write_safetensors_dir(tmp / "wide", views);
  std::ofstream(tmp / "wide/config.json") << engine::config_to_json(p.merged).dump(2);
  std::filesystem::copy_file(tmp / "base/tokenizer.json", tmp / "wide/tokenizer.json");

  std::vector<int32_t> tokens;
  std::mt19937 rng(1);
  for (int i = 0; i < 48; ++i) tokens.push_back(static_cast<int32_t>(rng() % base.vocab_size));
  int agree = 0;
  const double kl = max_kl(all_logits(tmp / "base", tokens), all_logits(tmp / "wide", tokens), base.vocab_size,
                           p.merged.vocab_size, tokens.size(), agree);
  EXPECT_LT(kl, 1e-7) << "largest KL(base || widened)";
  RecordProperty("max_kl", fmt::format("{:.3g}", kl));
  EXPECT_EQ(agree, std::ssize(tokens));
}

}  // namespace
}  // namespace qgpu
