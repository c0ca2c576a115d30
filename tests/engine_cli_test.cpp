// The engine's subcommands end to end: tiny-model -> forward/generate/convert, their JSON
// shapes, and one clear error per bad input.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "engine/tokenizer.h"
#include "test_util.h"

namespace qgpu {
namespace {

using test_util::qgpu;
using test_util::TempDir;

TEST(EngineCli, TinyModelForwardGenerateConvert) {
  TempDir dir;
  std::string m = dir / "m";
  ASSERT_EQ(qgpu("tiny-model --out " + m + " --layers LF --seed 3").status, 0);
  auto fwd = qgpu("forward " + m + " --tokens 1,2,3 --json");
  ASSERT_EQ(fwd.status, 0) << fwd.err;
  auto j = nlohmann::json::parse(fwd.out);
  ASSERT_EQ(j["logits"].size(), 3u);
  const size_t V = j["logits"][0].size();
  EXPECT_EQ(V % 64, 0u);

  // The GGUF export gives the same logits (f32, up to summation order).
  ASSERT_EQ(qgpu("convert " + m + " --out " + (dir / "m.gguf") + " --dtype f32").status, 0);
  auto g = nlohmann::json::parse(qgpu("forward " + (dir / "m.gguf") + " --tokens 1,2,3 --json").out);
  for (size_t t = 0; t < 3; ++t)
    for (size_t v = 0; v < V; ++v)
      ASSERT_NEAR(g["logits"][t][v].get<double>(), j["logits"][t][v].get<double>(), 1e-4);

  auto gen = qgpu("generate " + m + " --prompt 'the heat' --chat --max-tokens 5 --ignore-eos --json");
  ASSERT_EQ(gen.status, 0) << gen.err;
  auto r = nlohmann::json::parse(gen.out);
  EXPECT_EQ(r["tokens"].size(), 5u);
  EXPECT_TRUE(r.contains("text"));
  EXPECT_GT(r["prompt_tokens"].size(), 5u);  // the chat template wrapped the prompt

  // Sampling never says a padding id (the vocabulary is padded past the tokenizer's 465):
  // near-uniform at temperature 100, 200 tokens would pick about 20 of them otherwise.
  auto hot = qgpu("generate " + m + " --prompt 'the heat' --max-tokens 200 --ignore-eos --temperature 100 --seed 1 --json");
  ASSERT_EQ(hot.status, 0) << hot.err;
  const int32_t spelled = engine::load_tokenizer(m + "/tokenizer.json").vocab_size();
  ASSERT_LT(spelled, static_cast<int32_t>(V));
  const nlohmann::json said = nlohmann::json::parse(hot.out);  // named: a loop over a temporary's member dangles
  for (const auto& t : said["tokens"]) EXPECT_LT(t.get<int32_t>(), spelled);

  // Greedy from ids is the argmax of forward's last row.
  auto top = qgpu("forward " + m + " --tokens 1,2,3 --top 1");
  ASSERT_EQ(top.status, 0);
  auto one = nlohmann::json::parse(qgpu("generate " + m + " --tokens 1,2,3 --max-tokens 1 --json").out);
  EXPECT_NE(top.out.find("pos 2: " + std::to_string(one["tokens"][0].get<int>()) + "="), std::string::npos)
      << top.out;
}

TEST(EngineCli, OneClearErrorPerBadInput) {
  TempDir dir;
  std::string m = dir / "m";
  ASSERT_EQ(qgpu("tiny-model --out " + m + " --layers LF").status, 0);
  auto expect = [](const std::string& args, const std::string& message) {
    auto r = qgpu(args);
    EXPECT_EQ(r.status, 1) << args;
    EXPECT_EQ(r.err, "qgpu: error: " + message + "\n") << args;
  };
  expect("forward " + m + " --tokens 1,x", "--tokens '1,x': 'x' is not a token id (expected comma-separated integers >= 0)");
  expect("forward " + m + " --tokens 1,99999", "token 99999 (position 1) is outside the vocabulary [0, 512)");
  expect("forward " + m + " --tokens 1 --dtype f8", "--dtype f8: expected f32, bf16 or f16");
  expect("forward " + (dir / "nothing") + " --tokens 1", "'" + (dir / "nothing") + "': no such file or directory");
  expect("generate " + m, "generate: give exactly one of --prompt or --tokens");
  expect("tiny-model --out " + (dir / "x") + " --layers LXF", "tiny model: layer pattern 'LXF' may only hold L and F");
}

}  // namespace
}  // namespace qgpu
