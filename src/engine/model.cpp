// Binding a HF checkpoint directory to a Model: every tensor found by its transformers name,
// its dtype and shape checked against the config, and every tensor of the files accounted
// for (vision and MTP tensors of the multimodal wrapper are skipped by prefix; anything
// else unknown is an error naming it). Matmul weights stay mmap'd unless a dtype is asked.
#include "engine/model.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "base/error.h"
#include "engine/ops.h"

namespace qgpu::engine {
namespace {

// Looks tensors up by name and remembers which were used: a checkpoint's views, or
// tensors made in memory (bind_model), whose matmul weights are sparse.
struct Binder {
  const std::map<std::string, const TensorView*>& by_name;
  std::string where;   // the directory, for errors
  std::string prefix;  // "model." or "model.language_model."
  std::set<std::string> used;
  const std::map<std::string, Linear>* sparse = nullptr;

  const TensorView* find(const std::string& name) const {
    auto it = by_name.find(name);
    return it == by_name.end() ? nullptr : it->second;
  }
  const TensorView& get(const std::string& name, const std::vector<int64_t>& shape) {
    const TensorView* v = find(name);
    if (!v) fail("{}: missing tensor '{}' (shape {})", where, name, shape_string(shape));
    if (v->shape != shape)
      fail("{}: tensor '{}' has shape {}, the config needs {}", where, name,
           shape_string(v->shape), shape_string(shape));
    used.insert(name);
    return *v;
  }
  // A matmul weight (or the embedding): sparse when made so, else bound as load_hf_model does.
  Linear linear(Model& m, const std::string& name, const std::vector<int64_t>& shape) {
    const TensorView& v = get(name, shape);
    if (sparse)
      if (auto it = sparse->find(name); it != sparse->end()) {
        CHECK(it->second.w.dtype == m.dtype && it->second.sparse);
        return it->second;
      }
    return bind_linear(m, v, shape);
  }
  std::vector<float> vec(const std::string& name, const std::vector<int64_t>& shape) {
    return to_f32(get(name, shape));
  }
  // A zero-centred RMSNorm weight as its multiplier 1 + w (f32, as transformers computes it).
  std::vector<float> norm(const std::string& name, int64_t n) {
    std::vector<float> w = vec(name, {n});
    for (float& x : w) x = 1.0f + x;
    return w;
  }
};

void bind_deltanet(Model& m, Binder& b, const std::string& p) {
  const Config& c = m.config;
  int64_t H = c.hidden_size, C = c.conv_dim(), Hv = c.linear_num_value_heads, K = c.linear_conv_kernel_dim;
  DeltaNetWeights& w = m.layers.back().linear_attn;
  w.in_proj_qkv = b.linear(m, p + "in_proj_qkv.weight", {C, H});
  w.in_proj_z = b.linear(m, p + "in_proj_z.weight", {c.value_dim(), H});
  w.in_proj_b = b.linear(m, p + "in_proj_b.weight", {Hv, H});
  w.in_proj_a = b.linear(m, p + "in_proj_a.weight", {Hv, H});
  w.out_proj = b.linear(m, p + "out_proj.weight", {H, c.value_dim()});
  w.conv1d = b.vec(p + "conv1d.weight", {C, 1, K});
  w.dt_bias = b.vec(p + "dt_bias", {Hv});
  w.a = b.vec(p + "A_log", {Hv});
  for (float& x : w.a) x = -std::exp(x);
  w.norm = b.vec(p + "norm.weight", {c.linear_value_head_dim});
}

void bind_attention(Model& m, Binder& b, const std::string& p) {
  const Config& c = m.config;
  int64_t H = c.hidden_size, D = c.head_dim, nH = c.num_attention_heads, nKV = c.num_key_value_heads;
  AttentionWeights& w = m.layers.back().self_attn;
  w.q_proj = b.linear(m, p + "q_proj.weight", {nH * D * 2, H});
  w.k_proj = b.linear(m, p + "k_proj.weight", {nKV * D, H});
  w.v_proj = b.linear(m, p + "v_proj.weight", {nKV * D, H});
  w.o_proj = b.linear(m, p + "o_proj.weight", {H, nH * D});
  w.q_norm = b.norm(p + "q_norm.weight", D);
  w.k_norm = b.norm(p + "k_norm.weight", D);
}

void bind_layer(Model& m, Binder& b, int il) {
  const Config& c = m.config;
  int64_t H = c.hidden_size, I = c.intermediate_size;
  std::string p = fmt::format("{}layers.{}.", b.prefix, il);
  m.layers.push_back({});
  LayerWeights& l = m.layers.back();
  l.linear = c.is_linear(il);
  l.input_layernorm = b.norm(p + "input_layernorm.weight", H);
  l.post_attention_layernorm = b.norm(p + "post_attention_layernorm.weight", H);
  if (l.linear)
    bind_deltanet(m, b, p + "linear_attn.");
  else
    bind_attention(m, b, p + "self_attn.");
  l.gate_proj = b.linear(m, p + "mlp.gate_proj.weight", {I, H});
  l.up_proj = b.linear(m, p + "mlp.up_proj.weight", {I, H});
  l.down_proj = b.linear(m, p + "mlp.down_proj.weight", {H, I});
}

// Tensors we skip on purpose: the wrapper's vision tower and the MTP head.
bool skipped(const std::string& name) {
  return name.starts_with("model.visual.") || name.starts_with("mtp.");
}

void check_all_used(const Binder& b) {
  for (const auto& [name, view] : b.by_name)
    if (!b.used.count(name) && !skipped(name))
      fail("{}: unexpected tensor '{}' (not part of a Qwen3.5 text model with this config)",
           b.where, name);
}

// The matmul dtype of a checkpoint: the embedding's.
DType stored_dtype(const TensorView& embed) { return embed.dtype; }

// Every tensor of the model from b, in `dtype` (or the embedding's stored dtype).
void bind_all(Model& m, Binder& b, std::optional<DType> dtype) {
  if (b.find("model.language_model.embed_tokens.weight")) b.prefix = "model.language_model.";
  const Config& c = m.config;
  int64_t H = c.hidden_size, V = c.vocab_size;
  m.dtype = dtype.value_or(stored_dtype(b.get(b.prefix + "embed_tokens.weight", {V, H})));
  m.embed_tokens = b.linear(m, b.prefix + "embed_tokens.weight", {V, H});
  for (int il = 0; il < c.num_hidden_layers; ++il) bind_layer(m, b, il);
  m.norm = b.norm(b.prefix + "norm.weight", H);
  if (c.tie_word_embeddings) {
    m.lm_head = m.embed_tokens;
    if (b.find("lm_head.weight")) b.used.insert("lm_head.weight");  // a saved copy of the tie
  } else {
    m.lm_head = b.linear(m, "lm_head.weight", {V, H});
  }
  check_all_used(b);
}

}  // namespace

int Model::key_head_of(int j) const {
  int nk = config.linear_num_key_heads, nv = config.linear_num_value_heads;
  return v_heads_tiled ? j % nk : j / (nv / nk);
}

Linear bind_linear(Model& m, const TensorView& v, std::vector<int64_t> want_shape) {
  CHECK(v.shape == want_shape);
  if (v.dtype == m.dtype) return Linear{v};
  m.converted.push_back(convert_tensor(v, m.dtype));
  return Linear{m.converted.back().view};
}

void Linear::row(int64_t r, float* out) const {
  if (!sparse) {
    widen_row(w, r * in(), in(), out);
    return;
  }
  std::fill_n(out, in(), 0.0f);
  auto it = std::lower_bound(sparse->rows.begin(), sparse->rows.end(), static_cast<int32_t>(r));
  if (it == sparse->rows.end() || *it != r) return;
  const size_t k = static_cast<size_t>(it - sparse->rows.begin());
  for (int64_t i = sparse->row_start[k]; i < sparse->row_start[k + 1]; ++i) out[sparse->col[i]] = sparse->value[i];
}

std::vector<float> Linear::dense() const {
  if (!sparse) return to_f32(w);
  std::vector<float> v(static_cast<size_t>(out() * in()), 0.0f);
  const CsrWeight& s = *sparse;
  for (size_t k = 0; k < s.rows.size(); ++k)
    for (int64_t i = s.row_start[k]; i < s.row_start[k + 1]; ++i) v[s.rows[k] * in() + s.col[i]] = s.value[i];
  return v;
}

Model load_hf_model(const std::string& dir, std::optional<DType> dtype) {
  Model m;
  m.config = load_config(dir);
  m.safetensors.push_back(load_safetensors_dir(dir));
  Binder b{m.safetensors.back().by_name, dir, "model.", {}};
  bind_all(m, b, dtype);
  return m;
}

Model bind_model(Config config, DType dtype, std::deque<TensorData> dense, const std::map<std::string, Linear>& sparse,
                 const std::string& where) {
  Model m;
  m.config = std::move(config);
  m.owned = std::move(dense);
  std::map<std::string, const TensorView*> by_name;
  std::deque<TensorView> views;  // of the dense tensors
  for (const TensorData& t : m.owned) by_name[t.name] = &views.emplace_back(t.view());
  for (const auto& [name, w] : sparse) {
    CHECK(!by_name.count(name) && name == w.w.name);
    by_name[name] = &w.w;
  }
  Binder b{by_name, where, "model.", {}, &sparse};
  bind_all(m, b, dtype);
  return m;
}

Model load_model(const std::string& path, std::optional<DType> dtype) {
  namespace fs = std::filesystem;
  if (fs::is_directory(path)) return load_hf_model(path, dtype);
  if (path.ends_with(".gguf")) return load_gguf_model(path, dtype);
  if (!fs::exists(path)) fail("'{}': no such file or directory", path);
  fail("'{}': not a checkpoint (expected a Hugging Face directory or a .gguf file)", path);
}

}  // namespace qgpu::engine
