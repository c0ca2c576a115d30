// config.json -> Config. Field names and defaults follow transformers' Qwen3_5TextConfig;
// the multimodal wrapper is unwrapped first. Validation runs once here so the forward pass
// can trust every size.
#include "engine/config.h"

#include <filesystem>
#include <fstream>

#include "base/error.h"
#include "base/text_file.h"

namespace qgpu::engine {
namespace {

using nlohmann::json;

int get_int(const json& j, const char* key, const std::string& where, int def = -1) {
  if (!j.contains(key) || j[key].is_null()) {
    if (def >= 0) return def;
    fail("{}: missing key \"{}\" (a Qwen3.5 text config needs it)", where, key);
  }
  if (!j[key].is_number_integer() || j[key].get<int64_t>() < 0 ||
      j[key].get<int64_t>() > (int64_t{1} << 30))
    fail("{}: \"{}\" must be a non-negative integer, got {}", where, key, j[key].dump());
  return j[key].get<int>();
}

double get_double(const json& j, const char* key, const std::string& where, double def) {
  if (!j.contains(key) || j[key].is_null()) return def;
  if (!j[key].is_number()) fail("{}: \"{}\" must be a number, got {}", where, key, j[key].dump());
  return j[key].get<double>();
}

bool get_bool(const json& j, const char* key, const std::string& where, bool def) {
  if (!j.contains(key) || j[key].is_null()) return def;
  if (!j[key].is_boolean()) fail("{}: \"{}\" must be true or false, got {}", where, key, j[key].dump());
  return j[key].get<bool>();
}

std::string get_string(const json& j, const char* key, const std::string& where, const std::string& def = "") {
  if (!j.contains(key) || j[key].is_null()) return def;
  if (!j[key].is_string()) fail("{}: \"{}\" must be a string, got {}", where, key, j[key].dump());
  return j[key].get<std::string>();
}

void read_rope(const json& j, Config& c, const std::string& where) {
  // Newer configs: rope_parameters {rope_theta, partial_rotary_factor}; older: top level.
  c.rope_theta = get_double(j, "rope_theta", where, c.rope_theta);
  c.partial_rotary_factor = get_double(j, "partial_rotary_factor", where, c.partial_rotary_factor);
  for (const char* key : {"rope_parameters", "rope_scaling"}) {
    if (!j.contains(key) || !j[key].is_object()) continue;
    const json& r = j[key];
    c.rope_theta = get_double(r, "rope_theta", where, c.rope_theta);
    c.partial_rotary_factor = get_double(r, "partial_rotary_factor", where, c.partial_rotary_factor);
    if (r.contains("rope_type") && r["rope_type"] != "default")
      fail("{}: {}.rope_type {} is not supported (only \"default\")", where, key,
           r["rope_type"].dump());
  }
}

void read_layer_types(const json& j, Config& c, const std::string& where) {
  if (j.contains("layer_types") && !j["layer_types"].is_null()) {
    if (!j["layer_types"].is_array()) fail("{}: \"layer_types\" must be a list", where);
    for (const json& t : j["layer_types"]) {
      if (t != "linear_attention" && t != "full_attention")
        fail("{}: layer_types entry {} is neither \"linear_attention\" nor \"full_attention\"",
             where, t.dump());
      c.layer_types.push_back(t.get<std::string>());
    }
    if (static_cast<int>(c.layer_types.size()) != c.num_hidden_layers)
      fail("{}: layer_types has {} entries but num_hidden_layers is {}", where,
           c.layer_types.size(), c.num_hidden_layers);
    return;
  }
  if (c.full_attention_interval < 1) fail("{}: full_attention_interval must be >= 1", where);
  for (int i = 0; i < c.num_hidden_layers; ++i)
    c.layer_types.push_back((i + 1) % c.full_attention_interval == 0 ? "full_attention"
                                                                     : "linear_attention");
}

void read_eos(const json& j, Config& c, const std::string& where) {
  if (!j.contains("eos_token_id") || j["eos_token_id"].is_null()) return;
  const json& e = j["eos_token_id"];
  for (const json& x : e.is_array() ? e : json::array({e})) {
    if (!x.is_number_integer() || x.get<int64_t>() < 0 || x.get<int64_t>() > INT32_MAX)
      fail("{}: \"eos_token_id\" must be a token id or a list of them, got {}", where, e.dump());
    c.eos_token_id.push_back(x.get<int>());
  }
}

void validate(const Config& c, const std::string& where) {
  auto positive = [&](int v, const char* key) {
    if (v <= 0) fail("{}: \"{}\" must be positive", where, key);
  };
  positive(c.hidden_size, "hidden_size");
  positive(c.num_hidden_layers, "num_hidden_layers");
  positive(c.intermediate_size, "intermediate_size");
  positive(c.vocab_size, "vocab_size");
  positive(c.linear_conv_kernel_dim, "linear_conv_kernel_dim");
  bool any_linear = false, any_full = false;
  for (const auto& t : c.layer_types) (t == "full_attention" ? any_full : any_linear) = true;
  if (any_full) {
    positive(c.num_attention_heads, "num_attention_heads");
    positive(c.num_key_value_heads, "num_key_value_heads");
    positive(c.head_dim, "head_dim");
    if (c.num_attention_heads % c.num_key_value_heads != 0)
      fail("{}: num_attention_heads {} is not a multiple of num_key_value_heads {}", where,
           c.num_attention_heads, c.num_key_value_heads);
    int rot = c.rotary_dim();
    if (rot % 2 != 0 || rot > c.head_dim)
      fail("{}: rotary dim head_dim*partial_rotary_factor = {} must be even and <= head_dim",
           where, rot);
  }
  if (any_linear) {
    positive(c.linear_num_key_heads, "linear_num_key_heads");
    positive(c.linear_num_value_heads, "linear_num_value_heads");
    positive(c.linear_key_head_dim, "linear_key_head_dim");
    positive(c.linear_value_head_dim, "linear_value_head_dim");
    if (c.linear_num_value_heads % c.linear_num_key_heads != 0)
      fail("{}: linear_num_value_heads {} is not a multiple of linear_num_key_heads {}", where,
           c.linear_num_value_heads, c.linear_num_key_heads);
  }
  if (!(c.rms_norm_eps > 0)) fail("{}: rms_norm_eps must be positive", where);
}

// The interleaved M-RoPE sections for h rotary pairs ([11, 11, 10] for h = 32). For text
// all three position rows are equal, so any split gives plain RoPE; this one covers h.
std::vector<int> mrope_section(int h) { return {(h + 2) / 3, (h + 1) / 3, h / 3}; }

}  // namespace

Config parse_config(const json& top, const std::string& where) {
  if (!top.is_object()) fail("{}: expected a JSON object", where);
  Config c;
  c.model_type = get_string(top, "model_type", where);
  const json* j = &top;
  if (c.model_type == "qwen3_5") {
    if (!top.contains("text_config") || !top["text_config"].is_object())
      fail("{}: model_type qwen3_5 (multimodal) but no \"text_config\" object", where);
    j = &top["text_config"];
  } else if (c.model_type != "qwen3_5_text") {
    fail("{}: model_type \"{}\" is not a Qwen3.5 text model (expected qwen3_5_text or qwen3_5)",
         where, c.model_type);
  }
  c.hidden_size = get_int(*j, "hidden_size", where);
  c.num_hidden_layers = get_int(*j, "num_hidden_layers", where);
  c.intermediate_size = get_int(*j, "intermediate_size", where);
  c.vocab_size = get_int(*j, "vocab_size", where);
  c.num_attention_heads = get_int(*j, "num_attention_heads", where, 0);
  c.num_key_value_heads = get_int(*j, "num_key_value_heads", where, 0);
  c.head_dim = get_int(*j, "head_dim", where, 0);
  c.linear_num_key_heads = get_int(*j, "linear_num_key_heads", where, 0);
  c.linear_num_value_heads = get_int(*j, "linear_num_value_heads", where, 0);
  c.linear_key_head_dim = get_int(*j, "linear_key_head_dim", where, 0);
  c.linear_value_head_dim = get_int(*j, "linear_value_head_dim", where, 0);
  c.linear_conv_kernel_dim = get_int(*j, "linear_conv_kernel_dim", where, 4);
  c.full_attention_interval = get_int(*j, "full_attention_interval", where, 4);
  c.max_position_embeddings = get_int(*j, "max_position_embeddings", where, 262144);
  c.rms_norm_eps = get_double(*j, "rms_norm_eps", where, 1e-6);
  read_rope(*j, c, where);
  read_layer_types(*j, c, where);
  // tie_word_embeddings may sit at the top level, in text_config, or both.
  c.tie_word_embeddings = get_bool(*j, "tie_word_embeddings", where, get_bool(top, "tie_word_embeddings", where, false));
  std::string dtype = get_string(*j, "dtype", where, get_string(*j, "torch_dtype", where));
  if (!dtype.empty()) c.dtype = dtype;
  read_eos(*j, c, where);
  if (c.eos_token_id.empty()) read_eos(top, c, where);
  if (top.contains("qgpu")) {
    const json& q = top["qgpu"];
    if (!q.is_object()) fail("{}: \"qgpu\" must be an object (where the compiled GPU sits)", where);
    GpuPlacement g;
    g.token_offset = get_int(q, "token_offset", where);
    g.hidden_offset = get_int(q, "hidden_offset", where);
    g.layers = get_int(q, "layers", where);
    g.construction = get_string(q, "construction", where);
    g.base_intermediate = q.contains("base_intermediate") ? get_int(q, "base_intermediate", where) : 0;
    if (g.base_intermediate < 0 || g.base_intermediate > c.intermediate_size)
      fail("{}: \"qgpu\" says the base's MLP has {} units, outside intermediate_size {}; the file was edited or is "
           "not qgpu's",
           where, g.base_intermediate, c.intermediate_size);
    if (g.token_offset < 0 || g.token_offset >= c.vocab_size || g.hidden_offset < 0 || g.hidden_offset >= c.hidden_size ||
        g.layers <= 0 || g.layers > c.num_hidden_layers)
      fail("{}: \"qgpu\" places the GPU at token {}, dim {}, {} layers: outside vocab_size {}, hidden_size {}, "
           "{} layers; the file was edited or is not qgpu's",
           where, g.token_offset, g.hidden_offset, g.layers, c.vocab_size, c.hidden_size, c.num_hidden_layers);
    c.qgpu = g;
  }
  validate(c, where);
  return c;
}

Config load_config(const std::string& dir) {
  std::string path = dir + "/config.json";
  if (!std::filesystem::exists(path)) fail("{}: cannot read (is '{}' a Hugging Face checkpoint directory?)", path, dir);
  json j = json::parse(read_text_file(path, kMaxJsonBytes, "config.json"), nullptr, false);
  if (j.is_discarded()) fail("{}: not valid JSON", path);
  return parse_config(j, path);
}

json config_to_json(const Config& c) {
  json j = {
      {"architectures", {"Qwen3_5ForCausalLM"}},
      {"model_type", "qwen3_5_text"},
      {"hidden_size", c.hidden_size},
      {"num_hidden_layers", c.num_hidden_layers},
      {"intermediate_size", c.intermediate_size},
      {"vocab_size", c.vocab_size},
      {"num_attention_heads", c.num_attention_heads},
      {"num_key_value_heads", c.num_key_value_heads},
      {"head_dim", c.head_dim},
      {"linear_num_key_heads", c.linear_num_key_heads},
      {"linear_num_value_heads", c.linear_num_value_heads},
      {"linear_key_head_dim", c.linear_key_head_dim},
      {"linear_value_head_dim", c.linear_value_head_dim},
      {"linear_conv_kernel_dim", c.linear_conv_kernel_dim},
      {"rms_norm_eps", c.rms_norm_eps},
      {"hidden_act", "silu"},
      {"attention_bias", false},
      {"attn_output_gate", true},
      {"full_attention_interval", c.full_attention_interval},
      {"layer_types", c.layer_types},
      {"max_position_embeddings", c.max_position_embeddings},
      {"rope_parameters",
       {{"rope_type", "default"},
        {"rope_theta", c.rope_theta},
        {"partial_rotary_factor", c.partial_rotary_factor},
        {"mrope_section", mrope_section(c.rotary_dim() / 2)},
        {"mrope_interleaved", true}}},
      {"tie_word_embeddings", c.tie_word_embeddings},
      {"dtype", c.dtype},
      {"use_cache", true},
  };
  if (c.qgpu)
    j["qgpu"] = {{"token_offset", c.qgpu->token_offset}, {"hidden_offset", c.qgpu->hidden_offset},
                 {"layers", c.qgpu->layers}, {"construction", c.qgpu->construction}};
  if (c.qgpu && c.qgpu->base_intermediate > 0) j["qgpu"]["base_intermediate"] = c.qgpu->base_intermediate;
  if (!c.eos_token_id.empty())
    j["eos_token_id"] = c.eos_token_id.size() == 1 ? json(c.eos_token_id[0]) : json(c.eos_token_id);
  return j;
}

}  // namespace qgpu::engine
