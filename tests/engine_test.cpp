// The forward pass on tiny random checkpoints: prefill equals one-token decode bit for bit,
// the fast path equals the reference within rounding, every checkpoint layout of the same
// weights (plain, multimodal wrapper, sharded, GGUF) gives the same logits, and the
// loaders name what is wrong. Parity with an independent engine is llamacpp_parity_test.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <random>
#include <fstream>

#include "base/error.h"
#include "engine/forward.h"
#include "engine/forward_internal.h"
#include "engine/generate.h"
#include "engine/tiny_model.h"
#include "engine_checks.h"
#include "test_util.h"

namespace qgpu::engine {
namespace {

using test_util::TempDir;

std::vector<float> run(const Model& m, const std::vector<int32_t>& tokens, MatmulPath path,
                       int64_t max_batch = 64) {
  Runtime rt(m, {.threads = 2, .matmul = path, .max_batch = max_batch});
  State s = make_state(m.config);
  std::vector<float> logits;
  rt.forward(s, tokens, logits, true);
  return logits;
}

const std::vector<int32_t> kTokens = {5, 17, 300, 42, 42, 7, 250, 1, 99, 370, 3, 12, 60};

TEST(Engine, PrefillEqualsOneTokenDecodeBitForBit) {
  TempDir dir;
  write_tiny_model(dir / "m", {.layers = "LFLLF"});
  test_util::expect_prefill_equals_decode(load_model(dir / "m"), {.threads = 2}, kTokens);
}

// attend() sums eight positions' dot products and eight output elements side by side; each
// sum keeps its order, so the bits are those of one position and one element at a time
// (this reference: the loop it replaced), in every activation dtype, at every length.
void attend_one_at_a_time(const float* q, const std::vector<float>& keys, const std::vector<float>& values,
                          int64_t n, int64_t kv_head, int64_t nKV, int64_t D, float* scores, float* o, DType act) {
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  float max_score = -INFINITY;
  for (int64_t p = 0; p < n; ++p) {
    const float* k = &keys[(p * nKV + kv_head) * D];
    float dot = 0;
    for (int64_t i = 0; i < D; ++i) dot += q[i] * k[i];
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
    const float w = round_act(act, scores[p] * inv);
    for (int64_t i = 0; i < D; ++i) o[i] += w * v[i];
  }
  round_act(act, o, D);
}

TEST(Engine, AttentionIsOnePositionAtATimeBitForBit) {
  std::mt19937 rng(11);
  std::normal_distribution<float> g(0.0f, 1.0f);
  const int64_t nKV = 2;
  for (int64_t D : {256, 13}) {
    for (int64_t n : {1, 7, 8, 9, 16, 17, 32, 301}) {
      std::vector<float> q(D), keys(n * nKV * D), values(n * nKV * D);
      for (float& x : q) x = 3 * g(rng);
      for (float& x : keys) x = g(rng);
      for (float& x : values) x = g(rng);
      values[5] = -0.0f;
      for (DType act : {DType::f32, DType::bf16, DType::f16}) {
        std::vector<float> s1(n), s2(n), o1(D), o2(D);
        LayerState st;  // the cache as the attention layer fills it
        for (int64_t p = 0; p < n; ++p) append_key(st, keys.data() + p * nKV * D, p, nKV, D);
        st.values = values;
        attend(q.data(), st, n, 1, nKV, D, s1.data(), o1.data(), act);
        attend_one_at_a_time(q.data(), keys, values, n, 1, nKV, D, s2.data(), o2.data(), act);
        for (int64_t i = 0; i < D; ++i)
          ASSERT_EQ(std::bit_cast<uint32_t>(o1[i]), std::bit_cast<uint32_t>(o2[i]))
              << dtype_name(act) << " D " << D << " n " << n << " element " << i << ": " << o1[i] << " vs " << o2[i];
      }
    }
  }
}

// A state whose keys came from elsewhere (host::read_llama_state sets keys and values only)
// goes on as the one forward filled: the attention layer rebuilds the blocked copy of the
// keys it reads the scores from.
TEST(Engine, AStateWhoseKeysCameFromElsewhereGoesOnTheSame) {
  TempDir dir;
  write_tiny_model(dir / "m", {.layers = "LFLLF"});
  const Model m = load_model(dir / "m");
  Runtime rt(m, {.threads = 1});
  std::vector<int32_t> prompt = kTokens;
  prompt.insert(prompt.end(), kTokens.begin(), kTokens.end());  // 26 positions: a block of 16 and part of one
  State filled = make_state(m.config);
  std::vector<float> a, b;
  rt.forward(filled, prompt, a);
  State read = filled;
  for (LayerState& l : read.layers) l.keys_blocked.clear(), l.keys_blocked_n = 0;
  for (int32_t t : {7, 8, 9, 10, 11, 12, 13}) {  // on past position 32: a new block
    rt.forward(filled, std::span<const int32_t>(&t, 1), a);
    rt.forward(read, std::span<const int32_t>(&t, 1), b);
    ASSERT_EQ(a.size(), b.size());
    ASSERT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0) << "after token " << t;
  }
  EXPECT_EQ(read.layers[1].keys_blocked, filled.layers[1].keys_blocked);
}

TEST(Engine, FastPathEqualsReferenceInEveryDtype) {
  TempDir dir;
  write_tiny_model(dir / "m", {.layers = "LLF"});
  for (DType t : {DType::f32, DType::bf16, DType::f16}) {
    Model m = load_model(dir / "m", t);
    std::vector<float> ref = run(m, kTokens, MatmulPath::reference);
    std::vector<float> fast = run(m, kTokens, MatmulPath::fast);
    double max_diff = 0, max_abs = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
      max_diff = std::max(max_diff, double(std::fabs(ref[i] - fast[i])));
      max_abs = std::max(max_abs, double(std::fabs(ref[i])));
    }
    // bf16/f16 round activations at every matmul: an order-of-summation change can flip one
    // rounding and propagate, so their bound is looser.
    EXPECT_LE(max_diff / max_abs, t == DType::f32 ? 1e-4 : 2e-2)
        << dtype_name(t) << ": max diff " << max_diff << " of max |logit| " << max_abs;
  }
}

