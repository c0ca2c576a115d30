// Tiny random Qwen3.5 checkpoints in Hugging Face layout, for tests and parity runs:
// config.json, model.safetensors (or shards + index), tokenizer.json. Every size and the
// layer pattern are parameters; the weights are a deterministic function of the seed.
#pragma once

#include <cstdint>
#include <string>

#include "engine/config.h"
#include "engine/tensor.h"

namespace qgpu::engine {

struct TinySpec {
  int hidden_size = 64;
  std::string layers = "LLLF";      // one letter per layer: L linear_attention, F full_attention
  int intermediate_size = 128;
  int num_attention_heads = 2;
  int num_key_value_heads = 1;
  int head_dim = 16;
  int linear_num_key_heads = 2;
  int linear_num_value_heads = 4;
  int linear_key_head_dim = 16;
  int linear_value_head_dim = 16;
  int n_merges = 200;               // BPE merges of the tiny tokenizer
  int vocab_size = 0;               // 0: the tokenizer's size rounded up to a multiple of 64
  bool tie_word_embeddings = true;
  bool multimodal_wrapper = false;  // config model_type qwen3_5 + model.language_model.* names
                                    // + a vision and an MTP tensor that loaders must skip
  DType dtype = DType::f32;
  uint64_t seed = 1;
  size_t max_shard_bytes = size_t{4} << 30;  // smaller: sharded with an index
};

// Writes the checkpoint into dir (created if missing; files written atomically).
void write_tiny_model(const std::string& dir, const TinySpec& spec);

// The smallest spec `qgpu build` merges the compiled GPU into: layers LF (one of each
// kind), the defaults' tiny widths, and gpu's head shapes (gpu: lift::machine_config(), the
// fields merge::plan_merge requires equal; merge_plan_test checks the plan accepts it).
TinySpec mergeable_tiny_spec(const Config& gpu);

}  // namespace qgpu::engine
