#include "merge/plan.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "base/error.h"

namespace qgpu::merge {
namespace {

// One field both parts' layers share, which the merge cannot change: an Error if they differ.
template <typename T>
void same(const std::string& where, const char* key, T base, T gpu) {
  if (base == gpu) return;
  fail("{}: {} is {} but the compiled GPU's layers need {} (they are built for Qwen3.5-2B's head "
       "shapes, which Qwen3.5-0.8B and -2B share); merge into a base with those shapes",
       where, key, base, gpu);
}

}  // namespace

MergePlan plan_merge(const engine::Config& base, const engine::Config& gpu, const std::string& where) {
  same(where, "linear_num_key_heads", base.linear_num_key_heads, gpu.linear_num_key_heads);
  same(where, "linear_num_value_heads", base.linear_num_value_heads, gpu.linear_num_value_heads);
  same(where, "linear_key_head_dim", base.linear_key_head_dim, gpu.linear_key_head_dim);
  same(where, "linear_value_head_dim", base.linear_value_head_dim, gpu.linear_value_head_dim);
  same(where, "linear_conv_kernel_dim", base.linear_conv_kernel_dim, gpu.linear_conv_kernel_dim);
  same(where, "num_attention_heads", base.num_attention_heads, gpu.num_attention_heads);
  same(where, "num_key_value_heads", base.num_key_value_heads, gpu.num_key_value_heads);
  same(where, "head_dim", base.head_dim, gpu.head_dim);
  same(where, "rope_parameters.rope_theta", base.rope_theta, gpu.rope_theta);
  same(where, "rope_parameters.partial_rotary_factor", base.partial_rotary_factor, gpu.partial_rotary_factor);
  same(where, "rms_norm_eps", base.rms_norm_eps, gpu.rms_norm_eps);
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
