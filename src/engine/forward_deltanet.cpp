// The gated DeltaNet mixer (qwen35.md §3.3), one token at a time after the batched
// projections:
//   u = W_qkv a ; z = W_z a ; b = W_b a ; α = W_a a                  (batched matmuls)
//   c = SiLU(causal depthwise conv over the last K raw u)              (conv window in state)
//   q, k, v = split(c) ; q, k L2-normalised per key head ; q /= sqrt(dk)
//   per value head j (key head key_head_of(j)):
//     β = sigmoid(b_j) ; decay = exp(a_j · softplus(α_j + dt_bias_j))
//     S ← decay·S ; δ = β (v − Sᵀk) ; S ← S + k δᵀ ; o = Sᵀq       (read after write)
//     y_j = RMSNorm(o; norm) ⊙ SiLU(z_j)
//   out = W_out y
// Heads are independent, so they are spread over the thread pool, each running every token
// of the batch; the arithmetic of each head does not depend on the split, so every path
// gives the same state bit for bit.
// With skip_zero_rows the recurrence leaves out the zero entries of k and q where that is
// provably the same arithmetic (decay exactly 1, S free of -0, inf and NaN: sparse_rule);
// the compiled machine's heads then touch at most a row of S each a token. Whether S is
// free of those is kept per head in the state (recurrent_plain), updated from the rows
// written, so S is read in full only when that is not known.
// Rounding::transformers rounds (to ex.act) the projections, the conv output and its SiLU,
// β, the recurrence's output and each step of the gated norm; the decay and the recurrence
// (with the q/k L2 norm) stay f32 as in HF-main's torch kernels.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "engine/forward_internal.h"

