// The two rounding policies (forward.h, Rounding). For an f32 model they are the same bits;
// for bf16/f16, Rounding::transformers must round wherever transformers' modeling_qwen3_5.py
// (HF-main, eager attention) holds a tensor in the dtype. The main check is a twin: the
// transformers policy written out once more below, plainly, one token at a time, from the
// checkpoint's raw tensors, with every rounding point of the HF code in one place. It reuses
// the engine's f32 ops (so the f32 arithmetic is the same bits) and must agree with the
// engine bit for bit: a rounding point dropped or added in the engine shows up as a
// mismatch. There is no torch here, so no golden from transformers itself.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "engine/forward.h"
#include "engine/forward_internal.h"
#include "engine/safetensors.h"
#include "engine/tiny_model.h"
#include "engine_checks.h"
#include "test_util.h"

namespace qgpu::engine {
namespace {

using test_util::TempDir;

const std::vector<int32_t> kTokens = {5, 17, 300, 42, 42, 7, 250, 1, 99, 370, 3, 12, 60};

std::vector<float> run(const Model& m, Rounding rounding, MatmulPath path = MatmulPath::fast,
                       int64_t max_batch = 64, ProbeFn trace = nullptr) {
  Runtime rt(m, {.threads = 2, .matmul = path, .rounding = rounding, .max_batch = max_batch,
                 .probe = std::move(trace)});
  State s = make_state(m.config);
  std::vector<float> logits;
  rt.forward(s, kTokens, logits, true);
  return logits;
}

double nmse(const std::vector<float>& want, const std::vector<float>& got) {
  double num = 0, den = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    num += (double(want[i]) - got[i]) * (double(want[i]) - got[i]);
    den += double(want[i]) * want[i];
  }
  return num / den;
}

bool representable(DType t, float x) { return round_to(t, x) == x; }

// ---- the twin ---------------------------------------------------------------------------

// The transformers policy for one model, token by token. `r` is the rounding of a tensor
// op's output to the dtype; "HF:" names the line of modeling_qwen3_5.py being mirrored.
struct Twin {
  const Model& m;
  const Config& c;
  SafetensorsDir raw;  // the checkpoint as stored: parameters are rounded from these
  DType t;
  int64_t pos = 0;
  std::vector<std::vector<float>> window, S, keys, values;  // per layer

  Twin(const Model& model, const std::string& dir, DType dtype)
      : m(model), c(model.config), raw(load_safetensors_dir(dir)), t(dtype) {
    int L = c.num_hidden_layers;
    window.resize(L), S.resize(L), keys.resize(L), values.resize(L);
    for (int il = 0; il < L; ++il) {
      window[il].assign(size_t(c.linear_conv_kernel_dim - 1) * c.conv_dim(), 0.0f);
      S[il].assign(size_t(c.value_dim()) * c.linear_key_head_dim, 0.0f);
    }
  }

  float r(float x) const { return round_to(t, x); }
  void r(std::vector<float>& v) const { for (float& x : v) x = r(x); }
  // A parameter as transformers holds it: stored value rounded to the dtype.
  std::vector<float> param(const std::string& name) const {
    std::vector<float> v = to_f32(*raw.find(name));
    r(v);
    return v;
  }
  std::string layer(int il) const { return fmt::format("model.layers.{}.", il); }

  // HF nn.Linear in the dtype: f32 accumulation in order (as matmul_reference), one rounding.
  std::vector<float> lin(const Linear& w, const std::vector<float>& x) const {
    std::vector<float> y(w.out());
    for (int64_t o = 0; o < w.out(); ++o) {
      float acc = 0;
      for (int64_t i = 0; i < w.in(); ++i) acc += r(x[i]) * w.w.at(o * w.in() + i);
      y[o] = r(acc);
    }
    return y;
  }
  // HF Qwen3_5RMSNorm: f32 inside, times (1 + w.float()), then .type_as(x).
  std::vector<float> norm(const float* x, int64_t n, const std::string& weight) const {
    std::vector<float> w = param(weight), y(n);
    for (float& v : w) v = 1.0f + v;
    rms_norm(x, w.data(), y.data(), n, float(c.rms_norm_eps));
    r(y);
    return y;
  }
  // HF apply_rotary_pos_emb with cos/sin cast to the dtype: q*cos + rotate_half(q)*sin.
  void rope(float* x) const {
    int half = c.rotary_dim() / 2;
    for (int i = 0; i < half; ++i) {
      float inv_freq = 1.0f / float(std::pow(c.rope_theta, 2.0 * i / c.rotary_dim()));
      float angle = float(pos) * inv_freq;
      float co = r(std::cos(angle)), si = r(std::sin(angle));
      float a = x[i], b = x[i + half];
      x[i] = r(r(a * co) + r(-b * si));
      x[i + half] = r(r(b * co) + r(a * si));
    }
  }

