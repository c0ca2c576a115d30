// Random weights with scales that keep activations O(1) through any depth (so logits are
// O(1) and llama.cpp's float32 probabilities do not underflow): matrices ~ N(0, 1/in),
// embeddings ~ N(0, 0.25^2), zero-centred norms ~ N(0, 0.1^2) (so a missed +1 shows),
// A_log and dt_bias spread so decays differ per head. The tokenizer is the tiny byte-level
// BPE of tiny_tokenizer.h.
#include "engine/tiny_model.h"

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "base/error.h"
#include "base/mapped_file.h"
#include "engine/config.h"
#include "engine/safetensors.h"
#include "engine/tiny_tokenizer.h"

namespace qgpu::engine {
namespace {

struct Writer {
  const TinySpec& spec;
  std::string prefix;
  std::mt19937_64 rng;
  std::vector<TensorData> tensors;

  void add(const std::string& name, std::vector<int64_t> shape, float mean, float std,
           DType t) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    std::normal_distribution<float> dist(mean, std);
    std::vector<float> v(static_cast<size_t>(n));
    for (float& x : v) x = dist(rng);
    tensors.push_back(make_tensor(name, t, std::move(shape), v));
  }
  void matrix(const std::string& name, int64_t out, int64_t in) {
    add(name, {out, in}, 0.0f, 1.0f / std::sqrt(static_cast<float>(in)), spec.dtype);
  }
  void norm(const std::string& name, int64_t n) { add(name, {n}, 0.0f, 0.1f, spec.dtype); }
};

void add_deltanet(Writer& w, const Config& c, const std::string& p) {
  int64_t H = c.hidden_size, Hv = c.linear_num_value_heads;
  w.matrix(p + "in_proj_qkv.weight", c.conv_dim(), H);
  w.matrix(p + "in_proj_z.weight", c.value_dim(), H);
  w.matrix(p + "in_proj_b.weight", Hv, H);
  w.matrix(p + "in_proj_a.weight", Hv, H);
  w.add(p + "conv1d.weight", {c.conv_dim(), 1, c.linear_conv_kernel_dim}, 0.0f, 0.4f, w.spec.dtype);
  w.add(p + "dt_bias", {Hv}, 1.0f, 0.5f, w.spec.dtype);
  // log U(0.01, 16) as transformers initialises A_log; stored f32 like the official files.
  std::uniform_real_distribution<float> u(0.01f, 16.0f);
  std::vector<float> a_log(Hv);
  for (float& x : a_log) x = std::log(u(w.rng));
  w.tensors.push_back(make_tensor(p + "A_log", DType::f32, {Hv}, a_log));
  w.add(p + "norm.weight", {c.linear_value_head_dim}, 1.0f, 0.1f, DType::f32);
  w.matrix(p + "out_proj.weight", H, c.value_dim());
}

void add_attention(Writer& w, const Config& c, const std::string& p) {
  int64_t H = c.hidden_size, D = c.head_dim, nH = c.num_attention_heads, nKV = c.num_key_value_heads;
  w.matrix(p + "q_proj.weight", nH * D * 2, H);
  w.matrix(p + "k_proj.weight", nKV * D, H);
  w.matrix(p + "v_proj.weight", nKV * D, H);
  w.matrix(p + "o_proj.weight", H, nH * D);
  w.norm(p + "q_norm.weight", D);
  w.norm(p + "k_norm.weight", D);
}

// The head shapes, the spec's field and the config's side by side: tiny_config copies them
// one way, mergeable_tiny_spec the other.
constexpr std::array<std::pair<int TinySpec::*, int Config::*>, 7> kHeadShapes = {{
    {&TinySpec::num_attention_heads, &Config::num_attention_heads},
    {&TinySpec::num_key_value_heads, &Config::num_key_value_heads},
    {&TinySpec::head_dim, &Config::head_dim},
    {&TinySpec::linear_num_key_heads, &Config::linear_num_key_heads},
    {&TinySpec::linear_num_value_heads, &Config::linear_num_value_heads},
    {&TinySpec::linear_key_head_dim, &Config::linear_key_head_dim},
    {&TinySpec::linear_value_head_dim, &Config::linear_value_head_dim},
}};

Config tiny_config(const TinySpec& s, int vocab) {
  Config c;
  c.hidden_size = s.hidden_size;
  c.num_hidden_layers = static_cast<int>(s.layers.size());
  c.intermediate_size = s.intermediate_size;
  c.vocab_size = vocab;
  for (const auto& [spec, config] : kHeadShapes) c.*config = s.*spec;
  c.tie_word_embeddings = s.tie_word_embeddings;
  c.dtype = torch_dtype_name(s.dtype);
  for (char l : s.layers) {
    if (l != 'L' && l != 'F') fail("tiny model: layer pattern '{}' may only hold L and F", s.layers);
    c.layer_types.push_back(l == 'L' ? "linear_attention" : "full_attention");
  }
  return c;
}

nlohmann::json wrap_config(const nlohmann::json& text) {
  nlohmann::json text_cfg = text;
  text_cfg["model_type"] = "qwen3_5_text";
  text_cfg.erase("architectures");
  return {{"architectures", {"Qwen3_5ForConditionalGeneration"}},
          {"model_type", "qwen3_5"},
          {"text_config", text_cfg},
          {"vision_config", {{"model_type", "qwen3_5"}, {"depth", 1}, {"hidden_size", 16}}},
          {"tie_word_embeddings", text.value("tie_word_embeddings", false)}};
}

void write_json(const std::string& path, const nlohmann::json& j) {
  write_file_atomic(path, [&](std::ostream& out) { out << j.dump(2) << "\n"; });
}

}  // namespace

