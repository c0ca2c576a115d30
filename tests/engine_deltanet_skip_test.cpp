// skip_zero_rows in the DeltaNet recurrence, on a tiny model whose heads go idle token by
// token as the compiled machine's do: with decay exactly 1, a row of S whose key entry is
// zero keeps its bits and a zero query entry adds nothing to the read, so leaving those
// out must give the reference's logits and state bit for bit, in every dtype and both
// rounding policies, also from states holding -0 or an infinity (where the reference does
// change S, and the skip must not be taken). The recurrence alone is checked on values the
// model rarely makes.
//
// The model: residual dims 0..9 carry five gates through every layer unchanged (no mixer
// or MLP writes them); gate g is bit g of the token id (gate_open) and zeroes its two dims
// of the token's embedding when clear. Key head h's q rows read only gate 2h's dims, its k
// rows only gate 2h+1's, and every fourth q and k row is zero (keys with zero entries).
// Key head 0's q and k channels have no conv taps but the current one, so they are zero
// exactly at the tokens whose bit is clear; key head 1's keep all four taps, so they are
// zero after four clear tokens in a row. Value heads 0 and 2 have A_log = -30 (decay
// exactly 1, as in the compiled machine); value head 1 keeps a decay below 1, so its zero
// keys still change S; value head 3's decay is exactly 1 where gate 4 is open and exactly
// 0 where it is closed (S becomes ±0, so -0 wherever S was negative).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <random>

#include <fmt/format.h>

#include "engine/forward.h"
#include "engine/forward_internal.h"
#include "engine/tiny_model.h"
#include "test_util.h"

