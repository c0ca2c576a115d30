// A Qwen3.5 model to and from a llama.cpp GGUF (architecture qwen35).
//
// Loading turns the qwen35.* keys into the config.json fields they came from and runs them
// through parse_config, so a GGUF model is validated exactly like a HF one; then every
// tensor is found by its llama.cpp name with its shape checked against that config, and
// every tensor of the file must be used (MTP blocks past the text layers are skipped).
// GGUF already holds what the forward pass wants: norms are multipliers, ssm_a is
// -exp(A_log), value heads are tiled (the model says so; nothing is reordered).
// Writing does what llama.cpp's converter (conversion/qwen.py) does to a HF model: matmul
// weights and the embedding in the requested dtype, every vector and ssm_conv1d in F32, and,
// when the model's value heads are in HF's grouped order and Hv != Hk, the value heads moved
// to tiled order in every tensor that has them (_LinearAttentionVReorderBase). A
// tokenizer.json becomes a gpt2 vocabulary; without one the file says "none" and carries
// qwen35.vocab_size, which is what llama.cpp needs to size the embedding.
#include <fmt/format.h>

#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "base/error.h"
#include "base/text_file.h"
#include "engine/model.h"
#include "engine/ops.h"

namespace qgpu::engine {
namespace {

using nlohmann::json;
using KeyValues = std::vector<std::pair<std::string, GgufValue>>;

constexpr uint32_t kTypeBool = 7, kTypeString = 8, kTypeI32 = 5;
constexpr const char* kArch = "qwen35";

std::string key(const char* k) { return fmt::format("{}.{}", kArch, k); }

// ---------------------------------------------------------------- reading

std::vector<bool> recurrent_layers(const GgufFile& g, size_t n_layer) {
  const GgufValue* v = g.find_kv(key("attention.recurrent_layers"));
  if (!v) return {};
  const GgufArray* a = std::get_if<GgufArray>(&v->value);
  if (!a || a->items.size() < n_layer)
    fail("{}: key '{}' must be an array with one entry per layer ({})", g.file.path(),
         key("attention.recurrent_layers"), n_layer);
  std::vector<bool> out;
  for (size_t i = 0; i < n_layer; ++i) {
    const GgufValue& x = a->items[i];
    if (const bool* b = std::get_if<bool>(&x.value)) out.push_back(*b);
    else if (const uint64_t* u = std::get_if<uint64_t>(&x.value)) out.push_back(*u != 0);
    else if (const int64_t* s = std::get_if<int64_t>(&x.value)) out.push_back(*s != 0);
    else fail("{}: key '{}' holds a non-integer entry", g.file.path(), key("attention.recurrent_layers"));
  }
  return out;
}

uint64_t get_uint_or(const GgufFile& g, const std::string& k, uint64_t def) {
  return g.find_kv(k) ? g.get_uint(k) : def;
}

// An f32 value as the decimal it was written from (1e-6, not 9.99999997e-07).
double decimal(double f32) { return std::stod(fmt::format("{}", static_cast<float>(f32))); }

// The config.json a HF checkpoint of this model would have; parse_config validates it.
json config_json(const GgufFile& g, const TensorView& embed, bool tied) {
  std::string path = g.file.path();
  if (g.get_string("general.architecture") != kArch)
    fail("{}: architecture '{}' is not {} (a Qwen3.5 text model)", path,
         g.get_string("general.architecture"), kArch);
  uint64_t n_layer = g.get_uint(key("block_count")) - get_uint_or(g, key("nextn_predict_layers"), 0);
  uint64_t head_dim = g.get_uint(key("attention.key_length"));
  if (g.get_uint(key("attention.value_length")) != head_dim)
    fail("{}: {} differs from {}; Qwen3.5 needs them equal", path, key("attention.value_length"),
         key("attention.key_length"));
  uint64_t hv = g.get_uint(key("ssm.time_step_rank")), inner = g.get_uint(key("ssm.inner_size"));
  if (hv == 0 || inner % hv != 0)
    fail("{}: {} ({}) is not a multiple of {} ({})", path, key("ssm.inner_size"), inner,
         key("ssm.time_step_rank"), hv);
  json j = {
      {"model_type", "qwen3_5_text"},
      {"hidden_size", g.get_uint(key("embedding_length"))},
      {"num_hidden_layers", n_layer},
      {"intermediate_size", g.get_uint(key("feed_forward_length"))},
      {"vocab_size", embed.shape[0]},
      {"num_attention_heads", g.get_uint(key("attention.head_count"))},
      {"num_key_value_heads", g.get_uint(key("attention.head_count_kv"))},
      {"head_dim", head_dim},
      {"linear_num_key_heads", g.get_uint(key("ssm.group_count"))},
      {"linear_num_value_heads", hv},
      {"linear_key_head_dim", g.get_uint(key("ssm.state_size"))},
      {"linear_value_head_dim", inner / hv},
      {"linear_conv_kernel_dim", g.get_uint(key("ssm.conv_kernel"))},
      {"rms_norm_eps", decimal(g.get_float(key("attention.layer_norm_rms_epsilon")))},
      {"rope_theta", g.find_kv(key("rope.freq_base")) ? decimal(g.get_float(key("rope.freq_base"))) : 10000.0},
      {"partial_rotary_factor", head_dim ? double(g.get_uint(key("rope.dimension_count"))) / double(head_dim) : 0.0},
      {"full_attention_interval", get_uint_or(g, key("full_attention_interval"), 4)},
      {"max_position_embeddings", g.get_uint(key("context_length"))},
      {"tie_word_embeddings", tied},
      {"dtype", torch_dtype_name(embed.dtype)},
  };
  std::vector<bool> rec = recurrent_layers(g, n_layer);
  if (!rec.empty()) {
    j["layer_types"] = json::array();
    for (bool r : rec) j["layer_types"].push_back(r ? "linear_attention" : "full_attention");
  }
  if (g.find_kv("tokenizer.ggml.eos_token_id")) j["eos_token_id"] = g.get_uint("tokenizer.ggml.eos_token_id");
  return j;
}

// Finds tensors by llama.cpp name, checks their shapes, and remembers which were used.
struct GgufBinder {
  const GgufFile& g;
  std::set<std::string> used;