TEST(Engine, LowPrecisionStaysCloseToF32) {
  TempDir dir;
  write_tiny_model(dir / "m", {.layers = "LF"});
  std::vector<float> f32 = run(load_model(dir / "m"), kTokens, MatmulPath::fast);
  for (DType t : {DType::bf16, DType::f16}) {
    std::vector<float> low = run(load_model(dir / "m", t), kTokens, MatmulPath::fast);
    double num = 0, den = 0;
    for (size_t i = 0; i < f32.size(); ++i) {
      num += (f32[i] - low[i]) * (f32[i] - low[i]);
      den += f32[i] * f32[i];
    }
    EXPECT_LT(num / den, t == DType::bf16 ? 1e-3 : 1e-4) << dtype_name(t);
    EXPECT_GT(num / den, 0.0) << dtype_name(t) << " should differ from f32 at all";
  }
}

TEST(Engine, EveryLayoutOfTheSameWeightsGivesTheSameLogits) {
  TempDir dir;
  TinySpec spec{.layers = "LLLF", .linear_num_key_heads = 2, .linear_num_value_heads = 4, .seed = 7};
  write_tiny_model(dir / "plain", spec);
  TinySpec wrapped = spec;
  wrapped.multimodal_wrapper = true;
  write_tiny_model(dir / "wrapped", wrapped);
  TinySpec sharded = spec;
  sharded.max_shard_bytes = 60000;
  write_tiny_model(dir / "sharded", sharded);
  EXPECT_TRUE(std::filesystem::exists(dir / "sharded/model.safetensors.index.json"));
  Model plain = load_model(dir / "plain");
  write_gguf_model(plain, dir / "m.gguf", DType::f32, dir / "plain/tokenizer.json");
  std::vector<float> want = run(plain, kTokens, MatmulPath::fast);
  for (std::string other : {"wrapped", "sharded"}) {
    std::vector<float> got = run(load_model(dir / other), kTokens, MatmulPath::fast);
    ASSERT_EQ(got, want) << other;
  }
  // GGUF keeps value heads in llama.cpp's tiled order, so out_proj sums its columns in
  // another order: equal up to rounding, not bit for bit (when Hv > Hk).
  std::vector<float> got = run(load_model(dir / "m.gguf"), kTokens, MatmulPath::fast);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-4) << "m.gguf at " << i;
}

