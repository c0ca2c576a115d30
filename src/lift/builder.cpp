// Zero-initialised tensors with the identity settings, held sparse; written through the
// engine's safetensors writer so the checkpoint is exactly what transformers and our
// loader read.
#include "lift/builder.h"

#include <filesystem>
#include <ostream>

#include "base/error.h"
#include "base/mapped_file.h"
#include "engine/safetensors.h"

namespace qgpu::lift {

using engine::Config;

namespace {

void add(Builder& b, const std::string& name, std::vector<int64_t> shape, float fill = 0.0f) {
  b.tensors[name] = {std::move(shape), fill, {}};
}

void add_layer(Builder& b, int il) {
  const Config& c = b.config;
  int64_t H = c.hidden_size, I = c.intermediate_size;
  std::string p = b.layer(il);
  add(b, p + "input_layernorm.weight", {H});
  add(b, p + "post_attention_layernorm.weight", {H});
  add(b, p + "mlp.gate_proj.weight", {I, H});
  add(b, p + "mlp.up_proj.weight", {I, H});
  add(b, p + "mlp.down_proj.weight", {H, I});
  if (c.is_linear(il)) {
    std::string a = p + "linear_attn.";
    int64_t Hv = c.linear_num_value_heads;
    add(b, a + "in_proj_qkv.weight", {c.conv_dim(), H});
    add(b, a + "in_proj_z.weight", {c.value_dim(), H});
    add(b, a + "in_proj_b.weight", {Hv, H});
    add(b, a + "in_proj_a.weight", {Hv, H});
    add(b, a + "conv1d.weight", {c.conv_dim(), 1, c.linear_conv_kernel_dim});
    add(b, a + "dt_bias", {Hv});
    add(b, a + "A_log", {Hv}, kALogNoDecay);
    add(b, a + "norm.weight", {c.linear_value_head_dim}, 1.0f);
    add(b, a + "out_proj.weight", {H, c.value_dim()});
  } else {
    std::string a = p + "self_attn.";
    int64_t D = c.head_dim, nH = c.num_attention_heads, nKV = c.num_key_value_heads;
    add(b, a + "q_proj.weight", {nH * D * 2, H});
    add(b, a + "k_proj.weight", {nKV * D, H});
    add(b, a + "v_proj.weight", {nKV * D, H});
    add(b, a + "o_proj.weight", {H, nH * D});
    add(b, a + "q_norm.weight", {D});
    add(b, a + "k_norm.weight", {D});
  }
}

}  // namespace

int64_t Builder::Tensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::vector<float> Builder::Tensor::dense() const {
  std::vector<float> v(static_cast<size_t>(numel()), fill);
  for (const auto& [i, x] : set) v[static_cast<size_t>(i)] = x;
  return v;
}

Builder::Builder(Config c) : config(std::move(c)) {
  int64_t H = config.hidden_size, V = config.vocab_size;
  add(*this, "model.embed_tokens.weight", {V, H});
  for (int il = 0; il < config.num_hidden_layers; ++il) add_layer(*this, il);
  add(*this, "model.norm.weight", {H});
  if (!config.tie_word_embeddings) add(*this, "lm_head.weight", {V, H});
}

std::string Builder::layer(int il) const { return fmt::format("model.layers.{}.", il); }

float& Builder::at(const std::string& name, int64_t row, int64_t col) {
  auto it = tensors.find(name);
  CHECK(it != tensors.end());
  Tensor& t = it->second;
  int64_t cols = t.shape.size() >= 2 ? t.shape[1] : 1;
  CHECK(row >= 0 && row < t.shape[0] && col >= 0 && col < cols);
  return t.set.try_emplace(row * cols + col, t.fill).first->second;
}

float& Builder::conv(int il, int64_t channel, int tap) {
  Tensor& t = tensors.at(layer(il) + "linear_attn.conv1d.weight");
  int K = config.linear_conv_kernel_dim;
  CHECK(tap >= 0 && tap < K);
  CHECK(channel >= 0 && channel < config.conv_dim());
  return t.set.try_emplace(channel * K + tap, t.fill).first->second;
}

void Builder::write(const std::string& dir, engine::DType dtype, const std::string& tokenizer_json) const {
  std::filesystem::create_directories(dir);
  // Each tensor is made dense (and converted) only while the writer streams it.
  std::vector<engine::TensorView> views;
  for (const auto& [name, t] : tensors) {
    // A_log and the gated norm stay f32, as in the official checkpoints.
    bool keep_f32 = name.ends_with("A_log") || name.ends_with("linear_attn.norm.weight");
    const engine::DType as = keep_f32 ? engine::DType::f32 : dtype;
    engine::TensorView v{name, as, t.shape, nullptr};
    v.produce = [&t, as, name](std::ostream& out) {
      engine::TensorData d = engine::make_tensor(name, as, t.shape, t.dense());
      out.write(reinterpret_cast<const char*>(d.bytes.data()), static_cast<std::streamsize>(d.bytes.size()));
    };
    views.push_back(std::move(v));
  }
  engine::write_safetensors_dir(dir, views);
  engine::Config c = config;
  c.dtype = engine::torch_dtype_name(dtype);
  write_file_atomic(dir + "/config.json", [&](std::ostream& o) { o << engine::config_to_json(c).dump(2) << "\n"; });
  write_file_atomic(dir + "/tokenizer.json", [&](std::ostream& o) { o << tokenizer_json; });
}

}  // namespace qgpu::lift