  const TensorView& get(const std::string& name, const std::vector<int64_t>& shape) {
    const TensorView* v = g.find(name);
    if (!v) fail("{}: missing tensor '{}' (shape {})", g.file.path(), name, shape_string(shape));
    if (v->shape != shape)
      fail("{}: tensor '{}' has shape {} (PyTorch order), the config needs {}", g.file.path(),
           name, shape_string(v->shape), shape_string(shape));
    used.insert(name);
    return *v;
  }
  std::vector<float> vec(const std::string& name, const std::vector<int64_t>& shape) {
    return to_f32(get(name, shape));
  }
  Linear linear(Model& m, const std::string& name, std::vector<int64_t> shape) {
    return bind_linear(m, get(name, shape), shape);
  }
};

void bind_deltanet(Model& m, GgufBinder& b, const std::string& p) {
  const Config& c = m.config;
  int64_t H = c.hidden_size, C = c.conv_dim(), Hv = c.linear_num_value_heads, VD = c.value_dim();
  DeltaNetWeights& w = m.layers.back().linear_attn;
  w.in_proj_qkv = b.linear(m, p + "attn_qkv.weight", {C, H});
  w.in_proj_z = b.linear(m, p + "attn_gate.weight", {VD, H});
  w.in_proj_b = b.linear(m, p + "ssm_beta.weight", {Hv, H});
  w.in_proj_a = b.linear(m, p + "ssm_alpha.weight", {Hv, H});
  w.out_proj = b.linear(m, p + "ssm_out.weight", {H, VD});
  w.conv1d = b.vec(p + "ssm_conv1d.weight", {C, c.linear_conv_kernel_dim});
  w.dt_bias = b.vec(p + "ssm_dt.bias", {Hv});
  w.a = b.vec(p + "ssm_a", {Hv});
  w.norm = b.vec(p + "ssm_norm.weight", {c.linear_value_head_dim});
}

void bind_attention(Model& m, GgufBinder& b, const std::string& p) {
  const Config& c = m.config;
  int64_t H = c.hidden_size, D = c.head_dim, nH = c.num_attention_heads, nKV = c.num_key_value_heads;
  AttentionWeights& w = m.layers.back().self_attn;
  w.q_proj = b.linear(m, p + "attn_q.weight", {nH * D * 2, H});
  w.k_proj = b.linear(m, p + "attn_k.weight", {nKV * D, H});
  w.v_proj = b.linear(m, p + "attn_v.weight", {nKV * D, H});
  w.o_proj = b.linear(m, p + "attn_output.weight", {H, nH * D});
  w.q_norm = b.vec(p + "attn_q_norm.weight", {D});
  w.k_norm = b.vec(p + "attn_k_norm.weight", {D});
}

void bind_layer(Model& m, GgufBinder& b, int il) {
  const Config& c = m.config;
  int64_t H = c.hidden_size, I = c.intermediate_size;
  std::string p = fmt::format("blk.{}.", il);
  m.layers.push_back({});
  LayerWeights& l = m.layers.back();
  l.linear = c.is_linear(il);
  l.input_layernorm = b.vec(p + "attn_norm.weight", {H});
  l.post_attention_layernorm = b.vec(p + "post_attention_norm.weight", {H});
  if (l.linear) bind_deltanet(m, b, p);
  else bind_attention(m, b, p);
  l.gate_proj = b.linear(m, p + "ffn_gate.weight", {I, H});
  l.up_proj = b.linear(m, p + "ffn_up.weight", {I, H});
  l.down_proj = b.linear(m, p + "ffn_down.weight", {H, I});
}

// Every tensor must have a role; blocks past the text layers are the MTP head (skipped).
void check_all_used(const GgufBinder& b, int n_layer) {
  for (const TensorView& t : b.g.tensors) {
    int block = -1;
    if (b.used.count(t.name) || (std::sscanf(t.name.c_str(), "blk.%d.", &block) == 1 && block >= n_layer))
      continue;
    fail("{}: unexpected tensor '{}' (not part of a Qwen3.5 text model with this config; a "
         "DeltaNet layer has no attention tensors and vice versa)", b.g.file.path(), t.name);
  }
}

// ---------------------------------------------------------------- writing

// new value head p (tiled) = old value head order[p] (grouped): p = v * Hk + k holds k * r + v.
std::vector<int> tiled_order(const Config& c) {
  int hk = c.linear_num_key_heads, r = c.linear_num_value_heads / hk;
  std::vector<int> order(static_cast<size_t>(c.linear_num_value_heads));
  for (int p = 0; p < c.linear_num_value_heads; ++p) order[p] = (p % hk) * r + p / hk;
  return order;
}

// In each slice of `stride` elements, the order.size() blocks of `block` elements that start
// at `offset` are rearranged so that new block p is old block order[p].
void permute_heads(std::vector<float>& v, size_t stride, size_t offset, size_t block,
                   const std::vector<int>& order) {
  CHECK(stride > 0 && v.size() % stride == 0 && offset + block * order.size() <= stride);
  std::vector<float> old;
  for (size_t s = 0; s < v.size(); s += stride) {
    old.assign(v.begin() + s + offset, v.begin() + s + offset + block * order.size());
    for (size_t p = 0; p < order.size(); ++p)
      std::copy_n(old.begin() + order[p] * block, block, v.begin() + s + offset + p * block);
  }
}

// Where the value heads sit in a tensor: slices of `stride`, heads from `offset`, `block` each.
struct VHeads {
  size_t stride = 0, offset = 0, block = 0;
};

// Collects the output tensors, owning the ones it converts or reorders.
struct GgufWriter {
  const Model& m;
  DType dtype;
  std::vector<int> order;  // empty: no reordering
  std::deque<TensorData> owned;
  std::vector<TensorView> tensors;

