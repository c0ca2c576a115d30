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
#include <immintrin.h>

#include <cmath>
#include <cstring>

#include "engine/forward_internal.h"

namespace qgpu::engine {

namespace {

constexpr int64_t kKeyBlock = 16;  // positions per block of LayerState::keys_blocked

// Position pos's keys (nKV heads of D) into keys_blocked, a new zero block first when pos
// starts one.
void block_key(LayerState& st, const float* k, int64_t pos, int64_t nKV, int64_t D) {
  const int64_t block = nKV * D * kKeyBlock;
  if (pos % kKeyBlock == 0) st.keys_blocked.resize(static_cast<size_t>((pos / kKeyBlock + 1) * block), 0.0f);
  float* b = st.keys_blocked.data() + (pos / kKeyBlock) * block + pos % kKeyBlock;
  for (int64_t i = 0; i < nKV * D; ++i) b[i * kKeyBlock] = k[i];
  st.keys_blocked_n = pos + 1;
}

// attend's two loops with AVX-512 where the CPU has it: the same sums in the same order (a
// product, then a sum, per lane: this file is compiled with -ffp-contract=off), 64 at a
// time in four 16-lane chains instead of 16 in four 4-lane ones.
bool has_avx512f() {
  static const bool has = __builtin_cpu_supports("avx512f");
  return has;
}

// The raw dot products of q with positions [p, p + 16 * blocks) from keys_blocked (block b of
// KV head h at kb + b * block_stride): out[16 b + j] = sum over i of q[i] * key[i].
__attribute__((target("avx512f"))) void block_dots_avx512(const float* q, const float* kb, int64_t blocks,
                                                           int64_t block_stride, int64_t D, float* out) {
  int64_t b = 0;
  for (; b + 4 <= blocks; b += 4) {
    const float* k = kb + b * block_stride;
    __m512 d0 = _mm512_setzero_ps(), d1 = d0, d2 = d0, d3 = d0;
    for (int64_t i = 0; i < D; ++i) {
      const __m512 qi = _mm512_set1_ps(q[i]);
      const float* ki = k + i * kKeyBlock;
      d0 = _mm512_add_ps(d0, _mm512_mul_ps(qi, _mm512_loadu_ps(ki)));
      d1 = _mm512_add_ps(d1, _mm512_mul_ps(qi, _mm512_loadu_ps(ki + block_stride)));
      d2 = _mm512_add_ps(d2, _mm512_mul_ps(qi, _mm512_loadu_ps(ki + 2 * block_stride)));
      d3 = _mm512_add_ps(d3, _mm512_mul_ps(qi, _mm512_loadu_ps(ki + 3 * block_stride)));
    }
    _mm512_storeu_ps(out + 16 * b, d0), _mm512_storeu_ps(out + 16 * b + 16, d1);
    _mm512_storeu_ps(out + 16 * b + 32, d2), _mm512_storeu_ps(out + 16 * b + 48, d3);
  }
  for (; b < blocks; ++b) {
    const float* k = kb + b * block_stride;
    __m512 d = _mm512_setzero_ps();
    for (int64_t i = 0; i < D; ++i) d = _mm512_add_ps(d, _mm512_mul_ps(_mm512_set1_ps(q[i]), _mm512_loadu_ps(k + i * kKeyBlock)));
    _mm512_storeu_ps(out + 16 * b, d);
  }
}

// o[i] = sum over p < n of w[p] * v[p * stride + i] for i < D rounded down to 16; returns how
// many elements it wrote.
__attribute__((target("avx512f"))) int64_t weighted_values_avx512(const float* w, const float* v, int64_t n,
                                                                  int64_t stride, int64_t D, float* o) {
  int64_t i = 0;
  for (; i + 64 <= D; i += 64) {
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    for (int64_t p = 0; p < n; ++p) {
      const __m512 s = _mm512_set1_ps(w[p]);
      const float* x = v + p * stride + i;
      a0 = _mm512_add_ps(a0, _mm512_mul_ps(s, _mm512_loadu_ps(x)));
      a1 = _mm512_add_ps(a1, _mm512_mul_ps(s, _mm512_loadu_ps(x + 16)));
      a2 = _mm512_add_ps(a2, _mm512_mul_ps(s, _mm512_loadu_ps(x + 32)));
      a3 = _mm512_add_ps(a3, _mm512_mul_ps(s, _mm512_loadu_ps(x + 48)));
    }
    _mm512_storeu_ps(o + i, a0), _mm512_storeu_ps(o + i + 16, a1);
    _mm512_storeu_ps(o + i + 32, a2), _mm512_storeu_ps(o + i + 48, a3);
  }
  for (; i + 16 <= D; i += 16) {
    __m512 a = _mm512_setzero_ps();
    for (int64_t p = 0; p < n; ++p) a = _mm512_add_ps(a, _mm512_mul_ps(_mm512_set1_ps(w[p]), _mm512_loadu_ps(v + p * stride + i)));
    _mm512_storeu_ps(o + i, a);
  }
  return i;
}

}  // namespace

void append_key(LayerState& st, const float* k, int64_t pos, int64_t nKV, int64_t D) {
  st.keys.insert(st.keys.end(), k, k + nKV * D);
  block_key(st, k, pos, nKV, D);
}

// One query head against positions [0, n): writes D values to o. Every score is the sum over
// i = 0..D-1 in order and every output element the sum over p = 0..n-1 in order (the bits
// of one position and one element at a time); sixteen of the sums run side by side in four
// four-lane vectors (16 positions' dot products, 16 elements of o), so none waits on
// another: one chain at a time made a 6,000-token prompt (a chat's system prompt on a
// 512-token vocabulary) take a minute in one layer. The 16 positions' element i is one run
// of keys_blocked (gathering it from 16 rows of keys was half of a merge test's time).
void attend(const float* q, const LayerState& st, int64_t n, int64_t kv_head, int64_t nKV, int64_t D,
            float* scores, float* o, DType act) {
  using Lanes = float __attribute__((vector_size(4 * sizeof(float))));  // SSE's width, any x86-64
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  const int64_t stride = nKV * D;
  const float* k0 = st.keys.data() + kv_head * D;
  // HF eager: torch.matmul(query, key_states.transpose(2, 3)) * scaling, both in the dtype.
  auto score = [&](float dot) { return round_act(act, round_act(act, dot) * scale); };
  // Four positions' keys at element i, and four elements of a value row (named sums: an
  // array of vectors would live in memory, each += waiting on the store before it).
  auto load4 = [](const float* x) {
    Lanes v;
    std::memcpy(&v, x, sizeof v);
    return v;
  };
  int64_t p = 0;
  if (has_avx512f() && n >= 16) {
    const int64_t block = nKV * D * kKeyBlock;
    block_dots_avx512(q, st.keys_blocked.data() + kv_head * D * kKeyBlock, n / 16, block, D, scores);
    for (const int64_t full = n / 16 * 16; p < full; ++p) scores[p] = score(scores[p]);
  }
  for (; p + 16 <= n; p += 16) {
    const float* k = st.keys_blocked.data() + ((p / kKeyBlock) * nKV + kv_head) * D * kKeyBlock;
    Lanes d0 = {}, d1 = {}, d2 = {}, d3 = {};
    for (int64_t i = 0; i < D; ++i) {
      const float* ki = k + i * kKeyBlock;
      d0 += q[i] * load4(ki);
      d1 += q[i] * load4(ki + 4);
      d2 += q[i] * load4(ki + 8);
      d3 += q[i] * load4(ki + 12);
    }
    for (int j = 0; j < 4; ++j) {
      scores[p + j] = score(d0[j]), scores[p + 4 + j] = score(d1[j]);
      scores[p + 8 + j] = score(d2[j]), scores[p + 12 + j] = score(d3[j]);
    }
  }
  for (; p < n; ++p) {
    const float* k = k0 + p * stride;
    float dot = 0;
    for (int64_t i = 0; i < D; ++i) dot += q[i] * k[i];
    scores[p] = score(dot);
  }
  float max_score = -INFINITY;
  for (p = 0; p < n; ++p) max_score = std::max(max_score, scores[p]);
  double sum = 0;
  for (p = 0; p < n; ++p) {
    scores[p] = std::exp(scores[p] - max_score);
    sum += scores[p];
  }
  const float inv = static_cast<float>(1.0 / sum);
  for (p = 0; p < n; ++p) scores[p] = round_act(act, scores[p] * inv);  // HF: softmax(..., dtype=f32).to(dtype)
  const float* v0 = st.values.data() + kv_head * D;
  int64_t i = has_avx512f() ? weighted_values_avx512(scores, v0, n, stride, D, o) : 0;
  for (; i + 16 <= D; i += 16) {
    Lanes a0 = {}, a1 = {}, a2 = {}, a3 = {};
    for (p = 0; p < n; ++p) {
      const float* x = v0 + p * stride + i;
      a0 += scores[p] * load4(x);
      a1 += scores[p] * load4(x + 4);
      a2 += scores[p] * load4(x + 8);
      a3 += scores[p] * load4(x + 12);
    }
    for (int j = 0; j < 4; ++j) o[i + j] = a0[j], o[i + 4 + j] = a1[j], o[i + 8 + j] = a2[j], o[i + 12 + j] = a3[j];
  }
  for (; i < D; ++i) {
    float acc = 0;
    for (p = 0; p < n; ++p) acc += scores[p] * v0[p * stride + i];
    o[i] = acc;
  }
  round_act(act, o, D);  // HF: torch.matmul(attn_weights, value_states) in the dtype
}

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

