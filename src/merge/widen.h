// The base's tensors as a merged checkpoint holds them (issue 6, docs/design.md §3
// "Merging into a base"): each one on its own, so a writer streams the base tensor by
// tensor (peak memory about one tensor).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/tensor.h"
#include "merge/plan.h"

namespace qgpu::merge {

struct MergedTensor {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<float> values;  // row-major, f32 (the writer rounds to the checkpoint's dtype)
};

// How a tensor meets the residual, by its name's tail: what widening it means.
enum class Role {
  vocab,      // embed_tokens, lm_head: [V, H], rows per token
  reader,     // q/k/v, in_proj_*: [n, H], columns per residual dim
  mlp_in,     // gate_proj, up_proj: [I, H], also rows per MLP unit
  writer,     // o_proj, out_proj: [H, n], rows per residual dim
  mlp_out,    // down_proj: [H, I]
  main_norm,  // input_layernorm, post_attention_layernorm, model.norm: [H]
  other,      // per head or per channel (conv1d, A_log, dt_bias, gated and q/k norms)
};
Role tensor_role(const std::string& name);

// A merged tensor made rows at a time, so a writer holds a chunk of it, not all of it
// (the merged 2B's embedding is 10 GB in f32): fill(row0, n, out) writes rows
// [row0, row0 + n) into out (n * cols floats, row-major, cols = the product of shape[1:]).
struct RowSource {
  std::string name;
  std::vector<int64_t> shape;
  std::function<void(int64_t row0, int64_t n, float* out)> fill;
  int64_t rows() const { return shape.empty() ? 1 : shape[0]; }
  int64_t cols() const;
};

// widen_base_tensor's tensor as a RowSource over v (which must outlive it).
std::optional<RowSource> widen_base_rows(const MergePlan& p, const std::string& name, const engine::TensorView& v);

// Base tensor `name` (HF name, text or multimodal-wrapper layout) in the merged model, or
// nullopt for a tensor the merged text model leaves out (the wrapper's vision tower, the
// MTP head). Renamed to the text layout with layer il at gpu_layers + il; a weight that
// reads the residual (embedding, head, q/k/v, in_proj_*, gate, up) gets +0 columns for the
// GPU's dims, one that writes it (o_proj, out_proj, down) +0 rows; the MLP's +0 units up to
// the merged width; the main norms (input, post-attention, final) compensated over D
// (compensate_norm_weight; the GPU's dims get w = 0, which multiplies a +0). Everything else
// as it is. Errors (one, naming the tensor) for a shape the plan's base config does not give.
std::optional<MergedTensor> widen_base_tensor(const MergePlan& p, const std::string& name,
                                              const engine::TensorView& v);

}  // namespace qgpu::merge