namespace qgpu::engine {
namespace {

// SiLU(conv) of channel ch: its K - 1 window taps and u[ch], in act (HF causal_conv1d_fn:
// F.conv1d in the weight dtype, then ACT2FN on that tensor).
inline float conv_channel(const std::vector<float>& w, const float* window, const float* u, int64_t ch,
                          int64_t C, int64_t K, DType act) {
  const float* wk = &w[ch * K];
  float acc = 0;
  for (int64_t j = 0; j < K - 1; ++j) acc += wk[j] * window[j * C + ch];
  acc += wk[K - 1] * u[ch];
  return round_act(act, silu(round_act(act, acc)));
}

// Pushes u (one token's raw qkv) into the conv window and writes SiLU(conv) to c.
void conv_step(const Config& cfg, const std::vector<float>& w, std::vector<float>& window,
               const float* u, float* c, DType act) {
  const int64_t C = cfg.conv_dim(), K = cfg.linear_conv_kernel_dim;
  for (int64_t ch = 0; ch < C; ++ch) c[ch] = conv_channel(w, window.data(), u, ch, C, K, act);
  // Shift: drop the oldest row, append u.
  if (K > 1) {
    std::memmove(window.data(), window.data() + C, static_cast<size_t>((K - 2) * C) * 4);
    std::memcpy(window.data() + (K - 2) * C, u, static_cast<size_t>(C) * 4);
  }
}

// conv_step over the listed channels alone; every other channel's input is +0 at every
// token (WeightStructure::live_channels), so its window holds +0, which it keeps, and its
// SiLU(conv) is +0 (a sum of finite w times +0 from +0).
void conv_step_live(const Config& cfg, const std::vector<float>& w, std::vector<float>& window,
                    const float* u, float* c, DType act, const std::vector<int32_t>& live) {
  const int64_t C = cfg.conv_dim(), K = cfg.linear_conv_kernel_dim;
  std::fill_n(c, C, 0.0f);
  float* win = window.data();
  for (const int32_t ch : live) {
    c[ch] = conv_channel(w, win, u, ch, C, K, act);
    if (K > 1) {
      for (int64_t j = 0; j + 1 < K - 1; ++j) win[j * C + ch] = win[(j + 1) * C + ch];
      win[(K - 2) * C + ch] = u[ch];
    }
  }
}

}  // namespace

void delta_rule(float* S, const float* k, const float* q, const float* v, float beta,
                float decay, int64_t dk, int64_t dv, float* o, float* m) {
  // m = Sᵀk after decay.
  for (int64_t j = 0; j < dv; ++j) m[j] = 0;
  for (int64_t i = 0; i < dk; ++i) {
    float* row = S + i * dv;
    for (int64_t j = 0; j < dv; ++j) {
      row[j] *= decay;
      m[j] += row[j] * k[i];
    }
  }
  for (int64_t j = 0; j < dv; ++j) m[j] = beta * (v[j] - m[j]);  // δ
  for (int64_t j = 0; j < dv; ++j) o[j] = 0;
  for (int64_t i = 0; i < dk; ++i) {
    float* row = S + i * dv;
    for (int64_t j = 0; j < dv; ++j) {
      row[j] += k[i] * m[j];
      o[j] += row[j] * q[i];
    }
  }
}

namespace {

bool all_finite(const float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(x[i])) return false;
  return true;
}

// Whether x[0..n) holds no -0, inf or NaN: the values x for which x + (+0) and x + (-0)
// both give x's bits, and x * (±0) is a zero.
bool plain(const float* x, int64_t n) {
  uint32_t odd = 0;
  for (int64_t i = 0; i < n; ++i) {
    uint32_t b;
    std::memcpy(&b, &x[i], 4);
    odd |= (b == 0x80000000u) | ((b & 0x7f800000u) == 0x7f800000u);
  }
  return odd == 0;
}

// delta_rule with decay 1 on a plain S, without the terms of k's and q's zero entries.
// S·1 = S. A sum from +0 is never -0 (x + y is -0 only when both are), so adding a term
// x·(±0) = ±0 (x finite) leaves it as it is: Sᵀk is its sum over k's nonzero rows in order.
// If δ is finite, a row whose k is ±0 gets x + (±0) = x on every element (x is not -0).
// A written row can only come out inf (x + y is not -0 when x is not), and while no row is
// inf Sᵀq is likewise its sum over q's nonzero rows; otherwise over all rows, as delta_rule.
// Returns false with S untouched when δ is not finite (delta_rule then writes NaN into
// rows whose k is zero); sets plain_after to whether S is still plain.
bool sparse_rule(float* S, const float* k, const float* q, const float* v, float beta,
                 int64_t dk, int64_t dv, float* o, float* m, bool& plain_after) {
  for (int64_t j = 0; j < dv; ++j) m[j] = 0;
  for (int64_t i = 0; i < dk; ++i) {
    if (k[i] == 0) continue;
    const float* row = S + i * dv;
    for (int64_t j = 0; j < dv; ++j) m[j] += row[j] * k[i];
  }
  for (int64_t j = 0; j < dv; ++j) m[j] = beta * (v[j] - m[j]);  // δ
  if (!all_finite(m, dv)) return false;
  plain_after = true;
  for (int64_t i = 0; i < dk; ++i) {
    if (k[i] == 0) continue;
    float* row = S + i * dv;
    for (int64_t j = 0; j < dv; ++j) row[j] += k[i] * m[j];
    plain_after = plain_after && plain(row, dv);
  }
  for (int64_t j = 0; j < dv; ++j) o[j] = 0;
  for (int64_t i = 0; i < dk; ++i) {
    if (q[i] == 0 && plain_after) continue;
    const float* row = S + i * dv;
    for (int64_t j = 0; j < dv; ++j) o[j] += row[j] * q[i];
  }
  return true;
}

}  // namespace

void delta_rule_skipping(float* S, uint8_t& known_plain, const float* k, const float* q,
                         const float* v, float beta, float decay, int64_t dk, int64_t dv,
                         float* o, float* m) {
  if (decay == 1.0f) {
    if (!known_plain) known_plain = plain(S, dk * dv);
    bool plain_after = false;
    if (known_plain && sparse_rule(S, k, q, v, beta, dk, dv, o, m, plain_after)) {
      known_plain = plain_after;
      return;
    }
  }
  delta_rule(S, k, q, v, beta, decay, dk, dv, o, m);
  known_plain = 0;  // S may now hold -0 (from a decay below 1) or NaN (from δ)
}

