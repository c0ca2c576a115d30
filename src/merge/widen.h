// The base's tensors as a merged checkpoint holds them (issue 6, docs/design.md §3
// "Merging into a base"): each one on its own, so a writer streams the base tensor by
// tensor (peak memory about one tensor).
#pragma once

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
