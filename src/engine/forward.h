// The Qwen3.5 forward pass: a Runtime owns the scratch buffers and threads for one model and
// runs tokens through it, advancing a State. Prefill (many tokens) and decode (one) are the
// same code: tokens go through each layer in batches of up to max_batch, and the DeltaNet
// recurrence runs token by token, so a prefill and the equivalent decodes compute the same
// numbers.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "base/thread_pool.h"
#include "engine/model.h"
#include "engine/ops.h"
#include "engine/state.h"

namespace qgpu::engine {

// A probe: sees named intermediates (not a launch's trace, its records): name, layer (-1:
// none), position in the sequence, the values. "embed", "attn_residual" (after the mixer)
// and "layer_out" (after the MLP) are the residual, which it may change (the lens's
// interventions), as "mlp_act" (the MLP's unit activations, SiLU(gate) * up, before down)
// and "mixer_heads" (a DeltaNet layer's value heads' gated outputs, [heads][dv], before
// out_proj); "mixer_out", "ffn_out" and "result_norm" are for reading. Null in production.
using ProbeFn = std::function<void(const char* name, int il, int64_t pos, std::span<float>)>;

// Where a bf16/f16 model rounds its activations to its dtype (an f32 model: nowhere, and the
// two policies give the same bits).
enum class Rounding {
  // llama.cpp's: a matmul rounds its input to the weight type and accumulates in f32;
  // everything else (residual stream, norms, DeltaNet, attention) stays f32.
  llama_cpp,
  // transformers' with the model loaded in its dtype (HF-main modeling_qwen3_5.py, eager
  // attention): every tensor between ops is in the dtype, so each op's output is rounded
  // (the residual stream, norm outputs, every Linear's output, activations, RoPE, softmax
  // probabilities, gates); f32 only inside RMSNorm, the decay g and the DeltaNet
  // recurrence; per-channel parameters held in the dtype too. docs/design.md §4.
  transformers,
};

struct RuntimeOptions {
  int threads = 0;                          // 0: all cores, or 1 for a small model
  MatmulPath matmul = MatmulPath::fast;     // the one place the path is chosen
  Rounding rounding = Rounding::llama_cpp;  // the one place the rounding policy is chosen
  int64_t max_batch = 64;                   // tokens per layer pass during prefill
  // Exploit the weights' structure, decided once here by reading every weight: for models
  // that are mostly zeros, like the compiled machine. A weight whose nonzero rows are at
  // most 1/16 nonzero is multiplied from a CSR copy in the reference's order (so on either
  // path it gives MatmulPath::reference's bits); another weight with zero rows skips them
  // (its other rows as the path computes them); value heads, attention layers and MLPs
  // that are provably zero are skipped (they would add exact zeros); and where a DeltaNet
  // head's decay is exactly 1, its recurrence skips the rows of S of its zero key and
  // query entries (delta_rule_skipping: the same bits, decided per token and head).
  bool skip_zero_rows = false;
  // Every sequence this Runtime runs holds the GPU's tokens alone: a launch (host::launch,
  // host::check_launch), never text. On a merged checkpoint (config.json's
  // "qgpu") with skip_zero_rows, the base's layers and the head's base rows are then skipped:
  // in such a sequence the base's residual dims are +0 at every position, so each base
  // layer would add +0 and keep its state at its zeros, and the base's head rows would give
  // +0 (docs/design.md §3 "A launch inside a merged checkpoint": the same records, GPU
  // state and logits, bit for bit). A base token is then an error, and the base's attention
  // caches stay empty, so the sequence can never continue with text. Elsewhere: no effect.
  bool gpu_sequence = false;
  ProbeFn probe;                            // null: nothing probed
};

class Runtime {
 public:
  Runtime(const Model& model, RuntimeOptions options = {});
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  const Model& model() const { return model_; }
  int threads() const { return pool_.size(); }  // the pool's, counting the caller
  // Runs tokens (any count >= 1) from state s. Writes the logits of the last token to
  // `logits` ([V]); with all_logits, of every token ([T][V]). Token ids are checked.
  void forward(State& s, std::span<const int32_t> tokens, std::vector<float>& logits,
               bool all_logits = false);

  struct Scratch;

 private:
  void forward_batch(State& s, std::span<const int32_t> tokens, float* logits, bool all_logits);

  const Model& model_;
  RuntimeOptions options_;
  DType act_;                        // activations round to this at the policy's points (f32: not)
  bool skip_base_ = false;           // gpu_sequence on a merged checkpoint whose GPU keeps the base's dims +0
  std::vector<LayerWeights> layers_; // the model's layers with per-channel parameters as the
  std::vector<float> norm_;          // policy holds them (transformers: rounded to the dtype)
  std::unique_ptr<Scratch> scratch_; // before pool_: the thread count reads what it found
  ThreadPool pool_;
};

}  // namespace qgpu::engine
