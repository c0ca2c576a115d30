// The gated full-attention mixer (qwen35.md §3.4):
//   [q_h ; gate_h] = W_q a (per head interleaved) ; k = W_k a ; v = W_v a
//   q_h = RMSNorm(q_h; q_norm) ; k = RMSNorm(k; k_norm) ; partial NeoX RoPE on both
//   o_h = softmax(q_h Kᵀ / sqrt(D)) V  over this and every earlier position (GQA: KV head
//         h / (nH/nKV)) ; o_h ⊙= sigmoid(gate_h) ; out = W_o o
// Keys and values are appended to the state's cache as each token is reached, so a token
// sees exactly the positions before it and itself. Rounding::transformers follows HF's eager
// attention in the dtype: projections, q/k norms and RoPE rounded, scores q·k rounded then
// scaled, softmax in f32 and its probabilities rounded, P·V rounded, the gate and its
// product rounded. (SDPA, transformers' default backend, rounds differently: on CPU it
// keeps the scores in f32; this models attn_implementation="eager".)
#include <cmath>

#include "engine/forward_internal.h"

namespace qgpu::engine {
namespace {

// One query head against positions [0, n): writes D values to o.
void attend(const float* q, const std::vector<float>& keys, const std::vector<float>& values,
            int64_t n, int64_t kv_head, int64_t nKV, int64_t D, float* scores, float* o,
            DType act) {
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  float max_score = -INFINITY;
  for (int64_t p = 0; p < n; ++p) {
    const float* k = &keys[(p * nKV + kv_head) * D];
    float dot = 0;
    for (int64_t i = 0; i < D; ++i) dot += q[i] * k[i];
    // HF eager: torch.matmul(query, key_states.transpose(2, 3)) * scaling, both in the dtype.
    scores[p] = round_act(act, round_act(act, dot) * scale);
    max_score = std::max(max_score, scores[p]);
  }
  double sum = 0;
  for (int64_t p = 0; p < n; ++p) {
    scores[p] = std::exp(scores[p] - max_score);
    sum += scores[p];
  }
  const float inv = static_cast<float>(1.0 / sum);
  for (int64_t i = 0; i < D; ++i) o[i] = 0;
  for (int64_t p = 0; p < n; ++p) {
    const float* v = &values[(p * nKV + kv_head) * D];
    const float w = round_act(act, scores[p] * inv);  // HF: softmax(..., dtype=f32).to(dtype)
    for (int64_t i = 0; i < D; ++i) o[i] += w * v[i];
  }
  round_act(act, o, D);  // HF: torch.matmul(attn_weights, value_states) in the dtype
}

}  // namespace

void attention_layer(const Model& m, const LayerWeights& l, LayerState& st, int64_t n_past,
                     const float* a, float* out, int64_t T, Runtime::Scratch& s, const Exec& ex) {
  const Config& c = m.config;
  const AttentionWeights& w = l.self_attn;
  const int64_t nH = c.num_attention_heads, nKV = c.num_key_value_heads, D = c.head_dim;
  const float eps = static_cast<float>(c.rms_norm_eps);
  float* qg = s.big1.data();  // [T][nH][2D]
  float* kk = s.big2.data();  // [T][nKV][D]
  float* o = s.big3.data();   // [T][nH][D]
  linear(w.q_proj, a, qg, T, s, ex);
  linear(w.k_proj, a, kk, T, s, ex);
  float* vv = s.v.data();     // [T][nKV][D]
  linear(w.v_proj, a, vv, T, s, ex);

  for (int64_t t = 0; t < T; ++t) {
    const int64_t pos = n_past + t;
    for (int64_t h = 0; h < nKV; ++h) {
      float* k = kk + (t * nKV + h) * D;
      rms_norm(k, w.k_norm.data(), k, D, eps);
      round_act(ex.act, k, D);  // HF: Qwen3_5RMSNorm casts its output back (.type_as(x))
      rope_neox(k, c.rotary_dim(), pos, c.rope_theta, ex.act);
    }
    st.keys.insert(st.keys.end(), kk + t * nKV * D, kk + (t + 1) * nKV * D);
    st.values.insert(st.values.end(), vv + t * nKV * D, vv + (t + 1) * nKV * D);
  }
  // One score row per head (grows with the sequence).
  const int64_t n_total = n_past + T;
  if (s.scores.size() < static_cast<size_t>(nH * n_total)) s.scores.resize(nH * n_total * 2);
  for (int64_t t = 0; t < T; ++t) {
    const int64_t pos = n_past + t;
    ex.pool.parallel_for(nH, [&](int64_t h0, int64_t h1) {
      for (int64_t h = h0; h < h1; ++h) {
        float* sc = s.scores.data() + h * n_total;
        float* q = qg + (t * nH + h) * 2 * D;
        const float* gate = q + D;
        rms_norm(q, w.q_norm.data(), q, D, eps);
        round_act(ex.act, q, D);
        rope_neox(q, c.rotary_dim(), pos, c.rope_theta, ex.act);
        float* oh = o + (t * nH + h) * D;
        attend(q, st.keys, st.values, pos + 1, h / (nH / nKV), nKV, D, sc, oh, ex.act);
        // HF: attn_output * torch.sigmoid(gate), the sigmoid and the product in the dtype.
        for (int64_t i = 0; i < D; ++i)
          oh[i] = round_act(ex.act, oh[i] * round_act(ex.act, sigmoid(gate[i])));
      }
    }, nH * D * n_total < 8192 ? 1 : 0);
  }
  linear(w.o_proj, o, out, T, s, ex);
}

}  // namespace qgpu::engine
