#include "merge/plan.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <variant>
#include <vector>

#include <fmt/ranges.h>

#include "base/error.h"

namespace qgpu::merge {
namespace {

// The config keys both parts' layers share, which the merge cannot change: the head shapes,
// the conv width, the rotary settings and the norms' eps (config.json's spelling).
struct SharedKey {
  const char* key;
  std::variant<int engine::Config::*, double engine::Config::*> field;
};
const SharedKey kSharedKeys[] = {
    {"linear_num_key_heads", &engine::Config::linear_num_key_heads},
    {"linear_num_value_heads", &engine::Config::linear_num_value_heads},
    {"linear_key_head_dim", &engine::Config::linear_key_head_dim},
    {"linear_value_head_dim", &engine::Config::linear_value_head_dim},
    {"linear_conv_kernel_dim", &engine::Config::linear_conv_kernel_dim},
    {"num_attention_heads", &engine::Config::num_attention_heads},
    {"num_key_value_heads", &engine::Config::num_key_value_heads},
    {"head_dim", &engine::Config::head_dim},
    {"rope_parameters.rope_theta", &engine::Config::rope_theta},
    {"rope_parameters.partial_rotary_factor", &engine::Config::partial_rotary_factor},
    {"rms_norm_eps", &engine::Config::rms_norm_eps},
};

// One line per shared key whose values differ: the key, both values, what to do.
std::vector<std::string> differing_keys(const engine::Config& base, const engine::Config& gpu) {
  std::vector<std::string> lines;
  for (const SharedKey& k : kSharedKeys)
    std::visit(
        [&](auto field) {
          if (base.*field == gpu.*field) return;
          lines.push_back(fmt::format("  {} is {} but the compiled GPU's layers need {}: take a base whose {} is {}",
                                      k.key, base.*field, gpu.*field, k.key, gpu.*field));
        },
        k.field);
  return lines;
}

}  // namespace

MergePlan plan_merge(const engine::Config& base, const engine::Config& gpu, const std::string& where) {
  if (const std::vector<std::string> lines = differing_keys(base, gpu); !lines.empty())
    fail("{}: the compiled GPU cannot be merged into this base: {} of its keys differ from the GPU's layers, which "
         "are built for Qwen3.5-2B's head shapes (Qwen3.5-0.8B and -2B share them):\n{}\n"
         "Merge into Qwen/Qwen3.5-2B or Qwen/Qwen3.5-0.8B (`qgpu build --base Qwen/Qwen3.5-2B`), or, to try the merge "
         "without their weights, into a tiny random base: `qgpu tiny-model --mergeable --out DIR`",
         where, lines.size(), fmt::join(lines, "\n"));
  const int64_t D = int64_t{base.hidden_size} + gpu.hidden_size;
  const int64_t V = int64_t{base.vocab_size} + gpu.vocab_size;
  if (D > INT32_MAX || V > INT32_MAX)
    fail("{}: hidden_size {} and vocab_size {} with the GPU's {} and {} overflow a 32-bit size", where,
         base.hidden_size, base.vocab_size, gpu.hidden_size, gpu.vocab_size);

  MergePlan p;
  p.base_hidden = base.hidden_size;
  p.gpu_hidden = gpu.hidden_size;
  p.base_vocab = base.vocab_size;
  p.gpu_vocab = gpu.vocab_size;
  p.base_intermediate = base.intermediate_size;
  p.gpu_layers = gpu.num_hidden_layers;
  p.base_norm_scale = std::sqrt(static_cast<double>(base.hidden_size) / static_cast<double>(D));
  p.gpu_norm_scale = std::sqrt(static_cast<double>(gpu.hidden_size) / static_cast<double>(D));
  p.base_residual_scale = residual_scale(p, true);

  engine::Config& m = p.merged;
  m = base;
  m.model_type = "qwen3_5_text";  // a wrapper's text model only
  m.hidden_size = static_cast<int>(D);
  m.vocab_size = static_cast<int>(V);
  m.num_hidden_layers = gpu.num_hidden_layers + base.num_hidden_layers;
  m.intermediate_size = std::max(base.intermediate_size, gpu.intermediate_size);
  m.layer_types = gpu.layer_types;
  m.layer_types.insert(m.layer_types.end(), base.layer_types.begin(), base.layer_types.end());
  // A tied base (Qwen3.5-2B) merges tied: the GPU's rows of the one matrix are its tokens'
  // input codes and head patterns at once (stage_emit.cpp).
  m.tie_word_embeddings = base.tie_word_embeddings;
  return p;
}

double residual_scale(const MergePlan& p, bool exact) {
  const double s = 1.0 / p.base_norm_scale;  // sqrt(D / d)
  return exact ? s : std::exp2(std::round(std::log2(s)));
}

float compensate_norm_weight(float w, double scale) {
  return static_cast<float>((1.0 + static_cast<double>(w)) * scale - 1.0);
}

}  // namespace qgpu::merge