TEST(Engine, UntiedHeadAndManyValueHeads) {
  TempDir dir;
  write_tiny_model(dir / "m", {.layers = "FLL", .linear_num_key_heads = 1,
                               .linear_num_value_heads = 4, .tie_word_embeddings = false});
  Model m = load_model(dir / "m");
  EXPECT_NE(m.lm_head.w.data, m.embed_tokens.w.data);
  write_gguf_model(m, dir / "m.gguf", DType::f32);
  std::vector<float> a = run(m, kTokens, MatmulPath::fast);
  std::vector<float> b = run(load_model(dir / "m.gguf"), kTokens, MatmulPath::fast);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], 1e-4) << i;
}

TEST(Engine, RecurrentStateIsReadableAndStartsAtZero) {
  TempDir dir;
  write_tiny_model(dir / "m", {.layers = "LF"});
  Model m = load_model(dir / "m");
  State s = make_state(m.config);
  for (float v : s.recurrent(m.config, 0, 3)) ASSERT_EQ(v, 0.0f);
  Runtime rt(m, {.threads = 1});
  std::vector<float> logits;
  rt.forward(s, kTokens, logits);
  double energy = 0;
  for (float v : s.recurrent(m.config, 0, 3)) energy += v * v;
  EXPECT_GT(energy, 0.0);
  EXPECT_EQ(s.recurrent(m.config, 0, 3).size(), size_t(16 * 16));
}

TEST(Engine, AutoThreadsRunsASmallModelOnOneThread) {
  // Far below kSmallModelWork multiply-adds per token: the pool would cost more than it
  // saves. An explicit count is kept. (The compiled machine, dense and sparse: machine_model_test.)
  TempDir dir;
  write_tiny_model(dir / "m", {.layers = "LF"});
  Model m = load_model(dir / "m");
  EXPECT_EQ(Runtime(m).threads(), 1);
  EXPECT_EQ(Runtime(m, {.threads = 3}).threads(), 3);
}

TEST(Engine, GreedyAndSampledGeneration) {
  TempDir dir;
  write_tiny_model(dir / "m", {.layers = "LF"});
  Model m = load_model(dir / "m");
  Runtime rt(m, {.threads = 1});
  auto gen = [&](GenerateOptions o) {
    State s = make_state(m.config);
    return generate(rt, s, kTokens, o);
  };
  std::vector<int32_t> greedy = gen({.max_tokens = 20});
  EXPECT_EQ(greedy.size(), 20u);
  EXPECT_EQ(gen({.max_tokens = 20, .sampling = {.temperature = 1.0f, .top_k = 1}}), greedy);
  auto sampled = gen({.max_tokens = 20, .sampling = {.temperature = 1.5f, .seed = 3}});
  EXPECT_EQ(gen({.max_tokens = 20, .sampling = {.temperature = 1.5f, .seed = 3}}), sampled);
  EXPECT_NE(gen({.max_tokens = 20, .sampling = {.temperature = 1.5f, .seed = 4}}), sampled);
  // A mask that allows two tokens; a stop token ends generation after it is emitted.
  auto masked = gen({.max_tokens = 20, .mask = {LogitMask::Kind::allow, {9, 11}}});
  for (int32_t t : masked) EXPECT_TRUE(t == 9 || t == 11);
  auto stopped = gen({.max_tokens = 20, .stop_tokens = {greedy[3]}});
  auto first = std::find(greedy.begin(), greedy.end(), greedy[3]);
  EXPECT_EQ(stopped, std::vector<int32_t>(greedy.begin(), first + 1));
  int calls = 0;
  auto cut = gen({.max_tokens = 20, .on_token = [&](int32_t, std::span<const float>) { return ++calls < 5; }});
  EXPECT_EQ(cut.size(), 5u);
}

