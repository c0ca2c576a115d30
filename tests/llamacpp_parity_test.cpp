// Parity with llama.cpp (node-llama-cpp 3.21.1, its prebuilt CPU build): tiny random
// checkpoints exported to GGUF by us, evaluated there and here. Per position the
// log-softmax must agree (NMSE <= 1e-6 in f32; bf16 rounds matmul inputs in both engines),
// and 64 greedy steps must give the same tokens. Needs `npm ci --prefix tests/llamacpp`
// (.ci/run does it); without it the test is skipped locally and fails under CI=true.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "engine/forward.h"
#include "engine/generate.h"
#include "engine/tiny_model.h"
#include "test_util.h"

namespace qgpu::engine {
namespace {

namespace fs = std::filesystem;
using test_util::TempDir;

std::string harness() { return std::string(QGPU_SOURCE_DIR) + "/tests/llamacpp"; }

bool harness_installed() {
  return fs::exists(harness() + "/node_modules/node-llama-cpp/package.json") &&
         std::system("node --version >/dev/null 2>&1") == 0;
}

std::string join(const std::vector<int32_t>& v) {
  std::string s;
  for (int32_t t : v) s += (s.empty() ? "" : ",") + std::to_string(t);
  return s;
}

nlohmann::json run_llama(const std::string& gguf, const std::vector<int32_t>& tokens, int generate) {
  test_util::TempFile out;
  std::string cmd = fmt::format("node {}/llama_run.mjs --model '{}' --tokens {} --generate {} --threads 1 > '{}'",
                                harness(), gguf, join(tokens), generate, out.path.string());
  int rc = std::system(cmd.c_str());
  EXPECT_EQ(rc, 0) << cmd;
  return nlohmann::json::parse(test_util::read_file(out.path));
}

std::vector<double> log_softmax(const float* x, int64_t n) {
  double mx = -INFINITY, sum = 0;
  for (int64_t i = 0; i < n; ++i) mx = std::max(mx, double(x[i]));
  for (int64_t i = 0; i < n; ++i) sum += std::exp(x[i] - mx);
  std::vector<double> out(n);
  for (int64_t i = 0; i < n; ++i) out[i] = x[i] - mx - std::log(sum);
  return out;
}

struct ParityCase {
  std::string name;
  TinySpec spec;
  DType dtype;
};

void check_parity(const ParityCase& c) {
  TempDir dir;
  write_tiny_model(dir / "m", c.spec);
  Model hf = load_model(dir / "m", c.dtype);
  write_gguf_model(hf, dir / "m.gguf", c.dtype, dir / "m/tokenizer.json");
  std::vector<int32_t> prompt;
  for (int i = 0; i < 24; ++i) prompt.push_back((i * 37 + 11) % 380);
  nlohmann::json llama = run_llama(dir / "m.gguf", prompt, 64);

  Runtime rt(hf, {.threads = 2});
  State s = make_state(hf.config);
  std::vector<float> logits;
  rt.forward(s, prompt, logits, true);
  const int64_t V = hf.config.vocab_size;
  double num = 0, den = 0;
  for (size_t t = 0; t < prompt.size(); ++t) {
    std::vector<double> ours = log_softmax(&logits[t * V], V);
    const nlohmann::json& theirs = llama["logprobs"][t];
    ASSERT_EQ(theirs.size(), size_t(V)) << c.name;
    for (int64_t v = 0; v < V; ++v) {
      if (theirs[v].is_null()) continue;  // float32 underflow in llama.cpp's probabilities
      double d = ours[v] - theirs[v].get<double>();
      num += d * d;
      den += ours[v] * ours[v];
    }
  }
  double nmse = num / den;
  EXPECT_LE(nmse, c.dtype == DType::f32 ? 1e-6 : 1e-4) << c.name << ": NMSE " << nmse;
  std::cout << "[ parity ] " << c.name << ": log-softmax NMSE " << nmse << "\n";

  std::vector<int32_t> theirs = llama["generated"].get<std::vector<int32_t>>();
  State g = make_state(hf.config);
  std::vector<int32_t> ours = generate(rt, g, prompt, {.max_tokens = 64});
  if (c.dtype == DType::f32) {
    EXPECT_EQ(ours, theirs) << c.name << ": greedy tokens differ";
    return;
  }
  // bf16: both engines round every matmul input to bf16, so a different summation order can
  // flip one rounding and, at a near tie, the argmax; after that the sequences diverge.
  // Teacher-forced on llama.cpp's tokens, our argmax must equal theirs at every step or be
  // within one bf16 ulp of the larger logit (llama.cpp's CPU kernels sum in an order that
  // depends on the instruction set: on an AVX2-only machine one step's flip is 0.0167 at
  // logits of 6.07, where a bf16 ulp is 0.031; on AVX-512 machines it stayed under 0.01).
  std::vector<int32_t> seq = prompt;
  seq.insert(seq.end(), theirs.begin(), theirs.end() - 1);
  State f = make_state(hf.config);
  rt.forward(f, seq, logits, true);
  int flips = 0;
  for (size_t i = 0; i < theirs.size(); ++i) {
    const float* row = &logits[(prompt.size() - 1 + i) * V];
    int32_t best = static_cast<int32_t>(std::max_element(row, row + V) - row);
    if (best == theirs[i]) continue;
    ++flips;
    const float ulp = std::ldexp(1.0f, std::ilogb(std::fabs(row[best])) - 7);
    EXPECT_LT(row[best] - row[theirs[i]], ulp)
        << c.name << ": step " << i << " ours " << best << " (" << row[best] << ") theirs " << theirs[i] << " ("
        << row[theirs[i]] << ")";
  }
  std::cout << "[ parity ] " << c.name << ": greedy " << (ours == theirs ? "identical" : "diverged")
            << " over 64 steps; teacher-forced near-tie flips: " << flips << "\n";
  EXPECT_LE(flips, 2) << c.name;
}

void PrintTo(const ParityCase& c, std::ostream* os) { *os << c.name; }

class LlamaCppParity : public ::testing::TestWithParam<ParityCase> {};

TEST_P(LlamaCppParity, LogitsAndGreedyTokensAgree) {
  if (!harness_installed()) {
    if (std::getenv("CI")) FAIL() << "node-llama-cpp missing: run npm ci --prefix tests/llamacpp";
    GTEST_SKIP() << "node-llama-cpp not installed (npm ci --prefix tests/llamacpp)";
  }
  check_parity(GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    Tiny, LlamaCppParity,
    ::testing::Values(
        ParityCase{"LLLF_f32", {.layers = "LLLF"}, DType::f32},
        ParityCase{"LLLF_bf16", {.layers = "LLLF"}, DType::bf16},
        ParityCase{"FLFL_untied_f32", {.layers = "FLFL", .tie_word_embeddings = false, .seed = 2}, DType::f32},
        ParityCase{"LFL_v4k1_f32", {.layers = "LFL", .linear_num_key_heads = 1, .linear_num_value_heads = 4, .seed = 3}, DType::f32},
        ParityCase{"LLFLLF_v4k2_bf16", {.layers = "LLFLLF", .seed = 4}, DType::bf16},
        ParityCase{"realdims_f32", {.hidden_size = 128, .layers = "LF", .num_attention_heads = 2, .num_key_value_heads = 1,
                                    .head_dim = 256, .linear_num_key_heads = 1, .linear_num_value_heads = 1,
                                    .linear_key_head_dim = 128, .linear_value_head_dim = 128, .seed = 5}, DType::f32}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace qgpu::engine
