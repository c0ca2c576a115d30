// The chat's prompt cache (engine_generator with GeneratorOptions::prompt_cache): a reply that
// starts after the system block's state, kept in memory or read from the prompt cache's
// file, is the reply of a generator that reads the whole prompt; the reading reports what
// is read and what came from the cache (a line once, for a file); a damaged file is
// reported and rebuilt; a Session's /reset starts after the kept state. On a tiny random
// checkpoint with the tiny tokenizer; the cache's files go under the test's TMPDIR.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "chat/commands.h"
#include "chat/library.h"
#include "chat/session.h"
#include "engine/state_cache.h"
#include "engine/tiny_model.h"
#include "engine/tokenizer.h"
#include "test_util.h"

namespace qgpu::chat {
namespace {

namespace fs = std::filesystem;
using test_util::TempDir;

using Tiny = test_util::TinyTextModel;

// The prompt of a conversation's first reply, as the Session renders it.
std::string first_prompt(Mode mode, const std::string& question) {
  engine::ChatOptions o;
  if (mode == Mode::normal) o.tools = library_tools();
  return engine::render_chat({{.role = "system", .content = system_prompt(mode)}, {.role = "user", .content = question}},
                             o);
}

const auto kAny = [](std::string_view) { return true; };

TEST(ChatPromptCache, EveryPromptOfAModeBeginsWithItsSystemBlock) {
  for (Mode mode : {Mode::normal, Mode::advanced}) {
    const std::string a = first_prompt(mode, "What is 2 + 2?"), b = first_prompt(mode, "Hi");
    const size_t n = engine::system_block_length(a);
    ASSERT_GT(n, 1000u);
    EXPECT_EQ(a.substr(0, n), b.substr(0, n));
    EXPECT_TRUE(a.substr(n).starts_with("<|im_start|>user\n")) << a.substr(n);
  }
  EXPECT_EQ(engine::system_block_length("<|im_start|>user\nhi<|im_end|>\n"), 0u);
  EXPECT_EQ(engine::system_block_length("<|im_start|>system\nno end"), 0u);
}

struct Seen {
  std::vector<Prefill> reports;
  std::function<bool(const Prefill&)> collect() {
    reports.clear();
    return [this](const Prefill& p) { return reports.push_back(p), true; };
  }
};

TEST(ChatPromptCache, RepliesFromTheKeptTheFiledAndTheReadStateAreTheSame) {
  Tiny t;
  TempDir cache;
  const GeneratorOptions plain{.max_tokens = 8, .threads = 1};
  GeneratorOptions cached = plain;
  cached.prompt_cache = true;
  cached.prompt_cache_dir = engine::PromptStateDir{.path = cache / "prompt-states"};
  const std::string p1 = first_prompt(Mode::normal, "What is 2 + 2?"), p2 = first_prompt(Mode::normal, "And 3 + 3?");
  const int64_t n = t.tokens(p1.substr(0, engine::system_block_length(p1))), n1 = t.tokens(p1), n2 = t.tokens(p2);
  auto reader = engine_generator(t.model, t.tokenizer, plain);
  const std::string want1 = reader->reply(p1, kAny, {}), want2 = reader->reply(p2, kAny, {});
  ASSERT_FALSE(want1.empty());
  Seen seen;
  // The first start reads the whole prompt, and keeps the system block's state (a file too).
  auto a = engine_generator(t.model, t.tokenizer, cached);
  EXPECT_EQ(a->reply(p1, kAny, seen.collect()), want1);
  ASSERT_FALSE(seen.reports.empty());
  EXPECT_EQ(seen.reports.back().fed, n1);
  EXPECT_EQ(seen.reports.back().total, n1);
  for (const Prefill& p : seen.reports) {
    EXPECT_EQ(p.cached, 0);
    EXPECT_EQ(p.note, "");
  }
  ASSERT_EQ(engine::list_prompt_states(cached.prompt_cache_dir->path).size(), 1u);
  // The next start (another question) begins after the state kept in memory: no line.
  EXPECT_EQ(a->reply(p2, kAny, seen.collect()), want2);
  for (const Prefill& p : seen.reports) {
    EXPECT_EQ(p.cached, n);
    EXPECT_EQ(p.total, n2 - n);
    EXPECT_EQ(p.note, "");
  }
  // A new generator (the next process) begins after the file's state, and says so once.
  auto b = engine_generator(t.model, t.tokenizer, cached);
  EXPECT_EQ(b->reply(p2, kAny, seen.collect()), want2);
  ASSERT_EQ(seen.reports.size(), 2u);  // the line, then the question read
  EXPECT_EQ(seen.reports[0].fed, 0);
  EXPECT_EQ(seen.reports[0].note, "the system prompt's state from the prompt cache (" + grouped(n) + " tokens)");
  EXPECT_EQ(seen.reports[1].fed, n2 - n);
  EXPECT_EQ(seen.reports[1].note, "");
  // A damaged file is said once, not used, and written again.
  const std::string file = engine::list_prompt_states(cached.prompt_cache_dir->path).at(0).path;
  std::string bytes = test_util::read_file(file);
  bytes[bytes.size() - 64] ^= 1;
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
  auto c = engine_generator(t.model, t.tokenizer, cached);
  EXPECT_EQ(c->reply(p1, kAny, seen.collect()), want1);
  EXPECT_EQ(seen.reports[0].note, "prompt cache: " + file +
                                      " was not used: the payload's checksum does not match (damaged); removed, the "
                                      "prompt is read again");
  EXPECT_EQ(seen.reports.back().total, n1);
  auto d = engine_generator(t.model, t.tokenizer, cached);
  EXPECT_EQ(d->reply(p2, kAny, seen.collect()), want2);
  EXPECT_EQ(seen.reports[0].cached, n);
}

TEST(ChatPromptCache, ASessionsResetStartsAfterTheKeptSystemPrompt) {
  Tiny t;
  auto text = engine_generator(t.model, t.tokenizer, {.max_tokens = 4, .threads = 1, .prompt_cache = true});
  Session s(t.model, text.get(), {});
  Seen seen;
  s.turn("What is 2 + 2?", {.on_prefill = seen.collect()});
  ASSERT_FALSE(seen.reports.empty());
  const int64_t all = seen.reports.front().total;  // the first reply's reading (a tool call's reply follows)
  EXPECT_EQ(seen.reports.front().cached, 0);
  s.reset();
  s.turn("What is 2 + 2?", {.on_prefill = seen.collect()});
  ASSERT_FALSE(seen.reports.empty());
  EXPECT_GT(seen.reports.front().cached, 1000);
  EXPECT_EQ(seen.reports.front().cached + seen.reports.front().total, all);
}

}  // namespace
}  // namespace qgpu::chat
