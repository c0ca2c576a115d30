#include "merge/widen.h"

#include <string_view>

#include <fmt/ranges.h>

#include "base/error.h"

namespace qgpu::merge {
namespace {

bool ends_with_any(std::string_view name, std::initializer_list<std::string_view> tails) {
  for (std::string_view t : tails)
    if (name.ends_with(t)) return true;
  return false;
}

// The text-layout name with the layer shifted past the GPU's.
std::string merged_name(const MergePlan& p, std::string name) {
  static constexpr std::string_view kWrapper = "model.language_model.", kLayers = "model.layers.";
  if (name.starts_with(kWrapper)) name = "model." + name.substr(kWrapper.size());
  if (!name.starts_with(kLayers)) return name;
  const size_t dot = name.find('.', kLayers.size());
  const std::string index = name.substr(kLayers.size(), dot - kLayers.size());
  if (dot == std::string::npos || index.empty() || index.find_first_not_of("0123456789") != std::string::npos)
    fail("base tensor {}: no layer index after '{}'", name, kLayers);
  return fmt::format("{}{}{}", kLayers, std::stoi(index) + p.gpu_layers, name.substr(dot));
}

void expect_shape(const std::string& name, const engine::TensorView& v, std::vector<int64_t> shape) {
  if (v.shape == shape) return;
  fail("base tensor {}: shape [{}] but its config.json gives [{}]; the checkpoint and its config disagree", name,
       fmt::join(v.shape, ", "), fmt::join(shape, ", "));
}

// v [rows][cols] into [out_rows][out_cols], the rest +0.
MergedTensor padded(std::string name, const engine::TensorView& v, int64_t out_rows, int64_t out_cols) {
  const int64_t rows = v.shape[0], cols = v.shape.size() > 1 ? v.shape[1] : 1;
  MergedTensor t{std::move(name), v.shape, std::vector<float>(static_cast<size_t>(out_rows * out_cols), 0.0f)};
  t.shape[0] = out_rows;
  if (t.shape.size() > 1) t.shape[1] = out_cols;
  for (int64_t r = 0; r < rows; ++r) engine::widen_row(v, r * cols, cols, &t.values[static_cast<size_t>(r * out_cols)]);
  return t;
}

}  // namespace

std::optional<MergedTensor> widen_base_tensor(const MergePlan& p, const std::string& name, const engine::TensorView& v) {
  if (name.starts_with("model.visual.") || name.starts_with("mtp.")) return std::nullopt;
  const std::string out = merged_name(p, name);
  const int64_t d = p.base_hidden, D = p.merged.hidden_size, I = p.merged.intermediate_size;
  const int64_t rows = v.shape.empty() ? 0 : v.shape[0];
  if (ends_with_any(name, {"embed_tokens.weight"}) || name == "lm_head.weight") {
    expect_shape(name, v, {p.base_vocab, d});
    return padded(out, v, p.base_vocab, D);
  }
  if (ends_with_any(name, {"q_proj.weight", "k_proj.weight", "v_proj.weight", "in_proj_qkv.weight", "in_proj_z.weight",
                           "in_proj_b.weight", "in_proj_a.weight"})) {
    expect_shape(name, v, {rows, d});
    return padded(out, v, rows, D);
  }
  if (ends_with_any(name, {"mlp.gate_proj.weight", "mlp.up_proj.weight"})) {
    expect_shape(name, v, {rows, d});
    return padded(out, v, I, D);
  }
  if (ends_with_any(name, {"o_proj.weight", "out_proj.weight"})) {
    expect_shape(name, v, {d, v.shape.size() > 1 ? v.shape[1] : 0});
    return padded(out, v, D, v.shape[1]);
  }
  if (ends_with_any(name, {"mlp.down_proj.weight"})) {
    expect_shape(name, v, {d, v.shape.size() > 1 ? v.shape[1] : 0});
    return padded(out, v, D, I);
  }
  if (ends_with_any(name, {"input_layernorm.weight", "post_attention_layernorm.weight"}) || out == "model.norm.weight") {
    expect_shape(name, v, {d});
    MergedTensor t = padded(out, v, D, 1);
    for (int64_t i = 0; i < d; ++i) t.values[static_cast<size_t>(i)] = compensate_norm_weight(t.values[static_cast<size_t>(i)], p.base_norm_scale);
    return t;
  }
  MergedTensor t{out, v.shape, std::vector<float>(static_cast<size_t>(v.numel()))};
  engine::widen_row(v, 0, v.numel(), t.values.data());
  return t;
}

}  // namespace qgpu::merge