  std::vector<float> reordered(std::vector<float> v, const VHeads& h) {
    if (!order.empty() && h.block > 0) permute_heads(v, h.stride, h.offset, h.block, order);
    return v;
  }
  void add_f32(const std::string& name, std::vector<int64_t> shape, std::vector<float> v, VHeads h = {}) {
    owned.push_back(make_tensor(name, DType::f32, std::move(shape), reordered(std::move(v), h)));
    tensors.push_back(owned.back().view());
  }
  // A matmul weight (or the embedding): its own bytes when they need no change, else made
  // (converted, reordered, a sparse weight made dense) only while the file writes it.
  void add_matrix(const std::string& name, const Linear& w, VHeads h = {}) {
    if (!w.is_sparse() && w.w.dtype == dtype && (order.empty() || h.block == 0)) {
      TensorView v = w.w;
      v.name = name;
      tensors.push_back(v);
      return;
    }
    TensorView v{name, dtype, w.w.shape, nullptr};
    v.produce = [this, name, w, h](std::ostream& out) {
      if (w.is_sparse() && (order.empty() || h.block == 0)) {  // row by row, never dense
        const CsrWeight& s = *w.sparse;
        size_t k = 0;  // s.rows[k]: the next row that has entries
        write_rows(out, dtype, w.out(), w.in(), [&](int64_t r, float* f) {
          if (k == s.rows.size() || s.rows[k] != r) return false;
          for (int64_t i = s.row_start[k]; i < s.row_start[k + 1]; ++i) f[s.col[i]] = s.value[i];
          ++k;
          return true;
        });
        return;
      }
      const TensorData d = make_tensor(name, dtype, w.w.shape, reordered(w.dense(), h));
      out.write(reinterpret_cast<const char*>(d.bytes.data()), static_cast<std::streamsize>(d.bytes.size()));
    };
    tensors.push_back(std::move(v));
  }
};

void add_deltanet(GgufWriter& w, const DeltaNetWeights& d, const std::string& p) {
  const Config& c = w.m.config;
  size_t H = c.hidden_size, C = c.conv_dim(), K = c.linear_conv_kernel_dim, dv = c.linear_value_head_dim;
  size_t qk = 2 * static_cast<size_t>(c.key_dim()), VD = c.value_dim(), Hv = c.linear_num_value_heads;
  w.add_matrix(p + "attn_qkv.weight", d.in_proj_qkv, {C * H, qk * H, dv * H});
  w.add_matrix(p + "attn_gate.weight", d.in_proj_z, {VD * H, 0, dv * H});
  w.add_matrix(p + "ssm_beta.weight", d.in_proj_b, {Hv * H, 0, H});
  w.add_matrix(p + "ssm_alpha.weight", d.in_proj_a, {Hv * H, 0, H});
  w.add_f32(p + "ssm_conv1d.weight", {int64_t(C), int64_t(K)}, d.conv1d, {C * K, qk * K, dv * K});
  w.add_f32(p + "ssm_dt.bias", {int64_t(Hv)}, d.dt_bias, {Hv, 0, 1});
  w.add_f32(p + "ssm_a", {int64_t(Hv)}, d.a, {Hv, 0, 1});
  w.add_f32(p + "ssm_norm.weight", {int64_t(dv)}, d.norm);
  w.add_matrix(p + "ssm_out.weight", d.out_proj, {VD, 0, dv});
}

void add_attention(GgufWriter& w, const AttentionWeights& a, const std::string& p) {
  int64_t D = w.m.config.head_dim;
  w.add_matrix(p + "attn_q.weight", a.q_proj);
  w.add_matrix(p + "attn_k.weight", a.k_proj);
  w.add_matrix(p + "attn_v.weight", a.v_proj);
  w.add_matrix(p + "attn_output.weight", a.o_proj);
  w.add_f32(p + "attn_q_norm.weight", {D}, a.q_norm);
  w.add_f32(p + "attn_k_norm.weight", {D}, a.k_norm);
}

void add_tensors(GgufWriter& w) {
  const Model& m = w.m;
  int64_t H = m.config.hidden_size;
  w.add_matrix("token_embd.weight", m.embed_tokens);
  w.add_f32("output_norm.weight", {H}, m.norm);
  if (!m.config.tie_word_embeddings) w.add_matrix("output.weight", m.lm_head);
  for (size_t il = 0; il < m.layers.size(); ++il) {
    const LayerWeights& l = m.layers[il];
    std::string p = fmt::format("blk.{}.", il);
    w.add_f32(p + "attn_norm.weight", {H}, l.input_layernorm);
    w.add_f32(p + "post_attention_norm.weight", {H}, l.post_attention_layernorm);
    if (l.linear) add_deltanet(w, l.linear_attn, p);
    else add_attention(w, l.self_attn, p);
    w.add_matrix(p + "ffn_gate.weight", l.gate_proj);
    w.add_matrix(p + "ffn_up.weight", l.up_proj);
    w.add_matrix(p + "ffn_down.weight", l.down_proj);
  }
}

uint32_t file_type(DType t) {  // llama_ftype: ALL_F32 0, MOSTLY_F16 1, MOSTLY_BF16 32
  switch (t) {
    case DType::f32: return 0;
    case DType::f16: return 1;
    case DType::bf16: return 32;
  }
  return 0;
}

GgufValue u32(int64_t v) {
  CHECK(v >= 0 && v <= int64_t{UINT32_MAX});
  return gguf_u32(static_cast<uint32_t>(v));
}

// IMRoPE sections [ceil(h/3), ceil((h-1)/3), ceil((h-2)/3), 0] for h rotary pairs: every pair
// rotates with the text position (see peers.md, pitfall 4).
GgufValue rope_sections(int h) {
  return gguf_array(kTypeI32, {gguf_i32((h + 2) / 3), gguf_i32((h + 1) / 3), gguf_i32(h / 3), gguf_i32(0)});
}

KeyValues model_kv(const Model& m, DType dtype) {
  const Config& c = m.config;
  std::vector<GgufValue> recurrent;
  for (int il = 0; il < c.num_hidden_layers; ++il) recurrent.push_back(gguf_bool(c.is_linear(il)));
  return {
      {"general.architecture", gguf_str(kArch)},
      {"general.name", gguf_str("qgpu")},
      {"general.file_type", u32(file_type(dtype))},
      {key("context_length"), u32(c.max_position_embeddings)},
      {key("embedding_length"), u32(c.hidden_size)},
      {key("block_count"), u32(c.num_hidden_layers)},
      {key("feed_forward_length"), u32(c.intermediate_size)},
      {key("attention.head_count"), u32(c.num_attention_heads)},
      {key("attention.head_count_kv"), u32(c.num_key_value_heads)},
      {key("attention.key_length"), u32(c.head_dim)},
      {key("attention.value_length"), u32(c.head_dim)},
      {key("attention.layer_norm_rms_epsilon"), gguf_f32(static_cast<float>(c.rms_norm_eps))},
      {key("rope.dimension_count"), u32(c.rotary_dim())},
      {key("rope.dimension_sections"), rope_sections(c.rotary_dim() / 2)},
      {key("rope.freq_base"), gguf_f32(static_cast<float>(c.rope_theta))},
      {key("ssm.conv_kernel"), u32(c.linear_conv_kernel_dim)},
      {key("ssm.state_size"), u32(c.linear_key_head_dim)},
      {key("ssm.group_count"), u32(c.linear_num_key_heads)},
      {key("ssm.time_step_rank"), u32(c.linear_num_value_heads)},
      {key("ssm.inner_size"), u32(c.value_dim())},
      {key("full_attention_interval"), u32(c.full_attention_interval)},
      {key("attention.recurrent_layers"), gguf_array(kTypeBool, std::move(recurrent))},
      {key("vocab_size"), u32(c.vocab_size)},
  };
}

json read_json(const std::string& path) {
  json j = json::parse(read_text_file(path, kMaxJsonBytes, "tokenizer file"), nullptr, false);
  if (j.is_discarded() || !j.is_object()) fail("{}: not a JSON object", path);
  return j;
}

// A special token's id from tokenizer_config.json beside tokenizer.json (-1 when absent).
int64_t special_id(const json& config, const char* name, const std::map<std::string, int64_t>& ids) {
  if (!config.contains(name)) return -1;
  const json& t = config[name];
  std::string s = t.is_string() ? t.get<std::string>() : t.is_object() ? t.value("content", "") : "";
  auto it = ids.find(s);
  return it == ids.end() ? -1 : it->second;
}

// Like llama.cpp's converter: "<|...|>" added tokens are control even when not marked special.
bool looks_special(const std::string& s) {
  return s.size() >= 4 && s.starts_with("<|") && s.ends_with("|>");
}

GgufValue merges_of(const json& tok, const std::string& path) {
  std::vector<GgufValue> merges;
  for (const json& mrg : tok["model"].value("merges", json::array())) {
    if (mrg.is_string()) merges.push_back(gguf_str(mrg.get<std::string>()));
    else if (mrg.is_array() && mrg.size() == 2 && mrg[0].is_string() && mrg[1].is_string())
      merges.push_back(gguf_str(mrg[0].get<std::string>() + " " + mrg[1].get<std::string>()));
    else fail("{}: merge {} is neither \"a b\" nor [\"a\", \"b\"]", path, mrg.dump());
  }
  return gguf_array(kTypeString, std::move(merges));
}

KeyValues tokenizer_kv_of(const json& tok, const std::string& path, const Config& c);

// A field of another JSON type than the tokenizer format's is nlohmann's type_error: one
// Error naming the file instead.
KeyValues tokenizer_kv(const std::string& path, const Config& c) {
  try {
    return tokenizer_kv_of(read_json(path), path, c);
  } catch (const json::exception& e) {
    fail("{}: {}; expected a Hugging Face BPE tokenizer.json", path, e.what());
  }
}

KeyValues tokenizer_kv_of(const json& tok, const std::string& path, const Config& c) {
  if (!tok.contains("model") || !tok["model"].is_object() || !tok["model"].contains("vocab") ||
      !tok["model"]["vocab"].is_object())
    fail("{}: no model.vocab object; expected a Hugging Face BPE tokenizer.json", path);
  int64_t V = c.vocab_size;
  std::vector<std::string> text(V);
  std::vector<int32_t> type(V, 5);  // UNUSED until a token claims the id
  std::map<std::string, int64_t> ids;
  auto claim = [&](const std::string& s, const json& id, int32_t t) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() >= V)
      fail("{}: token '{}' has id {}, outside the model's vocab_size {}", path, s, id.dump(), V);
    text[id.get<int64_t>()] = s;
    type[id.get<int64_t>()] = t;
    ids[s] = id.get<int64_t>();
  };
  for (const auto& [s, id] : tok["model"]["vocab"].items()) claim(s, id, 1);
  for (const json& a : tok.value("added_tokens", json::array())) {
    std::string s = a.value("content", "");
    claim(s, a.value("id", json()), a.value("special", false) || looks_special(s) ? 3 : 4);
  }
  std::vector<GgufValue> tokens, types;
  for (int64_t i = 0; i < V; ++i) {
    tokens.push_back(gguf_str(type[i] == 5 ? fmt::format("[PAD{}]", i) : text[i]));
    types.push_back(gguf_i32(type[i]));
  }
  KeyValues kv = {{"tokenizer.ggml.model", gguf_str("gpt2")},
                  {"tokenizer.ggml.pre", gguf_str("qwen35")},
                  {"tokenizer.ggml.tokens", gguf_array(kTypeString, std::move(tokens))},
                  {"tokenizer.ggml.token_type", gguf_array(kTypeI32, std::move(types))},
                  {"tokenizer.ggml.merges", merges_of(tok, path)}};
  std::filesystem::path cfg_path = std::filesystem::path(path).parent_path() / "tokenizer_config.json";
  json cfg = std::filesystem::exists(cfg_path) ? read_json(cfg_path.string()) : json::object();
  int64_t eos = special_id(cfg, "eos_token", ids), pad = special_id(cfg, "pad_token", ids);
  if (eos < 0 && !c.eos_token_id.empty()) eos = c.eos_token_id[0];
  if (eos >= 0) kv.emplace_back("tokenizer.ggml.eos_token_id", u32(eos));
  if (pad >= 0) kv.emplace_back("tokenizer.ggml.padding_token_id", u32(pad));
  kv.emplace_back("tokenizer.ggml.add_bos_token", gguf_bool(false));
  return kv;
}