  if (st.keys_blocked_n != n_past) {  // keys written elsewhere (a state read from llama.cpp)
    st.keys_blocked.clear();
    for (int64_t pos = 0; pos < n_past; ++pos) block_key(st, st.keys.data() + pos * nKV * D, pos, nKV, D);
  }
  for (int64_t t = 0; t < T; ++t) {
    const int64_t pos = n_past + t;
    for (int64_t h = 0; h < nKV; ++h) {
      float* k = kk + (t * nKV + h) * D;
      rms_norm(k, w.k_norm.data(), k, D, eps);
      round_act(ex.act, k, D);  // HF: Qwen3_5RMSNorm casts its output back (.type_as(x))
      rope_neox(k, c.rotary_dim(), pos, c.rope_theta, ex.act);
    }
    append_key(st, kk + t * nKV * D, pos, nKV, D);
    st.values.insert(st.values.end(), vv + t * nKV * D, vv + (t + 1) * nKV * D);
  }
  // One score row per head (grows with the sequence).
  const int64_t n_total = n_past + T;
  if (s.scores.size() < static_cast<size_t>(nH * n_total)) s.scores.resize(nH * n_total * 2);
  // Heads are independent: the pool splits them once for the whole batch, each head running
  // its tokens in order (the same arithmetic as one token at a time).
  ex.pool.parallel_for(nH, [&](int64_t h0, int64_t h1) {
    for (int64_t h = h0; h < h1; ++h)
      for (int64_t t = 0; t < T; ++t) {
        const int64_t pos = n_past + t;
        float* sc = s.scores.data() + h * n_total;
        float* q = qg + (t * nH + h) * 2 * D;
        const float* gate = q + D;
        rms_norm(q, w.q_norm.data(), q, D, eps);
        round_act(ex.act, q, D);
        rope_neox(q, c.rotary_dim(), pos, c.rope_theta, ex.act);
        float* oh = o + (t * nH + h) * D;
        attend(q, st, pos + 1, h / (nH / nKV), nKV, D, sc, oh, ex.act);
        // HF: attn_output * torch.sigmoid(gate), the sigmoid and the product in the dtype.
        for (int64_t i = 0; i < D; ++i)
          oh[i] = round_act(ex.act, oh[i] * round_act(ex.act, sigmoid(gate[i])));
      }
  }, nH * D * n_total * T < 8192 ? 1 : 0);
  linear(w.o_proj, o, out, T, s, ex);
}

}  // namespace qgpu::engine
