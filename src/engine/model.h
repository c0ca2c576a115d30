// A loaded Qwen3.5 text model: the config and views of every weight, bound by role.
//
// Matmul weights (Linear) stay in the file they came from (mmap'd safetensors shards or a
// GGUF file) unless the caller asks for another dtype, in which case they are converted
// once at load. Small per-channel vectors (norms, conv kernels, decay parameters) are
// copied to f32 in the form the forward pass uses, whatever file convention they came
// from: zero-centred norms become their multiplier (1 + w, computed in f32 exactly as
// transformers does), A_log becomes a = -exp(A_log). GGUF files store value heads in
// llama.cpp's tiled order; `v_heads_tiled` says so and the forward maps heads accordingly,
// so neither source is reordered at load.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/config.h"
#include "engine/gguf.h"
#include "engine/safetensors.h"
#include "engine/tensor.h"

namespace qgpu::engine {

struct WeightStructure;  // engine/forward_internal.h
struct BaseCopies;       // engine/forward_internal.h
struct CsrWeight;        // engine/ops.h

// An nn.Linear weight [out, in], row-major, in the model's matmul dtype, held one of two
// ways: dense (w.data points at its bytes, in a checkpoint file or converted at load), or
// sparse (w.data null, `sparse` its nonzeros, already rounded to w.dtype: weights made in
// memory, such as the compiled machine's, which are 99.9% zeros and never dense outside an
// export). Both multiply to the same bits (ops.h: matmul_csr is the reference's sum).
struct Linear {
  TensorView w;                             // name, dtype and shape always; data when dense
  std::shared_ptr<const CsrWeight> sparse;  // when sparse
  int64_t out() const { return w.shape[0]; }
  int64_t in() const { return w.shape[1]; }
  bool is_sparse() const { return sparse != nullptr; }
  // Row r's elements as f32 into out[0..in) (+0 where a sparse weight has no entry).
  void row(int64_t r, float* out) const;
  // The weight as f32, dense (exports only: a sparse weight's zeros are made here).
  std::vector<float> dense() const;
};

struct DeltaNetWeights {
  Linear in_proj_qkv;          // [conv_dim, H]: rows q (Hk*dk) | k (Hk*dk) | v (Hv*dv)
  Linear in_proj_z;            // [Hv*dv, H]
  Linear in_proj_b;            // [Hv, H]
  Linear in_proj_a;            // [Hv, H]
  Linear out_proj;             // [H, Hv*dv]
  std::vector<float> conv1d;   // [conv_dim][K]; tap K-1 multiplies the current token
  std::vector<float> dt_bias;  // [Hv]
  std::vector<float> a;        // [Hv] = -exp(A_log)
  std::vector<float> norm;     // [dv] gated RMSNorm weight (plain multiplier)
};

struct AttentionWeights {
  Linear q_proj;               // [nH*2D, H]: per head D query rows then D gate rows
  Linear k_proj;               // [nKV*D, H]
  Linear v_proj;               // [nKV*D, H]
  Linear o_proj;               // [H, nH*D]
  std::vector<float> q_norm;   // [D] multiplier (1 + w)
  std::vector<float> k_norm;   // [D] multiplier (1 + w)
};

struct LayerWeights {
  bool linear = true;                    // linear_attention (DeltaNet) or full_attention
  std::vector<float> input_layernorm;    // [H] multiplier (1 + w)
  std::vector<float> post_attention_layernorm;  // [H] multiplier (1 + w)
  DeltaNetWeights linear_attn;           // when linear
  AttentionWeights self_attn;            // when !linear
  Linear gate_proj, up_proj, down_proj;  // SwiGLU: [I, H], [I, H], [H, I]
};

struct Model {
  Config config;
  DType dtype = DType::f32;              // of every Linear and of embed_tokens
  Linear embed_tokens;                   // [V, H]: row t is token t's embedding
  Linear lm_head;                        // [V, H]; the embedding itself when tied
  std::vector<float> norm;               // [H] final norm multiplier (1 + w)
  std::vector<LayerWeights> layers;
  bool v_heads_tiled = false;            // value head j uses key head j % Hk (GGUF order)

  // What the views point into; kept alive with the model.
  std::vector<SafetensorsDir> safetensors;
  std::vector<GgufFile> gguf;
  std::deque<ConvertedTensor> converted; // weights converted to `dtype` at load
  std::deque<TensorData> owned;          // weights made by hand (tests) or in memory

  // A merged checkpoint's head rows from its token offset on (the GPU's), over all inputs,
  // when host::load_checkpoint made them from the construction; null: found by reading them.
  std::shared_ptr<const CsrWeight> head_gpu_rows;

  // What the first Runtime with skip_zero_rows found by reading every Linear (seconds on
  // the compiled machine: gigabytes of weights), reused by the Runtimes after it. A Linear
  // changed after that is not read again: change weights before the first such Runtime.
  mutable std::shared_ptr<const WeightStructure> structure;
  // A merged checkpoint's base weights as the first Runtime that runs text copied them
  // (their used corner, dense), reused by the Runtimes after it.
  mutable std::shared_ptr<const BaseCopies> base_copies;

  // The key head that value head j reads (HF: grouped j / (Hv/Hk); GGUF: tiled j % Hk).
  int key_head_of(int j) const;
};

// Loads a HF checkpoint directory (config.json + safetensors) or a .gguf file. With a dtype,
// matmul weights are converted to it (a copy); without, they stay as stored (mmap'd) and
// must all share one dtype. Errors name the file and the tensor.
Model load_model(const std::string& path, std::optional<DType> dtype = std::nullopt);
Model load_hf_model(const std::string& dir, std::optional<DType> dtype = std::nullopt);
Model load_gguf_model(const std::string& path, std::optional<DType> dtype = std::nullopt);

// Writes the model as a GGUF (arch qwen35, llama.cpp's conventions: +1 folded into norms,
// ssm_a = -exp(A_log), value heads tiled, 1-D tensors and ssm_conv1d in F32) with matmul
// weights and the embedding in `dtype`. `tokenizer_json` (may be empty: then
// tokenizer.ggml.model = "none") supplies a gpt2-style vocabulary.
void write_gguf_model(const Model& m, const std::string& path, DType dtype,
                      const std::string& tokenizer_json_path = "");

// Returns (and may convert into m.converted) a Linear in m.dtype.
Linear bind_linear(Model& m, const TensorView& v, std::vector<int64_t> want_shape);

// A Model from tensors made in memory (the compiled machine: src/lift/builder.h), bound by
// their transformers names exactly as load_hf_model binds a checkpoint's: `dense` holds the
// small tensors (norms, conv kernels, decay parameters) as a checkpoint would store them,
// `sparse` every matmul weight and the embedding (Linears held sparse, in `dtype`). `where`
// names the source in errors. The result computes what load_hf_model of the checkpoint
// written from the same tensors in `dtype` computes, bit for bit (machine_model_test).
Model bind_model(Config config, DType dtype, std::deque<TensorData> dense, const std::map<std::string, Linear>& sparse,
                 const std::string& where);

}  // namespace qgpu::engine
