#include "merge/widen.h"

#include <algorithm>
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

// v [rows][cols] (a 1-D v: rows of one) into [out_rows][out_cols], the rest +0; every
// value times `scale` (rounded once), or a norm's rows compensated by `norm_scale`.
RowSource padded(std::string name, const engine::TensorView& v, int64_t out_rows, int64_t out_cols,
                 double norm_scale = 0, double scale = 1) {
  const int64_t rows = v.shape[0], cols = v.shape.size() > 1 ? v.shape[1] : 1;
  RowSource t{std::move(name), v.shape, nullptr};
  t.shape[0] = out_rows;
  if (t.shape.size() > 1) t.shape[1] = out_cols;
  t.fill = [&v, rows, cols, out_cols, norm_scale, scale](int64_t row0, int64_t n, float* out) {
    std::fill(out, out + n * out_cols, 0.0f);
    for (int64_t r = row0; r < std::min(rows, row0 + n); ++r) {
      float* o = out + (r - row0) * out_cols;
      engine::widen_row(v, r * cols, cols, o);
      if (norm_scale != 0) o[0] = compensate_norm_weight(o[0], norm_scale);
      if (scale != 1)
        for (int64_t c = 0; c < cols; ++c) o[c] = static_cast<float>(static_cast<double>(o[c]) * scale);
    }
  };
  return t;
}

}  // namespace

int64_t RowSource::cols() const {
  int64_t c = 1;
  for (size_t i = 1; i < shape.size(); ++i) c *= shape[i];
  return c;
}

Role tensor_role(const std::string& name) {
  if (ends_with_any(name, {"embed_tokens.weight"}) || name == "lm_head.weight") return Role::vocab;
  if (ends_with_any(name, {"q_proj.weight", "k_proj.weight", "v_proj.weight", "in_proj_qkv.weight", "in_proj_z.weight",
                           "in_proj_b.weight", "in_proj_a.weight"}))
    return Role::reader;
  if (ends_with_any(name, {"mlp.gate_proj.weight", "mlp.up_proj.weight"})) return Role::mlp_in;
  if (ends_with_any(name, {"o_proj.weight", "out_proj.weight"})) return Role::writer;
  if (ends_with_any(name, {"mlp.down_proj.weight"})) return Role::mlp_out;
  if (ends_with_any(name, {"input_layernorm.weight", "post_attention_layernorm.weight"}) ||
      name == "model.norm.weight" || name == "model.language_model.norm.weight")
    return Role::main_norm;
  return Role::other;
}

std::optional<RowSource> widen_base_rows(const MergePlan& p, const std::string& name, const engine::TensorView& v) {
  if (name.starts_with("model.visual.") || name.starts_with("mtp.")) return std::nullopt;
  const std::string out = merged_name(p, name);
  const int64_t d = p.base_hidden, D = p.merged.hidden_size, I = p.merged.intermediate_size;
  const int64_t rows = v.shape.empty() ? 0 : v.shape[0], cols = v.shape.size() > 1 ? v.shape[1] : 0;
  const double s = p.base_residual_scale;  // on what writes the residual; not on the head
  switch (tensor_role(name)) {
    case Role::vocab:
      expect_shape(name, v, {p.base_vocab, d});
      return padded(out, v, p.base_vocab, D, 0, out == "lm_head.weight" ? 1 : s);
    case Role::reader: expect_shape(name, v, {rows, d}); return padded(out, v, rows, D);
    case Role::mlp_in: expect_shape(name, v, {rows, d}); return padded(out, v, I, D);
    case Role::writer: expect_shape(name, v, {d, cols}); return padded(out, v, D, cols, 0, s);
    case Role::mlp_out: expect_shape(name, v, {d, cols}); return padded(out, v, D, I, 0, s);
    case Role::main_norm:
      expect_shape(name, v, {d});
      // A tied head is the embedding, scaled by s with everything that writes the residual:
      // the final norm takes s back off the base's logits.
      if (out == "model.norm.weight" && p.merged.tie_word_embeddings)
        return padded(out, v, D, 1, p.base_norm_scale / p.base_residual_scale);
      return padded(out, v, D, 1, p.base_norm_scale);
    case Role::other: break;
  }
  RowSource t{out, v.shape, nullptr};
  const int64_t n_cols = t.cols();
  t.fill = [&v, n_cols](int64_t row0, int64_t n, float* o) { engine::widen_row(v, row0 * n_cols, n * n_cols, o); };
  return t;
}

std::optional<MergedTensor> widen_base_tensor(const MergePlan& p, const std::string& name, const engine::TensorView& v) {
  std::optional<RowSource> s = widen_base_rows(p, name, v);
  if (!s) return std::nullopt;
  MergedTensor t{s->name, s->shape, std::vector<float>(static_cast<size_t>(s->rows() * s->cols()))};
  s->fill(0, s->rows(), t.values.data());
  return t;
}

}  // namespace qgpu::merge
