// The Qwen3.5 text config, fields spelled exactly like the HF config.json keys.
//
// Read from a text config (model_type "qwen3_5_text") or from the multimodal wrapper
// (model_type "qwen3_5", text fields under "text_config"). Missing optional fields take
// transformers' defaults; layer_types is built from full_attention_interval when absent.
// Every inconsistency (head dims that do not divide, layer_types of the wrong length or
// with an unknown entry) is one Error naming the file and the key.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace qgpu::engine {

// Where the compiled GPU sits in a merged checkpoint (config.json's "qgpu" object, which
// transformers keeps as an attribute and llama.cpp never reads): its tokens from
// token_offset, its residual dims from hidden_offset, its layers first. A GPU-only model
// has none (offsets 0).
struct GpuPlacement {
  int token_offset = 0;
  int hidden_offset = 0;
  int layers = 0;
  // The base's MLP width: its layers' units past it are +0 padding up to intermediate_size
  // (the GPU's width, when wider). 0: not recorded (a merge before it was): every unit.
  int base_intermediate = 0;
  std::string construction;  // lift::construction_fingerprint() of the build
};

struct Config {
  std::string model_type = "qwen3_5_text";  // of the file we read (the wrapper says qwen3_5)
  int hidden_size = 0;
  int num_hidden_layers = 0;
  int intermediate_size = 0;
  int vocab_size = 0;
  int num_attention_heads = 0;
  int num_key_value_heads = 0;
  int head_dim = 0;
  int linear_num_key_heads = 0;
  int linear_num_value_heads = 0;
  int linear_key_head_dim = 0;
  int linear_value_head_dim = 0;
  int linear_conv_kernel_dim = 4;
  double rms_norm_eps = 1e-6;
  double rope_theta = 10000000.0;        // rope_parameters.rope_theta
  double partial_rotary_factor = 0.25;   // rope_parameters.partial_rotary_factor
  int full_attention_interval = 4;
  std::vector<std::string> layer_types;  // "linear_attention" / "full_attention", one per layer
  bool tie_word_embeddings = false;
  std::string dtype = "bfloat16";        // torch dtype the checkpoint was saved in
  std::vector<int> eos_token_id;
  int max_position_embeddings = 262144;
  std::optional<GpuPlacement> qgpu;      // a merged checkpoint's GPU

  bool is_linear(int il) const { return layer_types[il] == "linear_attention"; }
  int rotary_dim() const { return static_cast<int>(head_dim * partial_rotary_factor); }
  int key_dim() const { return linear_num_key_heads * linear_key_head_dim; }      // Hk*dk
  int value_dim() const { return linear_num_value_heads * linear_value_head_dim; }  // Hv*dv
  int conv_dim() const { return 2 * key_dim() + value_dim(); }
};

// Parses a config.json object (text or wrapper); `where` names the file in errors.
Config parse_config(const nlohmann::json& j, const std::string& where);
// Reads DIR/config.json.
Config load_config(const std::string& dir);
// The text config as config.json writes it (model_type qwen3_5_text, Qwen3_5ForCausalLM).
nlohmann::json config_to_json(const Config& c);

}  // namespace qgpu::engine