void check_exportable(const Config& c, const std::string& path) {
  bool any_linear = false;
  for (int il = 0; il < c.num_hidden_layers; ++il) any_linear |= c.is_linear(il);
  if (any_linear && c.linear_key_head_dim != c.linear_value_head_dim)
    fail("{}: llama.cpp's qwen35 needs linear_key_head_dim ({}) == linear_value_head_dim ({})",
         path, c.linear_key_head_dim, c.linear_value_head_dim);
}

}  // namespace

Model load_gguf_model(const std::string& path, std::optional<DType> dtype) {
  Model m;
  m.gguf.push_back(load_gguf(path));
  const GgufFile& g = m.gguf.back();
  GgufBinder b{g, {}};
  const TensorView* embed = g.find("token_embd.weight");
  if (!embed || embed->shape.size() != 2)
    fail("{}: missing tensor 'token_embd.weight' of two dimensions; not a Qwen3.5 GGUF", path);
  bool tied = g.find("output.weight") == nullptr;
  m.config = parse_config(config_json(g, *embed, tied), path);
  if (g.find_kv(key("vocab_size")) && g.get_uint(key("vocab_size")) != uint64_t(m.config.vocab_size))
    fail("{}: {} is {} but token_embd.weight has {} rows", path, key("vocab_size"),
         g.get_uint(key("vocab_size")), m.config.vocab_size);
  m.v_heads_tiled = true;
  const Config& c = m.config;
  int64_t H = c.hidden_size, V = c.vocab_size;
  m.dtype = dtype.value_or(embed->dtype);
  m.embed_tokens = b.linear(m, "token_embd.weight", {V, H});
  for (int il = 0; il < c.num_hidden_layers; ++il) bind_layer(m, b, il);
  m.norm = b.vec("output_norm.weight", {H});
  m.lm_head = tied ? m.embed_tokens : b.linear(m, "output.weight", {V, H});
  check_all_used(b, c.num_hidden_layers);
  return m;
}

void write_gguf_model(const Model& m, const std::string& path, DType dtype,
                      const std::string& tokenizer_json_path) {
  const Config& c = m.config;
  check_exportable(c, path);
  GgufWriter w{m, dtype, {}, {}, {}};
  if (!m.v_heads_tiled && c.linear_num_value_heads != c.linear_num_key_heads) w.order = tiled_order(c);
  add_tensors(w);
  KeyValues kv = model_kv(m, dtype);
  if (tokenizer_json_path.empty()) {
    kv.emplace_back("tokenizer.ggml.model", gguf_str("none"));
  } else {
    for (auto& p : tokenizer_kv(tokenizer_json_path, c)) kv.push_back(std::move(p));
  }
  write_gguf(path, kv, w.tensors);
}

}  // namespace qgpu::engine