namespace qgpu::engine {
namespace {

using test_util::TempDir;

constexpr int64_t kGateDims = 10;  // residual dims 0..9: gate g owns dims 2g and 2g + 1
// Gate g is bit g of a token id: 0 q of key head 0, 1 k of key head 0, 2 q of key head 1,
// 3 k of key head 1, 4 decay 1 (else 0) of value head 3.
bool gate_open(int32_t token, int g) { return (token >> g) & 1; }

// Low nibbles: every gate open, all closed, reads without writes (5), writes without reads
// (a), one key head at a time (3, c), five with key head 1's k gate closed (its conv
// window empties), then single gates. Gate 4 (0x10) alternates; 0x81 is the first token
// of key head 1 with a zero key and decay 0 (value head 3's S becomes ±0), 0x92 the next,
// with decay 1.
const std::vector<int32_t> kPrompt = {0x10, 0x1f, 0x25, 0x3a, 0x43, 0x5c, 0x60,
                                      0x70, 0x80, 0x81, 0x92, 0xaf, 0xb1, 0xc2};
const std::vector<int32_t> kDecode = {0xd4, 0xe8, 0xf0};

// Replaces w by a copy whose element (row o, column i) is f(o, i, value).
void edit(Model& m, Linear& w, const std::function<float(int64_t, int64_t, float)>& f) {
  std::vector<float> v = to_f32(w.w);
  for (int64_t o = 0; o < w.out(); ++o)
    for (int64_t i = 0; i < w.in(); ++i) v[o * w.in() + i] = f(o, i, v[o * w.in() + i]);
  m.owned.push_back(make_tensor(w.w.name, w.w.dtype, w.w.shape, v));
  w.w = m.owned.back().view();
}

// The embedding (and the tied head) with each token's closed gates zeroed; gate 4's dims
// are 1 where open (a positive input to in_proj_a).
void gate_embedding(Model& m) {
  bool tied = m.lm_head.w.data == m.embed_tokens.w.data;
  Linear e = m.embed_tokens;
  edit(m, e, [](int64_t tok, int64_t i, float x) {
    if (i >= kGateDims) return x;
    bool open = gate_open(static_cast<int32_t>(tok), static_cast<int>(i / 2));
    return open ? (i >= 8 ? 1.0f : x) : 0.0f;
  });
  m.embed_tokens = e;
  if (tied) m.lm_head = e;
}

// q and k rows of in_proj_qkv read only their gate's dims; every fourth is zero.
void gate_queries_and_keys(Model& m, Linear& qkv) {
  const int64_t dk = m.config.linear_key_head_dim, key_dim = m.config.key_dim();
  edit(m, qkv, [&](int64_t o, int64_t i, float x) {
    if (o >= 2 * key_dim) return x;  // v
    bool is_k = o >= key_dim;
    int64_t ch = o % key_dim, h = ch / dk;
    int64_t g = 2 * h + is_k;
    return ch % dk % 4 != 3 && (i == 2 * g || i == 2 * g + 1) ? x : 0.0f;
  });
}

void make_gated(Model& m) {
  const Config& c = m.config;
  const int64_t dk = c.linear_key_head_dim, K = c.linear_conv_kernel_dim;
  gate_embedding(m);
  auto keep_gate_dims = [](int64_t o, int64_t, float x) { return o < kGateDims ? 0.0f : x; };
  for (LayerWeights& l : m.layers) {
    edit(m, l.down_proj, keep_gate_dims);
    if (!l.linear) {
      edit(m, l.self_attn.o_proj, keep_gate_dims);
      continue;
    }
    DeltaNetWeights& d = l.linear_attn;
    edit(m, d.out_proj, keep_gate_dims);
    gate_queries_and_keys(m, d.in_proj_qkv);
    for (int64_t ch = 0; ch < c.conv_dim(); ++ch) {
      bool head0 = ch < dk || (ch >= c.key_dim() && ch < c.key_dim() + dk);
      if (head0) std::fill_n(&d.conv1d[ch * K], K - 1, 0.0f);  // the current tap only
    }
    for (int j : {0, 2}) d.a[j] = -std::exp(-30.0f);  // decay exactly 1
    // Value head 3: α = -1000 (a₈ + a₉), softplus(α + dt_bias) = 0 and decay 1 when gate
    // 4 is open; softplus(dt_bias) times a = -e^23 underflows exp to 0 when closed.
    edit(m, d.in_proj_a, [](int64_t o, int64_t i, float x) {
      return o != 3 ? x : i >= 8 && i < 10 ? -1000.0f : 0.0f;
    });
    d.a[3] = -std::exp(23.0f);
  }
}

Model gated_model(const TempDir& dir, DType t) {
  Model m = load_model(dir / "m", t);
  make_gated(m);
  return m;
}

struct Outcome {
  std::vector<float> logits;  // the prefill's at every position, then each decode's
  State state;
  std::vector<float> trail;   // run_tokenwise: every layer's S after each token
};

// kPrompt as one prefill, then kDecode one token at a time.
Outcome run(const Model& m, RuntimeOptions o, State start) {
  Runtime rt(m, o);
  Outcome r{{}, std::move(start), {}};
  rt.forward(r.state, kPrompt, r.logits, /*all_logits=*/true);
  std::vector<float> step;
  for (int32_t tok : kDecode) {
    rt.forward(r.state, std::span<const int32_t>(&tok, 1), step);
    r.logits.insert(r.logits.end(), step.begin(), step.end());
  }
  return r;
}

// Every token of kPrompt and kDecode decoded alone, S kept after each: a difference in S
// that later tokens would overwrite (a -0 the reference turned into +0) still shows. With
// `closed`, the tokens whose gate 4 is closed run through a Runtime with those options.
Outcome run_tokenwise(const Model& m, RuntimeOptions o, State start,
                      std::optional<RuntimeOptions> closed = std::nullopt) {
  Runtime rt(m, o), other(m, closed.value_or(o));
  Outcome r{{}, std::move(start), {}};
  std::vector<int32_t> tokens = kPrompt;
  tokens.insert(tokens.end(), kDecode.begin(), kDecode.end());
  std::vector<float> step;
  for (int32_t tok : tokens) {
    (gate_open(tok, 4) ? rt : other).forward(r.state, std::span<const int32_t>(&tok, 1), step);
    r.logits.insert(r.logits.end(), step.begin(), step.end());
    for (const LayerState& l : r.state.layers) r.trail.insert(r.trail.end(), l.recurrent.begin(), l.recurrent.end());
  }
  return r;
}

void expect_same_bits(const std::vector<float>& want, const std::vector<float>& got, const std::string& what) {
  test_util::expect_same_bits(want, got, what, "skipping");
}

void expect_same_run(const Outcome& want, const Outcome& got, const std::string& what) {
  expect_same_bits(want.logits, got.logits, what + " logits");
  expect_same_bits(want.trail, got.trail, what + " S after each token");
  for (size_t il = 0; il < want.state.layers.size(); ++il) {
    const LayerState &a = want.state.layers[il], &b = got.state.layers[il];
    std::string layer = what + " layer " + std::to_string(il);
    expect_same_bits(a.conv, b.conv, layer + " conv");
    expect_same_bits(a.recurrent, b.recurrent, layer + " recurrent");
    expect_same_bits(a.keys, b.keys, layer + " keys");
    expect_same_bits(a.values, b.values, layer + " values");
  }
}

// A fresh state whose every S is random with every third entry -0: at a zero key the
// reference's S + k δᵀ turns -0 into +0 wherever k δ is +0, so the skip must not be taken.
State negative_zero_state(const Config& c) {
  State s = make_state(c);
  std::mt19937 rng(7);
  std::normal_distribution<float> dist(0.0f, 0.5f);
  for (LayerState& l : s.layers)
    for (size_t i = 0; i < l.recurrent.size(); ++i) l.recurrent[i] = i % 3 == 0 ? -0.0f : dist(rng);
  return s;
}

// A fresh state with one +inf in value head 0's S (decay 1): the reference's Sᵀk is then
// NaN in that column even for a zero key, and the NaN spreads over S.
State infinity_state(const Config& c) {
  State s = make_state(c);
  s.layers[0].recurrent[5 * c.linear_value_head_dim + 7] = std::numeric_limits<float>::infinity();
  return s;
}

std::string name(DType t, Rounding r, MatmulPath p) {
  return fmt::format("{} {} {}", dtype_name(t), r == Rounding::llama_cpp ? "llama.cpp" : "transformers",
                     p == MatmulPath::reference ? "reference" : "fast");
}

// One head's recurrence on its own, with the values the model rarely makes: S holding -0,
// infinities, NaN and huge values (a written row can overflow), k and q with zero entries
// of both signs, v overflowing, β at 0 and 1, decay at 1, below 1 and 0.
struct Head {
  int64_t dk, dv;
  std::vector<float> S, k, q, v;
  float beta, decay;
};

float pick(std::mt19937& rng, std::initializer_list<std::pair<int, float>> odd_values, float normal) {
  int roll = std::uniform_int_distribution<int>(0, 99)(rng), sum = 0;
  for (auto [percent, value] : odd_values)
    if (roll < (sum += percent)) return value;
  return normal;
}

void fill_head(Head& h, std::mt19937& rng, bool odd_state) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::normal_distribution<float> n(0.0f, 1.0f);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (float& x : h.S)
    x = odd_state ? pick(rng, {{10, -0.0f}, {10, 0.0f}, {3, inf}, {2, nan}, {10, 3e38f}}, n(rng))
                  : pick(rng, {{20, 0.0f}, {10, -3e38f}}, n(rng));
  bool k_zero = u(rng) < 0.3f, q_zero = u(rng) < 0.3f;
  for (float& x : h.k) x = pick(rng, {{40, 0.0f}, {40, -0.0f}}, k_zero ? 0.0f : n(rng));
  for (float& x : h.q) x = pick(rng, {{40, 0.0f}, {40, -0.0f}}, q_zero ? -0.0f : n(rng));
  for (float& x : h.v) x = pick(rng, {{2, inf}, {5, 3e38f}, {5, -0.0f}}, n(rng));
  h.beta = pick(rng, {{10, 0.0f}, {10, 1.0f}}, u(rng));
  h.decay = pick(rng, {{60, 1.0f}, {5, 0.0f}}, u(rng));
}

TEST(EngineDeltaNetSkip, TheSkippingRuleIsDeltaRuleBitForBit) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 3000; ++trial) {
    Head h{.dk = 1 + trial % 9, .dv = 1 + trial % 7};
    h.S.resize(h.dk * h.dv), h.k.resize(h.dk), h.q.resize(h.dk), h.v.resize(h.dv);
    fill_head(h, rng, trial % 4 == 0);
    std::vector<float> S = h.S, o_ref(h.dv), o(h.dv), m(h.dv);
    uint8_t known_plain = 0;  // kept across the steps, as a LayerState keeps it
    for (int step = 0; step < 4; ++step) {  // the same S through a few tokens
      delta_rule(h.S.data(), h.k.data(), h.q.data(), h.v.data(), h.beta, h.decay, h.dk, h.dv, o_ref.data(), m.data());
      delta_rule_skipping(S.data(), known_plain, h.k.data(), h.q.data(), h.v.data(), h.beta, h.decay, h.dk, h.dv,
                          o.data(), m.data());
      std::string what = fmt::format("trial {} step {} (dk {}, dv {}, beta {}, decay {})", trial, step, h.dk, h.dv, h.beta, h.decay);
      expect_same_bits(h.S, S, what + " S");
      expect_same_bits(o_ref, o, what + " o");
      if (testing::Test::HasFatalFailure()) return;
      std::vector<float> keep = h.S;
      fill_head(h, rng, false);
      h.S = keep;
    }
  }
}