  std::vector<float> deltanet(int il, const std::vector<float>& a) {
    const LayerWeights& l = m.layers[il];
    const DeltaNetWeights& w = l.linear_attn;
    const std::string p = layer(il) + "linear_attn.";
    const int64_t C = c.conv_dim(), K = c.linear_conv_kernel_dim, Hk = c.linear_num_key_heads;
    const int64_t Hv = c.linear_num_value_heads, dk = c.linear_key_head_dim, dv = c.linear_value_head_dim;
    std::vector<float> u = lin(w.in_proj_qkv, a), z = lin(w.in_proj_z, a);
    std::vector<float> b = lin(w.in_proj_b, a), al = lin(w.in_proj_a, a);
    // HF causal_conv1d_fn: F.conv1d in the dtype, then SiLU on the dtype tensor.
    std::vector<float> cw = param(p + "conv1d.weight"), cv(C);
    std::vector<float>& win = window[il];
    for (int64_t ch = 0; ch < C; ++ch) {
      float acc = 0;
      for (int64_t j = 0; j < K - 1; ++j) acc += cw[ch * K + j] * win[j * C + ch];
      acc += cw[ch * K + K - 1] * u[ch];
      cv[ch] = r(silu(r(acc)));
    }
    win.erase(win.begin(), win.begin() + C);
    win.insert(win.end(), u.begin(), u.end());
    // Kernel: q, k L2-normalised in f32 (not rounded), q scaled.
    for (int64_t h = 0; h < Hk; ++h) {
      l2_norm(&cv[h * dk], dk, 1e-6f);
      for (int64_t i = 0; i < dk; ++i) cv[h * dk + i] *= 1.0f / std::sqrt(float(dk));
      l2_norm(&cv[(Hk + h) * dk], dk, 1e-6f);
    }
    std::vector<float> A_log = param(p + "A_log"), dt_bias = param(p + "dt_bias");
    std::vector<float> gnorm = param(p + "norm.weight"), y(Hv * dv), kv_mem(dv);
    for (int64_t j = 0; j < Hv; ++j) {
      const float* q = &cv[m.key_head_of(int(j)) * dk];
      const float* k = &cv[(Hk + m.key_head_of(int(j))) * dk];
      const float* v = &cv[2 * Hk * dk + j * dv];
      float beta = r(sigmoid(b[j]));  // HF: beta = b.sigmoid()
      // HF: g = -self.A_log.float().exp() * F.softplus(a.float() + self.dt_bias), f32
      float decay = std::exp(-std::exp(A_log[j]) * softplus(al[j] + dt_bias[j]));
      float* Sj = &S[il][j * dk * dv];
      float* o = &y[j * dv];
      std::fill(kv_mem.begin(), kv_mem.end(), 0.0f);
      for (int64_t i = 0; i < dk; ++i)
        for (int64_t e = 0; e < dv; ++e) {
          Sj[i * dv + e] *= decay;
          kv_mem[e] += Sj[i * dv + e] * k[i];
        }
      for (int64_t e = 0; e < dv; ++e) kv_mem[e] = beta * (v[e] - kv_mem[e]);
      for (int64_t i = 0; i < dk; ++i)
        for (int64_t e = 0; e < dv; ++e) {
          Sj[i * dv + e] += k[i] * kv_mem[e];
          o[e] += Sj[i * dv + e] * q[i];
        }
      // HF: core_attn_out.to(initial_dtype), then Qwen3_5RMSNormGated.
      for (int64_t e = 0; e < dv; ++e) o[e] = r(o[e]);
      std::vector<float> ones(dv, 1.0f), normed(dv);
      rms_norm(o, ones.data(), normed.data(), dv, float(c.rms_norm_eps));
      for (int64_t e = 0; e < dv; ++e)
        o[e] = r(r(gnorm[e] * r(normed[e])) * silu(z[j * dv + e]));
    }
    return lin(w.out_proj, y);
  }