// The model's context (max_position_embeddings) bounds a conversation: a prompt that fills
// it is one error; generation stops at its end, every token it returned fed to the state.
TEST(Engine, GenerationStopsAtTheContextAndALongerPromptIsAnError) {
  TempDir dir;
  write_tiny_model(dir / "m", {.layers = "LF"});
  Model m = load_model(dir / "m");
  m.config.max_position_embeddings = 20;
  Runtime rt(m, {.threads = 1});
  State s = make_state(m.config);
  const std::vector<int32_t> out = generate(rt, s, kTokens, {.max_tokens = 50});
  EXPECT_EQ(out.size(), 20 - kTokens.size());
  EXPECT_EQ(s.n_past, 20);
  try {
    generate(rt, s, std::vector<int32_t>{1}, {});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "the prompt reaches token 21 but the model's context is 20 tokens "
                           "(max_position_embeddings): shorten it or start a new conversation");
  }
}

TEST(Engine, LoaderNamesWhatIsWrong) {
  TempDir dir;
  write_tiny_model(dir / "m", {.layers = "LF"});
  std::string cfg = test_util::read_file(dir / "m/config.json");
  auto expect_error = [&](const std::string& config, const std::string& message) {
    std::ofstream(dir / "m/config.json") << config;
    try {
      load_model(dir / "m");
      ADD_FAILURE() << "expected: " << message;
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), message);
    }
  };
  std::string path = dir / "m/config.json";
  nlohmann::json j = nlohmann::json::parse(cfg);
  j["hidden_size"] = 32;
  const int V = j["vocab_size"].get<int>();
  expect_error(j.dump(), fmt::format("{}: tensor 'model.embed_tokens.weight' has shape [{}, 64], the config needs [{}, 32]",
                                     dir / "m", V, V));
  j = nlohmann::json::parse(cfg);
  j["num_hidden_layers"] = 1;
  j["layer_types"] = {"linear_attention"};
  expect_error(j.dump(), dir / "m" + ": unexpected tensor 'model.layers.1.input_layernorm.weight' (not part of a Qwen3.5 text model with this config)");
  j = nlohmann::json::parse(cfg);
  j["num_hidden_layers"] = 3;
  j["layer_types"] = {"linear_attention", "full_attention", "linear_attention"};
  expect_error(j.dump(), dir / "m" + ": missing tensor 'model.layers.2.input_layernorm.weight' (shape [64])");
  j = nlohmann::json::parse(cfg);
  j["layer_types"] = {"linear_attention", "sliding_attention"};
  expect_error(j.dump(), path + ": layer_types entry \"sliding_attention\" is neither \"linear_attention\" nor \"full_attention\"");
  j = nlohmann::json::parse(cfg);
  j["model_type"] = "llama";
  expect_error(j.dump(), path + ": model_type \"llama\" is not a Qwen3.5 text model (expected qwen3_5_text or qwen3_5)");
  expect_error("{", path + ": not valid JSON");
  // Found by fuzz/config.cpp: a field of the wrong JSON type threw nlohmann's type_error
  // (std::terminate in qgpu) instead of one error naming the key.
  for (const auto& [key, value, message] :
       std::vector<std::tuple<std::string, nlohmann::json, std::string>>{
           {"tie_word_embeddings", 8, "\"tie_word_embeddings\" must be true or false, got 8"},
           {"model_type", 3, "\"model_type\" must be a string, got 3"},
           {"dtype", false, "\"dtype\" must be a string, got false"},
           {"eos_token_id", "x", "\"eos_token_id\" must be a token id or a list of them, got \"x\""},
           {"eos_token_id", {1, 4294967296}, "\"eos_token_id\" must be a token id or a list of them, got [1,4294967296]"}}) {
    j = nlohmann::json::parse(cfg);
    j[key] = value;
    expect_error(j.dump(), path + ": " + message);
  }
  std::ofstream(dir / "m/config.json") << cfg;
  EXPECT_EQ(load_model(dir / "m").config.num_hidden_layers, 2);
}

}  // namespace
}  // namespace qgpu::engine