void deltanet_layer(const Model& m, const LayerWeights& l, LayerState& st, const float* a,
                    float* out, int64_t T, Runtime::Scratch& s, const Exec& ex,
                    std::span<const uint8_t> dead_heads, const std::vector<int32_t>* live_channels,
                    const ProbeFn* probe, int il, int64_t n_past) {
  const Config& c = m.config;
  const DeltaNetWeights& w = l.linear_attn;
  const int64_t C = c.conv_dim(), Hk = c.linear_num_key_heads, Hv = c.linear_num_value_heads;
  const int64_t dk = c.linear_key_head_dim, dv = c.linear_value_head_dim;
  const float eps = static_cast<float>(c.rms_norm_eps);
  float* u = s.big1.data();       // [T][C]
  float* z = s.big2.data();       // [T][Hv*dv]
  float* y = s.big3.data();       // [T][Hv*dv]
  float* bb = s.small1.data();    // [T][Hv]
  float* aa = s.small2.data();    // [T][Hv]
  linear(w.in_proj_qkv, a, u, T, s, ex);
  linear(w.in_proj_z, a, z, T, s, ex);
  linear(w.in_proj_b, a, bb, T, s, ex);
  linear(w.in_proj_a, a, aa, T, s, ex);

  const float q_scale = 1.0f / std::sqrt(static_cast<float>(dk));
  int64_t live_heads = Hv;
  for (uint8_t dead : dead_heads) live_heads -= dead;
  std::vector<uint8_t>& known_plain = st.recurrent_plain;
  if (!ex.skip_zero_rows)
    known_plain.clear();  // delta_rule writes S without keeping it
  else if (std::ssize(known_plain) != Hv)
    known_plain.assign(Hv, 0);
  // The conv and the q/k norms of every token first (each token's window is the one before
  // it), then each head's recurrence over all T tokens: heads are independent, so the pool
  // splits them once a layer, not once a token.
  for (int64_t t = 0; t < T; ++t) {
    float* cv = s.conv_out.data() + t * C;  // [C]: q [Hk][dk] | k [Hk][dk] | v [Hv][dv]
    if (live_channels)
      conv_step_live(c, w.conv1d, st.conv, u + t * C, cv, ex.act, *live_channels);
    else
      conv_step(c, w.conv1d, st.conv, u + t * C, cv, ex.act);
    // q, k: the L2 norm in f32 inside the kernel (HF-main, use_qk_l2norm_in_kernel).
    for (int64_t h = 0; h < Hk; ++h) {
      float* q = cv + h * dk;
      l2_norm(q, dk, 1e-6f);
      for (int64_t i = 0; i < dk; ++i) q[i] *= q_scale;
      l2_norm(cv + Hk * dk + h * dk, dk, 1e-6f);
    }
  }
  ex.pool.parallel_for(Hv, [&](int64_t j0, int64_t j1) {
    for (int64_t j = j0; j < j1; ++j)
      for (int64_t t = 0; t < T; ++t) {
        float* o = y + t * Hv * dv + j * dv;
        if (!dead_heads.empty() && dead_heads[j]) {
          // q = k = 0 at every token (their weight rows are zero): S never changes and the
          // read is 0, which the gated norm keeps 0 (+0 into out_proj, as computed).
          std::fill_n(o, dv, 0.0f);
          continue;
        }
        const float* cv = s.conv_out.data() + t * C;
        int64_t kh = m.key_head_of(static_cast<int>(j));
        const float* q = cv + kh * dk;
        const float* k = cv + Hk * dk + kh * dk;
        const float* v = cv + 2 * Hk * dk + j * dv;
        // HF: beta = b.sigmoid() (in the dtype); g = -A_log.float().exp() * softplus(a.float()
        // + dt_bias) in f32.
        float beta = round_act(ex.act, sigmoid(bb[t * Hv + j]));
        float decay = std::exp(w.a[j] * softplus(aa[t * Hv + j] + w.dt_bias[j]));
        float* S = &st.recurrent[j * dk * dv];
        float* delta = s.head_tmp.data() + j * dv;
        if (ex.skip_zero_rows)
          delta_rule_skipping(S, known_plain[j], k, q, v, beta, decay, dk, dv, o, delta);
        else
          delta_rule(S, k, q, v, beta, decay, dk, dv, o, delta);
        round_act(ex.act, o, dv);  // HF: core_attn_out.to(initial_dtype)
        // Gated RMSNorm: RMSNorm(o; norm) ⊙ SiLU(z)
        gated_rms_norm(o, w.norm.data(), z + t * Hv * dv + j * dv, o, dv, eps, ex.act);
      }
  }, live_heads * dk * dv * 4 * T < kParallelWork ? 1 : 0);
  if (probe && *probe)
    for (int64_t t = 0; t < T; ++t) (*probe)("mixer_heads", il, n_past + t, std::span<float>(y + t * Hv * dv, Hv * dv));
  linear(w.out_proj, y, out, T, s, ex);
}

}  // namespace qgpu::engine