  std::vector<float> attention(int il, const std::vector<float>& a) {
    const AttentionWeights& w = m.layers[il].self_attn;
    const std::string p = layer(il) + "self_attn.";
    const int64_t nH = c.num_attention_heads, nKV = c.num_key_value_heads, D = c.head_dim;
    std::vector<float> qg = lin(w.q_proj, a), k = lin(w.k_proj, a), v = lin(w.v_proj, a);
    for (int64_t h = 0; h < nKV; ++h) {
      std::vector<float> kh = norm(&k[h * D], D, p + "k_norm.weight");
      rope(kh.data());
      keys[il].insert(keys[il].end(), kh.begin(), kh.end());
    }
    values[il].insert(values[il].end(), v.begin(), v.end());
    const int64_t n = pos + 1;
    const float scale = 1.0f / std::sqrt(float(D));
    std::vector<float> o(nH * D), sc(n);
    for (int64_t h = 0; h < nH; ++h) {
      std::vector<float> q = norm(&qg[h * 2 * D], D, p + "q_norm.weight");
      rope(q.data());
      const int64_t kvh = h / (nH / nKV);
      // HF eager_attention_forward: matmul(q, kᵀ) * scaling in the dtype; softmax in f32
      // then .to(query.dtype); matmul(probs, v) in the dtype.
      float mx = -INFINITY;
      for (int64_t s = 0; s < n; ++s) {
        float dot = 0;
        for (int64_t i = 0; i < D; ++i) dot += q[i] * keys[il][(s * nKV + kvh) * D + i];
        sc[s] = r(r(dot) * scale);
        mx = std::max(mx, sc[s]);
      }
      double sum = 0;
      for (int64_t s = 0; s < n; ++s) sum += sc[s] = std::exp(sc[s] - mx);
      const float inv = float(1.0 / sum);
      float* oh = &o[h * D];
      for (int64_t s = 0; s < n; ++s) {
        float prob = r(sc[s] * inv);
        for (int64_t i = 0; i < D; ++i) oh[i] += prob * values[il][(s * nKV + kvh) * D + i];
      }
      // HF: attn_output * torch.sigmoid(gate), both in the dtype.
      for (int64_t i = 0; i < D; ++i) oh[i] = r(r(oh[i]) * r(sigmoid(qg[h * 2 * D + D + i])));
    }
    return lin(w.o_proj, o);
  }

