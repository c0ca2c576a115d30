// The chat never looks hung: a long prompt (the system prompt: about 6,000 tokens with a
// tiny tokenizer, 1,900 with Qwen3.5's) is read in chunks, and each chunk is reported, by
// engine::generate (on_prefill), by the language side through the Session's events, and by
// `qgpu ask` on stderr (stdout stays the answer, or --json's object).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "chat/commands.h"
#include "chat/session.h"
#include "engine/generate.h"
#include "engine/tiny_model.h"
#include "engine/tokenizer.h"
#include "test_util.h"

namespace qgpu::chat {
namespace {

using Tiny = test_util::TinyTextModel;

// A prompt of about 6,000 tokens with the tiny tokenizer: the advanced mode's system prompt.
std::string long_prompt() {
  return "<|im_start|>system\n" + system_prompt(Mode::advanced) + "<|im_end|>\n<|im_start|>user\nhello<|im_end|>\n" +
         "<|im_start|>assistant\n";
}

TEST(ChatProgress, GenerateReportsThePromptChunkByChunkWithTheSameTokens) {
  Tiny t;
  std::vector<int32_t> prompt(600);
  for (size_t i = 0; i < prompt.size(); ++i) prompt[i] = static_cast<int32_t>((i * 37) % 200);
  engine::Runtime rt(t.model, {.threads = 1});
  engine::State quiet = engine::make_state(t.model.config), watched = engine::make_state(t.model.config);
  const std::vector<int32_t> want = engine::generate(rt, quiet, prompt, {.max_tokens = 4});
  std::vector<std::pair<int64_t, int64_t>> seen;
  engine::GenerateOptions o{.max_tokens = 4};
  o.on_prefill = [&](int64_t fed, int64_t total) { return seen.emplace_back(fed, total), true; };
  EXPECT_EQ(engine::generate(rt, watched, prompt, o), want);
  EXPECT_EQ(seen, (std::vector<std::pair<int64_t, int64_t>>{{256, 600}, {512, 600}, {600, 600}}));
  // false stops after the chunk: no tokens, the state holds what was read.
  engine::State stopped = engine::make_state(t.model.config);
  o.on_prefill = [](int64_t fed, int64_t) { return fed < 512; };
  EXPECT_TRUE(engine::generate(rt, stopped, prompt, o).empty());
  EXPECT_EQ(stopped.n_past, 512);
}

TEST(ChatProgress, ASessionReportsReadingTheSystemPrompt) {
  Tiny t;
  auto text = engine_generator(t.model, t.tokenizer, {.max_tokens = 2, .threads = 1});
  Session s(test_util::gpu_model(engine::DType::bf16), text.get(), {.mode = Mode::advanced});
  std::vector<Prefill> seen;
  Events ev{.on_prefill = [&](const Prefill& p) { return seen.push_back(p), true; }};
  s.turn("hello", ev);
  ASSERT_GE(seen.size(), 3u);
  const int64_t total = seen.back().total;
  EXPECT_GT(total, 4000);  // the system prompt, read in 256-token chunks
  for (size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i].total, total);
    EXPECT_EQ(seen[i].fed, std::min<int64_t>(total, 256 * static_cast<int64_t>(i + 1)));
    if (i > 0) {
      EXPECT_GE(seen[i].seconds, seen[i - 1].seconds);
    }
  }
  EXPECT_EQ(prefill_line({.fed = 2048, .total = 6112}), "reading the prompt: 2,048/6,112 tokens");
  EXPECT_EQ(prefill_line({.fed = 6112, .total = 6112, .seconds = 16}), "read the prompt: 6,112 tokens in 16.0 s (382 tokens/s)");
  // A front end's false stops the reply before its first word.
  Session stopped(test_util::gpu_model(engine::DType::bf16), text.get(), {.mode = Mode::advanced});
  try {
    stopped.turn("hello", {.on_prefill = [](const Prefill& p) { return p.fed < 512; }});
    FAIL() << "expected the turn to stop";
  } catch (const Error& e) {
    EXPECT_TRUE(std::string(e.what()).starts_with("reply stopped (interrupted)")) << e.what();
  }
}

// A reply stopped while reading keeps the state it read: the next reply continues from it
// and says what a fresh generator says.
TEST(ChatProgress, AStoppedPromptIsContinuedWhereItStopped) {
  Tiny t;
  auto a = engine_generator(t.model, t.tokenizer, {.max_tokens = 6, .threads = 1});
  auto b = engine_generator(t.model, t.tokenizer, {.max_tokens = 6, .threads = 1});
  const auto any = [](std::string_view) { return true; };
  int64_t read = 0;
  EXPECT_EQ(a->reply(long_prompt(), any, [&](const Prefill& p) { return read = p.fed, p.fed < 768; }), "");
  EXPECT_EQ(read, 768);
  std::vector<Prefill> rest;
  const std::string again = a->reply(long_prompt(), any, [&](const Prefill& p) { return rest.push_back(p), true; });
  ASSERT_FALSE(rest.empty());
  EXPECT_EQ(rest.front().fed, 256);
  EXPECT_EQ(rest.back().total + 768, static_cast<int64_t>(t.tokenizer.encode(long_prompt()).size()));
  EXPECT_EQ(again, b->reply(long_prompt(), any, {}));
}

// `qgpu ask`'s progress on stderr is checked where a merged checkpoint already exists
// (merge_build_test's expect_chat), not by building one more here.

}  // namespace
}  // namespace qgpu::chat
