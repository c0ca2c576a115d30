// The shape of a merged checkpoint (issue 6, docs/design.md §3 "Merging into a base"):
// the compiled GPU's layers in front of a Qwen3.5 base's, on a residual widened from the
// base's d dims to D = d + G (the GPU's G dims after the base's), with the GPU's tokens
// after the base's vocabulary. Pure arithmetic on the two configs; the writer streams the
// tensors it describes.
#pragma once

#include <string>

#include "engine/config.h"

namespace qgpu::merge {

struct MergePlan {
  engine::Config merged;      // the config the merged checkpoint's config.json holds
  int base_hidden = 0;        // d: residual dims [0, d) are the base's
  int gpu_hidden = 0;         // G: [d, d + G) are the GPU's
  int base_vocab = 0;         // the GPU's token id t is base_vocab + t in the merged model
  int gpu_vocab = 0;
  int base_intermediate = 0;  // the base's MLP units; past them (to the merged width) +0
  int gpu_layers = 0;         // merged layers [0, gpu_layers) are the GPU's; base layer il
                              // is merged layer gpu_layers + il
  // The base's main norms (input, post-attention, final) over D instead of d: their
  // multipliers 1 + w scaled by sqrt(d / D), the GPU's by sqrt(G / D), restore each part's
  // own RMS (the other part's dims are +0 at its positions). rms_norm_eps stays: it is
  // also the gated norm's and q/k norms' (per head, untouched by D), and the base's main
  // norms then see eps * D / d, the GPU's eps * D / G (see docs/design.md for the choice).
  double base_norm_scale = 1, gpu_norm_scale = 1;
  // Every base weight that writes the residual (the embedding, o_proj, out_proj, down_proj;
  // not the head) is multiplied by this: with s = sqrt(D / d) the base's main norms see
  // exactly their own eps (RMSNorm over D of s x, x on d dims, is RMSNorm over d of x with
  // eps, times sqrt(D / d), which the compensated multiplier takes back), so the base's
  // text is exact in real arithmetic; the gated and q/k norms, downstream, are untouched.
  // plan_merge sets sqrt(D / d); exact_residual_scale(false) the power of two nearest it,
  // which leaves bf16 and f16 weights bit-exact (its eps then off by D / (d s^2), in [0.5, 2]).
  double base_residual_scale = 1;
};

// Plans the merge of the GPU (gpu: lift::machine_config()) into base; `where` names the
// base's config.json in errors. Every head shape, the conv width and the rotary settings
// must be equal (the GPU's layers are built for Qwen3.5-2B's: 0.8B and 2B match, 4B and 9B
// have 32 value heads); the differences are one Error with a line for each key (both
// values, what to do) and a hint at `qgpu tiny-model --mergeable`. The MLP width is the
// larger of the two (the other's units padded with zero rows).
MergePlan plan_merge(const engine::Config& base, const engine::Config& gpu, const std::string& where);

// sqrt(D / d), or (exact false) the power of two nearest it.
double residual_scale(const MergePlan& p, bool exact);

// A zero-centred norm weight w of a part whose RMS is taken over a scale^2 share of the
// merged residual: the w' with 1 + w' = (1 + w) * scale, in double, rounded once to f32.
float compensate_norm_weight(float w, double scale);

}  // namespace qgpu::merge