  std::vector<float> step(int32_t token) {
    const int64_t H = c.hidden_size;
    std::vector<float> x(H);
    for (int64_t i = 0; i < H; ++i) x[i] = r(m.embed_tokens.w.at(int64_t{token} * H + i));
    for (int il = 0; il < c.num_hidden_layers; ++il) {
      std::vector<float> a = norm(x.data(), H, layer(il) + "input_layernorm.weight");
      std::vector<float> out = m.layers[il].linear ? deltanet(il, a) : attention(il, a);
      for (int64_t i = 0; i < H; ++i) x[i] = r(x[i] + out[i]);  // HF: residual + hidden_states
      a = norm(x.data(), H, layer(il) + "post_attention_layernorm.weight");
      const LayerWeights& l = m.layers[il];
      std::vector<float> g = lin(l.gate_proj, a), up = lin(l.up_proj, a);
      for (size_t i = 0; i < g.size(); ++i) g[i] = r(r(silu(g[i])) * up[i]);  // HF: act_fn(gate) * up
      out = lin(l.down_proj, g);
      for (int64_t i = 0; i < H; ++i) x[i] = r(x[i] + out[i]);
    }
    ++pos;
    return lin(m.lm_head, norm(x.data(), H, "model.norm.weight"));
  }
};

// ---- tests ------------------------------------------------------------------------------

TEST(Rounding, F32ModelGivesTheSameBitsUnderBothPolicies) {
  TempDir dir;
  write_tiny_model(dir / "m", {.layers = "LFLLF"});
  Model m = load_model(dir / "m");
  for (MatmulPath path : {MatmulPath::reference, MatmulPath::fast})
    ASSERT_EQ(run(m, Rounding::llama_cpp, path), run(m, Rounding::transformers, path));
}

TEST(Rounding, LowPrecisionTransformersPolicyDiffersFromLlamaButStaysCloseToF32) {
  TempDir dir;
  write_tiny_model(dir / "m", {.layers = "LFLF", .dtype = DType::bf16});
  std::vector<float> f32 = run(load_model(dir / "m", DType::f32), Rounding::llama_cpp);
  for (DType t : {DType::bf16, DType::f16}) {
    Model m = load_model(dir / "m", t);
    std::vector<float> llama = run(m, Rounding::llama_cpp);
    std::vector<float> hf = run(m, Rounding::transformers);
    EXPECT_GT(nmse(llama, hf), 0.0) << dtype_name(t);
    EXPECT_LT(nmse(f32, hf), 1e-2) << dtype_name(t);
    EXPECT_EQ(hf, run(m, Rounding::transformers)) << dtype_name(t) << ": not deterministic";
    for (float v : hf) ASSERT_TRUE(representable(t, v)) << dtype_name(t) << " logit " << v;
  }
}

TEST(Rounding, TransformersPolicyPrefillEqualsOneTokenDecodeBitForBit) {
  TempDir dir;
  write_tiny_model(dir / "m", {.layers = "LFLLF", .dtype = DType::bf16});
  test_util::expect_prefill_equals_decode(load_model(dir / "m"),
                                          {.threads = 2, .rounding = Rounding::transformers}, kTokens);
}

// Every rounding point at once: the engine against the twin, bit for bit, in bf16 and f16,
// on a layout with more value heads than key heads; then an f32 checkpoint loaded as bf16
// (every parameter rounded at load) with a head_dim whose 1/sqrt is not a power of two (the
// scores round before and after scaling).
TEST(Rounding, EngineEqualsTheTransformersTwinBitForBit) {
  TempDir dir;
  write_tiny_model(dir / "m", {.layers = "LFLF", .linear_num_key_heads = 1,
                               .linear_num_value_heads = 2, .dtype = DType::bf16, .seed = 3});
  write_tiny_model(dir / "f32", {.layers = "FLLF", .head_dim = 24, .seed = 5});
  struct Case { std::string dir; DType t; };
  for (const Case& k : {Case{dir / "m", DType::bf16}, Case{dir / "m", DType::f16},
                        Case{dir / "f32", DType::bf16}}) {
    Model m = load_model(k.dir, k.t);
    std::vector<float> engine = run(m, Rounding::transformers, MatmulPath::reference);
    Twin twin(m, k.dir, k.t);
    const int64_t V = m.config.vocab_size;
    for (size_t p = 0; p < kTokens.size(); ++p) {
      std::vector<float> want = twin.step(kTokens[p]);
      int mismatches = 0;
      float max_diff = 0;
      for (int64_t v = 0; v < V; ++v) {
        float got = engine[p * V + v];
        mismatches += got != want[v];
        max_diff = std::max(max_diff, std::fabs(got - want[v]));
      }
      ASSERT_EQ(mismatches, 0) << k.dir << " as " << dtype_name(k.t) << ", position " << p
                               << ": " << mismatches << " of " << V << " logits differ, max diff "
                               << max_diff;
    }
  }
}

// The residual stream and every traced tensor are held in the dtype under transformers, and
// are not under llama.cpp's policy (so the check can fail).
TEST(Rounding, TracedIntermediatesAreInTheDtypeOnlyUnderTransformers) {
  TempDir dir;
  write_tiny_model(dir / "m", {.layers = "LF", .dtype = DType::bf16});
  Model m = load_model(dir / "m");
  for (Rounding rounding : {Rounding::llama_cpp, Rounding::transformers}) {
    std::map<std::string, int> off_grid;
    run(m, rounding, MatmulPath::fast, 64,
        [&](const char* name, int, int64_t, std::span<const float> v) {
          for (float x : v) off_grid[name] += !representable(DType::bf16, x);
        });
    for (const char* name : {"mixer_out", "attn_residual", "ffn_out", "layer_out", "result_norm"}) {
      if (rounding == Rounding::transformers)
        EXPECT_EQ(off_grid[name], 0) << name;
      else
        EXPECT_GT(off_grid[name], 0) << name << " (llama_cpp keeps it in f32)";
    }
  }
}

// The ops that round inside themselves, against their formulas written out.
TEST(Rounding, GatedNormRoundsAfterNormalisingAfterWeightingAndAfterGating) {
  const int n = 8;
  std::vector<float> x(n), w(n), z(n), y(n), y32(n), ones(n, 1.0f), normed(n);
  for (int i = 0; i < n; ++i) {
    x[i] = round_to(DType::bf16, 0.37f * (i + 1) - 1.1f);
    w[i] = round_to(DType::bf16, 1.0f + 0.013f * i);
    z[i] = round_to(DType::bf16, 0.29f * i - 0.8f);
  }
  gated_rms_norm(x.data(), w.data(), z.data(), y.data(), n, 1e-6f, DType::bf16);
  gated_rms_norm(x.data(), w.data(), z.data(), y32.data(), n, 1e-6f, DType::f32);
  rms_norm(x.data(), ones.data(), normed.data(), n, 1e-6f);
  int differs = 0;
  for (int i = 0; i < n; ++i) {
    auto r = [](float v) { return round_to(DType::bf16, v); };
    EXPECT_EQ(y[i], r(r(r(normed[i]) * w[i]) * silu(z[i]))) << i;
    EXPECT_EQ(y32[i], normed[i] * w[i] * silu(z[i])) << i;
    differs += y[i] != r(y32[i]);
  }
  EXPECT_GT(differs, 0) << "the inner roundings should matter somewhere";
}

TEST(Rounding, RopeRoundsCosSinEachProductAndTheSum) {
  const int rot = 8, half = rot / 2;
  const int64_t pos = 7;
  std::vector<float> x(rot), want(rot);
  for (int i = 0; i < rot; ++i) x[i] = round_to(DType::bf16, 0.731f * (i + 1) - 2.9f);
  auto r = [](float v) { return round_to(DType::bf16, v); };
  for (int i = 0; i < half; ++i) {
    float angle = float(pos) * (1.0f / float(std::pow(10000.0, 2.0 * i / rot)));
    float c = r(std::cos(angle)), s = r(std::sin(angle));
    want[i] = r(r(x[i] * c) - r(x[i + half] * s));
    want[i + half] = r(r(x[i + half] * c) + r(x[i] * s));
  }
  std::vector<float> f32 = x;
  rope_neox(x.data(), rot, pos, 10000.0, DType::bf16);
  rope_neox(f32.data(), rot, pos, 10000.0);
  EXPECT_EQ(x, want);
  int differs = 0;
  for (int i = 0; i < rot; ++i) differs += x[i] != r(f32[i]);
  EXPECT_GT(differs, 0) << "rounding cos/sin and the products should matter somewhere";
}

// Parameters: the Model keeps 1 + w and -exp(A_log) in f32; transformers rounds w and A_log.
// Recovering them is exact for every value stored in the dtype.
TEST(Rounding, ParametersStoredInTheDtypeAreRecoveredExactly) {
  for (DType t : {DType::bf16, DType::f16}) {
    int bad_norm = 0, bad_decay = 0;
    for (uint32_t bits = 0; bits < 0x10000; ++bits) {
      float w = t == DType::bf16 ? bf16_to_f32(uint16_t(bits)) : f16_to_f32(uint16_t(bits));
      if (!std::isfinite(w)) continue;
      float multiplier = 1.0f + w;
      bad_norm += norm_multiplier_in(t, multiplier) != multiplier;
      float a = -std::exp(w);
      if (std::isfinite(a) && a != 0.0f) bad_decay += decay_rate_in(t, a) != a;
    }
    EXPECT_EQ(bad_norm, 0) << dtype_name(t);
    EXPECT_EQ(bad_decay, 0) << dtype_name(t);
  }
  // An f32 A_log off the grid: rounded as transformers does on load.
  const float A_log = 0.123456789f;
  EXPECT_EQ(decay_rate_in(DType::bf16, -std::exp(A_log)), -std::exp(round_to(DType::bf16, A_log)));
  EXPECT_EQ(norm_multiplier_in(DType::bf16, 1.0f + 0.0123456f), 1.0f + round_to(DType::bf16, 0.0123456f));
}

TEST(Rounding, ForwardCommandTakesTheRoundingOption) {
  TempDir dir;
  const std::string m = dir / "m";
  ASSERT_EQ(test_util::qgpu("tiny-model --out " + m + " --layers LF --dtype bf16").status, 0);
  auto llama = test_util::qgpu("forward " + m + " --tokens 1,2,3 --json");
  auto hf = test_util::qgpu("forward " + m + " --tokens 1,2,3 --json --rounding transformers");
  ASSERT_EQ(llama.status, 0) << llama.err;
  ASSERT_EQ(hf.status, 0) << hf.err;
  EXPECT_EQ(llama.out, test_util::qgpu("forward " + m + " --tokens 1,2,3 --json --rounding llama").out);
  EXPECT_NE(llama.out, hf.out);
  auto bad = test_util::qgpu("forward " + m + " --tokens 1 --rounding torch");
  EXPECT_NE(bad.status, 0);
  EXPECT_EQ(bad.err, "qgpu: error: --rounding torch: expected llama or transformers\n");
}

}  // namespace
}  // namespace qgpu::engine