TEST(EngineDeltaNetSkip, TheModelHasIdleHeads) {
  // What the other tests rely on, seen in the reference's own state: decoding one token at
  // a time, value head 0 of layer 0 (key head 0, decay 1) keeps S bit for bit exactly at
  // the tokens whose key gate is closed, and value head 1 (decay below 1) never does.
  TempDir dir;
  write_tiny_model(dir / "m", {.layers = "LLF"});
  Model m = gated_model(dir, DType::f32);
  Runtime rt(m, {.matmul = MatmulPath::reference});
  State s = make_state(m.config);
  std::vector<float> logits;
  int idle = 0;
  for (int32_t tok : kPrompt) {
    std::vector<float> h0(s.recurrent(m.config, 0, 0).begin(), s.recurrent(m.config, 0, 0).end());
    std::vector<float> h1(s.recurrent(m.config, 0, 1).begin(), s.recurrent(m.config, 0, 1).end());
    rt.forward(s, std::span<const int32_t>(&tok, 1), logits);
    auto same = [](const std::vector<float>& a, std::span<const float> b) {
      return std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
    };
    EXPECT_EQ(same(h0, s.recurrent(m.config, 0, 0)), !gate_open(tok, 1)) << "token " << tok;
    if (tok != kPrompt[0]) {  // from S = 0 a decay changes nothing
      EXPECT_FALSE(same(h1, s.recurrent(m.config, 0, 1))) << "token " << tok;
    }
    idle += !gate_open(tok, 1);
  }
  EXPECT_GE(idle, 5);
}

