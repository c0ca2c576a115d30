// Shared between forward.cpp and the mixers (forward_deltanet.cpp, forward_attention.cpp):
// the scratch buffers, allocated once per Runtime and sized for max_batch tokens.
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "base/mapped_file.h"
#include "engine/forward.h"

namespace qgpu::engine {

// What reading every Linear of a Model once found (skip_zero_rows), kept in the Model
// (Model::structure) for each Runtime built after the first.
struct WeightStructure {
  // By a weight's data pointer: a CSR copy of each weight sparse enough for it; the
  // nonzero row blocks of each other weight that has zero rows.
  std::unordered_map<const void*, CsrWeight> csr;
  std::unordered_map<const void*, std::vector<RowBlock>> sparse;
  // A merged checkpoint's head: the base's rows dense over the base's dims (blocks), the
  // GPU's rows from a CSR copy of them.
  struct Hybrid {
    std::vector<RowBlock> dense;
    CsrWeight csr;
  };
  std::unordered_map<const void*, Hybrid> hybrid;
  // Per layer: DeltaNet value heads that never write or read (q and k rows zero),
  // mixers whose output is +0 and whose state never changes (an attention layer whose
  // o_proj is zero, whatever it attends; a DeltaNet layer whose heads are all dead, whose
  // conv channels are all +0 (live_channels empty) and whose out_proj is zero), MLPs whose
  // down_proj is zero.
  std::vector<std::vector<uint8_t>> dead_heads;
  std::vector<uint8_t> mixer_zero, mlp_zero;
  // Per layer: the MLP units before which every nonzero row of gate and up lies; SwiGLU of
  // the others is +0 (SiLU(+0) * +0), so it runs on this prefix (the compiled machine's
  // layers use 2,500 to 6,100 of 6,144).
  std::vector<int64_t> mlp_units;
  // Per DeltaNet layer whose in_proj_qkv is multiplied from a CSR copy: the conv channels
  // whose row has a nonzero (ascending). The CSR product writes +0 to the others at every
  // token, whatever the activations, so their window holds +0 and their SiLU(conv) is +0
  // (their conv weights are finite; a channel with any other is listed). None for other
  // layers: a dense product of inf or NaN activations gives NaN in a zero row.
  std::vector<std::optional<std::vector<int32_t>>> live_channels;
  // A merged checkpoint (config.json's "qgpu") whose GPU layers write none of the base's
  // residual dims (every writer's rows [0, hidden_offset) zero): in a sequence of GPU
  // tokens alone those dims then stay +0 through the GPU's layers (RuntimeOptions::
  // gpu_sequence). The head's GPU rows: `head_gpu`, the CSR rows of its Hybrid.
  bool gpu_keeps_base_zero = false;
  const CsrWeight* head_gpu = nullptr;
};

// A merged checkpoint's base readers (q/k/v, in_proj_*, gate/up over the base's MLP units)
// and the head's base rows, by the file weight's data pointer: their used corner (the first
// d columns) held dense, so a text token reads what the base reads (in the file a row is D
// wide and its d used columns straddle twice the pages). Held in a corner file of the
// user's cache, mapped like a checkpoint (forward_merged.cpp), or for small models and
// where no cache can be written copied into memory (`bytes`). Made for the first Runtime
// that runs text (not gpu_sequence) and kept in the Model (Model::base_copies); a launch
// never needs them.
struct BaseCopies {
  std::unordered_map<const void*, Linear> narrow;
  std::deque<ZeroedBytes> bytes;
  MappedFile corners;  // the corner file, when they are read from one
  std::string notice;  // what making them did that the user should hear (a file written), or ""
};

struct Runtime::Scratch {
  std::vector<float> x;         // [T][H] residual
  std::vector<float> a;         // [T][H] normed input of a sublayer
  std::vector<float> out;       // [T][H] sublayer output
  std::vector<float> big1;      // [T][max(conv_dim, nH*2D, I)]
  std::vector<float> big2;      // [T][max(Hv*dv, nKV*D, I)]
  std::vector<float> big3;      // [T][max(Hv*dv, nKV*D, nH*D)]
  std::vector<float> v;         // [T][nKV*D]
  std::vector<float> small1;    // [T][Hv]
  std::vector<float> small2;    // [T][Hv]
  std::vector<float> conv_out;  // [T][conv_dim] after conv + SiLU (and q, k normed)
  std::vector<float> head_tmp;  // [Hv][dv] per-head scratch (δ)
  std::vector<float> scores;    // attention scores, grows with the sequence
  std::vector<uint8_t> xq;      // activations rounded to the weight dtype
  CsrInputs csr_inputs;         // a token's nonzero inputs (matmul_csr)
  // With skip_zero_rows, what the scan of the weights found (the Model's, shared by its
  // Runtimes); otherwise an empty one.
  std::shared_ptr<const WeightStructure> found;
  // A merged checkpoint's BaseCopies for a Runtime that runs text; otherwise an empty one.
  std::shared_ptr<const BaseCopies> copies;
};

// How this Runtime computes: the matmul path, the dtype activations are rounded to at the
// rounding policy's points (f32: none; see Rounding), the threads, and whether it skips
// work whose result it can prove (RuntimeOptions::skip_zero_rows).
struct Exec {
  MatmulPath path;
  DType act;
  ThreadPool& pool;
  bool skip_zero_rows = false;
};

// A merged checkpoint (config.json's "qgpu" places the GPU after the base's dims, head
// untied): forward_merged.cpp. declare_merged_structure fills what find_structure would
// otherwise read from the base's weights and the head; make_base_copies copies the base's
// used weights for text; release_file_pages drops the file pages of [p, p + n).
bool is_merged(const Config& c);
void declare_merged_structure(const Model& m, WeightStructure& s);
void make_base_copies(const Model& m, BaseCopies& b);
void release_file_pages(const Model& m, const void* p, size_t n);

// Calls fn(file) for every file the model maps (a weight's bytes lie in one of them, or in
// memory, where MappedFile's calls do nothing).
template <typename Fn>
void for_each_file(const Model& m, Fn fn) {
  for (const SafetensorsDir& d : m.safetensors)
    for (const SafetensorsFile& f : d.shards) fn(f.file);
  for (const GgufFile& g : m.gguf) fn(g.file);
}

// Calls fn(w, rows) for every reader of a merged checkpoint's base layers with the rows the
// base has (gate and up: its MLP units; past them, +0 padding), then fn(head, base tokens).
template <typename Fn>
void for_each_base_reader(const Model& m, Fn fn) {
  const Config& c = m.config;
  const int64_t units = c.qgpu->base_intermediate > 0 ? c.qgpu->base_intermediate : c.intermediate_size;
  for (int il = c.qgpu->layers; il < c.num_hidden_layers; ++il) {
    const LayerWeights& l = m.layers[il];
    if (l.linear) {
      for (const Linear* w : {&l.linear_attn.in_proj_qkv, &l.linear_attn.in_proj_z, &l.linear_attn.in_proj_b,
                              &l.linear_attn.in_proj_a})
        fn(*w, w->out());
    } else {
      for (const Linear* w : {&l.self_attn.q_proj, &l.self_attn.k_proj, &l.self_attn.v_proj}) fn(*w, w->out());
    }
    fn(l.gate_proj, units);
    fn(l.up_proj, units);
  }
  fn(m.lm_head, int64_t{c.qgpu->token_offset});
}

// Rows [r0, r0 + rows) of w over its first d columns into out (rows * d elements), read from
// the file w lies in (else from memory).
void read_corner(const Model& m, const Linear& w, int64_t r0, int64_t rows, int64_t d, uint8_t* out);

// One matmul through the chosen path; the output rounded to ex.act (an nn.Linear's output
// is a tensor in the model dtype: f32 accumulation, one rounding).
void linear(const Linear& w, const float* x, float* y, int64_t T, Runtime::Scratch& s,
            const Exec& ex);

// dead_heads (empty: none): value heads whose q and k weight rows are all zero. With
// ex.skip_zero_rows each head's recurrence is delta_rule_skipping. live_channels (null:
// all): WeightStructure::live_channels of the layer; the conv runs over those alone.
// probe (null: none): sees, and may change, the value heads' gated outputs before out_proj,
// "mixer_heads" of layer il, one call a token (position n_past + t, Hv * dv values).
void deltanet_layer(const Model& m, const LayerWeights& l, LayerState& st, const float* a,
                    float* out, int64_t T, Runtime::Scratch& s, const Exec& ex,
                    std::span<const uint8_t> dead_heads = {},
                    const std::vector<int32_t>* live_channels = nullptr, const ProbeFn* probe = nullptr,
                    int il = -1, int64_t n_past = 0);
// One value head's recurrence (qwen35.md §3.3), the reference:
//   S ← decay·S ; m = Sᵀk ; δ = β (v − m) ; S ← S + k δᵀ ; o = Sᵀq
// S: [dk][dv] (row i: key index); k, q: [dk]; v, o, m (scratch, left holding δ): [dv].
void delta_rule(float* S, const float* k, const float* q, const float* v, float beta,
                float decay, int64_t dk, int64_t dv, float* o, float* m);
// delta_rule's S and o bit for bit, with less work where decay is exactly 1 and S holds no
// -0, inf or NaN: rows whose k entry is ±0 are left as they are (the update would add ±0 to
// each element) and Sᵀk, Sᵀq sum only the rows of nonzero k, q entries (the zero ones add
// ±0 to a sum that is never -0). The compiled machine's keys and queries are one-hot or
// zero, so a head reads and writes at most one row of S a token. known_plain (in and out):
// nonzero promises S holds none of those values (LayerState::recurrent_plain); 0 means not
// known, and S is read to find out. m: scratch.
void delta_rule_skipping(float* S, uint8_t& known_plain, const float* k, const float* q,
                         const float* v, float beta, float decay, int64_t dk, int64_t dv,
                         float* o, float* m);

void attention_layer(const Model& m, const LayerWeights& l, LayerState& st, int64_t n_past,
                     const float* a, float* out, int64_t T, Runtime::Scratch& s, const Exec& ex);

// A parameter as transformers holds it in a `t` model, from the forms the Model keeps: a
// zero-centred norm's multiplier 1 + w becomes 1 + round(w); a = -exp(A_log) becomes
// -exp(round(A_log)). Exact when the stored parameter is representable in t (rounding_test
// checks every bf16 and f16 value); an f32-stored value within about 2^-24 (relative) of a
// rounding midpoint of t can land one ulp of t away (the Model keeps no raw A_log or w).
float norm_multiplier_in(DType t, float multiplier);
float decay_rate_in(DType t, float a);

// One query head q[0..D) of an attention layer against the cached positions [0, n) of
// KV head kv_head (st's keys, keys_blocked and values): the scaled scores, softmax and the
// weighted sum of the values into o[0..D); scores[0..n) is scratch. Rounded to act where
// HF's eager attention rounds (forward_attention.cpp).
void attend(const float* q, const LayerState& st, int64_t n, int64_t kv_head, int64_t nKV, int64_t D,
            float* scores, float* o, DType act);
// Position pos's keys (nKV heads of D floats) appended to st.keys and st.keys_blocked.
void append_key(LayerState& st, const float* k, int64_t pos, int64_t nKV, int64_t D);

}  // namespace qgpu::engine