void write_tiny_model(const std::string& dir, const TinySpec& spec) {
  std::filesystem::create_directories(dir);
  std::string tokenizer = make_tiny_tokenizer_json(spec.n_merges);
  nlohmann::json tj = nlohmann::json::parse(tokenizer);
  int tok_vocab = static_cast<int>(tj["model"]["vocab"].size() + tj["added_tokens"].size());
  int im_end = -1;
  for (const auto& t : tj["added_tokens"])
    if (t["content"] == "<|im_end|>") im_end = t["id"].get<int>();
  CHECK(im_end >= 0);
  int vocab = spec.vocab_size > 0 ? spec.vocab_size : (tok_vocab + 63) / 64 * 64;
  if (vocab < tok_vocab) fail("tiny model: vocab_size {} < tokenizer size {}", vocab, tok_vocab);
  Config c = tiny_config(spec, vocab);
  c.eos_token_id = {im_end};
  parse_config(config_to_json(c), "tiny model");  // the same validation as a real load

  Writer w{spec, spec.multimodal_wrapper ? "model.language_model." : "model.",
           std::mt19937_64(spec.seed), {}};
  w.add(w.prefix + "embed_tokens.weight", {vocab, c.hidden_size}, 0.0f, 0.25f, spec.dtype);
  for (int il = 0; il < c.num_hidden_layers; ++il) {
    std::string p = fmt::format("{}layers.{}.", w.prefix, il);
    w.norm(p + "input_layernorm.weight", c.hidden_size);
    w.norm(p + "post_attention_layernorm.weight", c.hidden_size);
    if (c.is_linear(il))
      add_deltanet(w, c, p + "linear_attn.");
    else
      add_attention(w, c, p + "self_attn.");
    w.matrix(p + "mlp.gate_proj.weight", c.intermediate_size, c.hidden_size);
    w.matrix(p + "mlp.up_proj.weight", c.intermediate_size, c.hidden_size);
    w.matrix(p + "mlp.down_proj.weight", c.hidden_size, c.intermediate_size);
  }
  w.norm(w.prefix + "norm.weight", c.hidden_size);
  if (!c.tie_word_embeddings) w.add("lm_head.weight", {vocab, c.hidden_size}, 0.0f, 0.25f, spec.dtype);
  if (spec.multimodal_wrapper) {
    w.add("model.visual.patch_embed.proj.weight", {16, 3, 2, 2, 2}, 0.0f, 0.02f, spec.dtype);
    w.add("mtp.fc.weight", {c.hidden_size, 2 * c.hidden_size}, 0.0f, 0.02f, spec.dtype);
  }

  std::vector<TensorView> views;
  for (const TensorData& t : w.tensors) views.push_back(t.view());
  write_safetensors_dir(dir, views, spec.max_shard_bytes);
  nlohmann::json cfg = config_to_json(c);
  write_json(dir + "/config.json", spec.multimodal_wrapper ? wrap_config(cfg) : cfg);
  write_file_atomic(dir + "/tokenizer.json", [&](std::ostream& out) { out << tokenizer; });
}

TinySpec mergeable_tiny_spec(const Config& gpu) {
  TinySpec s;
  s.layers = "LF";
  for (const auto& [spec, config] : kHeadShapes) s.*spec = gpu.*config;
  return s;
}

}  // namespace qgpu::engine
