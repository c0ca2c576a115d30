// Writes a Qwen3.5 checkpoint whose weights are computed, not trained: every tensor of the
// config exists, zero-filled, with the identity settings of qwen35.md §3.8 (zero-centred
// norms 0, gated norm 1, A_log for decay exactly 1); the construction then sets entries by
// HF tensor name. Only the entries set are held (the machine's 2 G weights have about
// 4 M nonzeros); write() makes each tensor dense on its own while writing it, so memory
// stays about one tensor. Written as a HF directory (config.json, safetensors,
// tokenizer.json).
#pragma once

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/config.h"
#include "engine/tensor.h"

namespace qgpu::lift {

// A_log of every DeltaNet head: exp(-30) * softplus(0) = 6.5e-14, so the decay
// exp(g) rounds to exactly 1 in f32 (and -30 is exact in bf16 and f16).
inline constexpr float kALogNoDecay = -30.0f;

struct Builder {
  struct Tensor {
    std::vector<int64_t> shape;
    float fill = 0.0f;                         // every entry not set
    std::unordered_map<int64_t, float> set;    // flat index -> value
    int64_t numel() const;
    std::vector<float> dense() const;
  };
  engine::Config config;
  std::map<std::string, Tensor> tensors;

  explicit Builder(engine::Config c);
  // The tensor's element [row][col] (2-D) or [row] (1-D; col 0). CHECKs the name and range.
  float& at(const std::string& name, int64_t row, int64_t col = 0);
  float& conv(int il, int64_t channel, int tap);  // linear_attn.conv1d.weight[channel][0][tap]
  std::string layer(int il) const;                // "model.layers.{il}."

  // Writes DIR/config.json, the safetensors (as dtype) and tokenizer.json (text).
  void write(const std::string& dir, engine::DType dtype, const std::string& tokenizer_json) const;
};

}  // namespace qgpu::lift