TEST(EngineDeltaNetSkip, SkippingIdleHeadsEqualsReferenceBitForBit) {
  TempDir dir;
  write_tiny_model(dir / "m", {.layers = "LLFL"});
  for (DType t : {DType::f32, DType::bf16, DType::f16}) {
    Model m = gated_model(dir, t);
    for (Rounding r : {Rounding::llama_cpp, Rounding::transformers})
      for (MatmulPath p : {MatmulPath::reference, MatmulPath::fast}) {
        RuntimeOptions o{.threads = 1, .matmul = p, .rounding = r};
        RuntimeOptions skip = o;
        skip.skip_zero_rows = true;
        Outcome ref = run(m, o, make_state(m.config));
        expect_same_run(ref, run(m, skip, make_state(m.config)), name(t, r, p));
        skip.max_batch = 5;
        expect_same_run(ref, run(m, skip, make_state(m.config)), name(t, r, p) + " batches of 5");
        expect_same_run(run_tokenwise(m, o, negative_zero_state(m.config)),
                        run_tokenwise(m, skip, negative_zero_state(m.config)), name(t, r, p) + " from -0");
      }
  }
}

TEST(EngineDeltaNetSkip, AStateAdvancedWithoutTheSkipIsReadAgain) {
  // Gate 4's tokens with skip_zero_rows, the others (decay 0 on value head 3) without: at
  // 0x81 the Runtime without the skip puts -0 into value head 3's S, so what the other
  // knew of that S (no -0) must not be trusted at 0x92.
  TempDir dir;
  write_tiny_model(dir / "m", {.layers = "LLF"});
  Model m = gated_model(dir, DType::f32);
  RuntimeOptions o{.threads = 1, .matmul = MatmulPath::reference};
  RuntimeOptions skip = o;
  skip.skip_zero_rows = true;
  expect_same_run(run_tokenwise(m, o, make_state(m.config)), run_tokenwise(m, skip, make_state(m.config), o),
                  "skip on gate 4 only");
}

TEST(EngineDeltaNetSkip, InfinitiesAreUpdatedAsTheReferenceDoes) {
  // An infinite S, or an infinite v at a zero key (δ = β v is then not finite and k δᵀ is
  // NaN), and the reference writes NaN into S. NaN activations follow; only the reference
  // matmul is defined on them (matmul_fast_rows and matmul_csr assume finite activations).
  TempDir dir;
  write_tiny_model(dir / "m", {.layers = "LLF"});
  Model m = gated_model(dir, DType::f32);
  RuntimeOptions o{.threads = 1, .matmul = MatmulPath::reference};
  RuntimeOptions skip = o;
  skip.skip_zero_rows = true;
  expect_same_run(run_tokenwise(m, o, infinity_state(m.config)),
                  run_tokenwise(m, skip, infinity_state(m.config)), "from +inf");
  // Value head 0's v channels in layer 0 with a conv weight of 3e38: its v overflows.
  const int64_t v0 = 2 * m.config.key_dim(), K = m.config.linear_conv_kernel_dim;
  for (int64_t ch = v0; ch < v0 + m.config.linear_value_head_dim; ++ch)
    m.layers[0].linear_attn.conv1d[ch * K + K - 1] = 3e38f;
  expect_same_run(run_tokenwise(m, o, make_state(m.config)), run_tokenwise(m, skip, make_state(m.config)),
                  "infinite v");
}

}  // namespace
}  // namespace qgpu::engine
