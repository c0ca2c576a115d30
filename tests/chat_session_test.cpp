// The chat's session (issue 7): turns in normal and advanced mode, the / commands, ask and
// eval. The language side is the scripted generator (no Qwen3.5 weights exist on these
// machines: the one fake, at the TextGenerator seam); every launch runs on the real
// compiled GPU-only model, and its results are checked against the interpreter's.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <regex>

#include "base/error.h"
#include "chat/commands.h"
#include "chat/eval.h"
#include "chat/library.h"
#include "chat/session.h"
#include "engine/tiny_model.h"
#include "engine/tokenizer.h"
#include "gpu/trace_json.h"
#include "test_util.h"

namespace qgpu::chat {
namespace {

using ojson = nlohmann::ordered_json;
using test_util::TempFile;

const engine::Model& gpu_model() {
  static const engine::Model& m = test_util::gpu_model(engine::DType::bf16);
  return m;
}

std::string script(const ojson& rules) { return ojson{{"rules", rules}}.dump(); }

std::string call(const std::string& name, const ojson& args) {
  std::string out = "<tool_call>\n<function=" + name + ">\n";
  for (const auto& [k, v] : args.items())  // strings as they are, the rest as JSON (the template's way)
    out += "<parameter=" + k + ">\n" + (v.is_string() ? v.get<std::string>() : v.dump()) + "\n</parameter>\n";
  return out + "</function>\n</tool_call>";
}

// The interpreter's memory for the same program: what the model's read-out must equal.
void expect_interpreter_outputs(const LaunchReport& r) {
  Trace want = run(r.program, r.launch);
  EXPECT_EQ(r.trace.records, want.records) << r.kernel;
  ASSERT_FALSE(r.output_arrays.empty());
  EXPECT_EQ(r.outputs.size(), r.output_arrays.size());
  for (const Array& a : r.program.arrays) {
    if (!r.outputs.contains(a.name)) continue;  // a __shared__ copy
    EXPECT_EQ(r.outputs[a.name], ojson(array_json(a, read_array(want.final, a)))) << a.name;  // floats as floats
  }
}

TEST(ChatSession, NormalModeCallsAKernelAndAnswersWithTheGpusNumber) {
  TempFile s(script({{{"when", "sum of 12"}, {"reply", "Let me use the GPU.\n\n" + call("sum", {{"values", {12, 7, 30, 5}}})}},
                     {{"when", "<tool_response>"}, {"reply", "The sum is {{result}}."}}}));
  auto text = scripted_generator(s.path.string());
  Session session(gpu_model(), text.get(), {});
  std::string streamed;
  int starts = 0, tokens = 0, ends = 0;
  Events ev{.on_text = [&](std::string_view t) { return streamed += t, true; },
            .on_launch_start = [&](const LaunchReport&) { ++starts; },
            .on_launch_token = [&](const LaunchFeed&) { return ++tokens, true; },
            .on_launch_end = [&](const LaunchReport&) { ++ends; }};
  TurnResult t = session.turn("What is the sum of 12, 7, 30 and 5?", ev);
  EXPECT_EQ(t.answer, "The sum is 54.");
  EXPECT_EQ(t.rounds, 2);
  ASSERT_EQ(t.launches.size(), 1u);
  const LaunchReport& r = t.launches[0];
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.result.at("result"), 54);
  expect_interpreter_outputs(r);
  EXPECT_EQ(starts, 1);
  EXPECT_EQ(ends, 1);
  EXPECT_EQ(tokens, static_cast<int>(r.trace.records.size()) + 1);  // after the prompt, then each record
  EXPECT_NE(streamed.find("The sum is 54."), std::string::npos);
  // system, user, assistant (call), tool, assistant (answer)
  ASSERT_EQ(session.messages().size(), 5u);
  EXPECT_EQ(session.messages()[2].tool_calls.size(), 1u);
  EXPECT_EQ(session.messages()[3].role, "tool");
  EXPECT_EQ(session.messages()[3].content, engine::template_tojson(r.result));
}

TEST(ChatSession, ABadCallGetsAToolErrorTheModelRecoversFrom) {
  TempFile s(script({{{"when", "\"error\""}, {"reply", call("sum", {{"values", {1, 2, 3}}})}},
                     {{"when", "<tool_response>"}, {"reply", "The sum is {{result}}."}},
                     {{"when", "add"}, {"reply", call("sum", {{"values", "one, two"}})}}}));
  auto text = scripted_generator(s.path.string());
  Session session(gpu_model(), text.get(), {});
  std::vector<std::string> notices;
  TurnResult t = session.turn("add 1, 2 and 3", {.on_notice = [&](std::string_view n) { notices.emplace_back(n); }});
  EXPECT_EQ(t.answer, "The sum is 6.");
  ASSERT_FALSE(t.launches.empty());
  EXPECT_EQ(t.launches.back().result.at("result"), 6);
  ASSERT_EQ(notices.size(), 1u);
  const engine::ChatMessage& error = session.messages()[3];  // after system, user, the bad call
  EXPECT_EQ(error.role, "tool");
  EXPECT_TRUE(error.content.starts_with("{\"error\": \"")) << error.content;
  EXPECT_NE(error.content.find("values"), std::string::npos) << error.content;
}

constexpr const char* kSquare =
    "```cuda\nextern \"C\" __global__ void square(int* x, int n) {\n  int i = threadIdx.x;\n"
    "  if (i < n) x[i] = x[i] * x[i];\n}\n```\n```launch\n--grid 1 --block 4 --arg 'x=[3,-4,5]' --arg n=3\n```";

TEST(ChatSession, AdvancedModeCompilesTheModelsKernelAndRetriesOnErrors) {
  // A square root, a division, a product, an fma, a floor and two conversions, each once:
  // integer sequences (lower_float.cpp) past the ROM's 256 blocks (323).
  const std::string broken = "```cuda\nextern \"C\" __global__ void square(float* x) { x[0] = sqrtf(x[0]);"
                             " x[1] = x[1] / x[2]; x[3] = __fmul_rn(x[3], x[4]); x[5] = fmaf(x[5], x[6], x[7]);"
                             " x[7] = floorf(x[7]); x[6] = (float)(int)x[1]; }"
                             "\n```\n```launch\n--grid 1 --block 4 --arg 'x=[1,2,3,4,5,6,7,8]'\n```";
  TempFile s(script({{{"when", "compile error"}, {"reply", kSquare}},
                     {{"when", "<tool_response>"}, {"reply", "The squares are {{outputs}}."}},
                     {{"when", "square"}, {"reply", broken}}}));
  auto text = scripted_generator(s.path.string());
  Session session(gpu_model(), text.get(), {.mode = Mode::advanced});
  TurnResult t = session.turn("square 3, -4 and 5", {});
  ASSERT_EQ(t.launches.size(), 2u);
  EXPECT_NE(t.launches[0].error.find("the ROM holds 256"), std::string::npos) << t.launches[0].error;
  EXPECT_EQ(t.launches[1].error, "");
  EXPECT_EQ(t.launches[1].outputs.at("x"), ojson({9, 16, 25}));
  expect_interpreter_outputs(t.launches[1]);
  EXPECT_EQ(t.answer, "The squares are {\"x\": [9, 16, 25]}.");
  EXPECT_TRUE(launch_matches(t.launches[1], ojson({9, 16, 25})));
  EXPECT_NE(system_prompt(Mode::advanced).find("```launch"), std::string::npos);
}

// A float kernel's arrays go back to the model as floats (what `--json` prints), not as the
// words' integer bits, and its answer is scored on them.
TEST(ChatSession, AdvancedModeReturnsFloatArraysAsFloats) {
  const std::string squares = "```cuda\nextern \"C\" __global__ void fsquare(float* x) {\n  int i = threadIdx.x;\n"
                              "  x[i] = x[i] * x[i];\n}\n```\n```launch\n--grid 1 --block 3 --arg 'x=[1.5,-0.1,3]'\n```";
  TempFile s(script({{{"when", "<tool_response>"}, {"reply", "The squares are {{outputs}}."}},
                     {{"when", "square"}, {"reply", squares}}}));
  auto text = scripted_generator(s.path.string());
  Session session(gpu_model(), text.get(), {.mode = Mode::advanced});
  TurnResult t = session.turn("square 1.5, -0.1 and 3 in floats", {});
  ASSERT_EQ(t.launches.size(), 1u);
  ASSERT_EQ(t.launches[0].error, "");
  expect_interpreter_outputs(t.launches[0]);
  EXPECT_EQ(t.answer, "The squares are {\"x\": [2.25, 0.010000001, 9.0]}.");
  EXPECT_TRUE(launch_matches(t.launches[0], ojson({2.25, 0.010000001, 9})));
  EXPECT_TRUE(answer_matches(t.answer, ojson({2.25, 0.010000001, 9})));
  EXPECT_FALSE(answer_matches(t.answer, ojson({2.25, 0.01, 9})));  // 0.1f squared is not 0.01f
}

TEST(ChatSession, AdvancedModeGivesUpAfterTwoRetries) {
  TempFile s(script({{{"reply", "```cuda\nextern \"C\" __global__ void k(int* x) { x[0] = 1 }\n```\n```launch\n--arg 'x=[0]'\n```"}}}));
  auto text = scripted_generator(s.path.string());
  Session session(gpu_model(), text.get(), {.mode = Mode::advanced});
  TurnResult t = session.turn("anything", {});
  EXPECT_EQ(t.launches.size(), 3u);
  EXPECT_EQ(t.rounds, 3);
  EXPECT_TRUE(t.answer.starts_with("The kernel did not compile after 3 tries:")) << t.answer;
}

// Session::turn's error on the GPU-only model: the three ways on (a launch, a merge, a script).
constexpr const char* kNoLanguage =
    "this is the GPU-only model: it has no language model to answer in words. Launch kernels with /run FILE.cu "
    "(or /kernels), chat with a merged checkpoint (`qgpu build`), or script the replies: restart with --script FILE "
    "(docs/chat-scripts.md)";

TEST(ChatSession, TheGpuOnlyModelHasNoLanguageButRunsCommands) {
  Session session(gpu_model(), nullptr, {});
  EXPECT_FALSE(session.has_language());
  try {
    session.turn("hello", {});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), kNoLanguage);
  }
  const std::string vecadd = std::string(QGPU_SOURCE_DIR) + "/kernels/vecadd.cu";
  CommandOutcome o = run_command(session, "/run " + vecadd + " --grid 1 --block 4 --arg 'a=[1,2,3]' --arg "
                                 "'b=[10,20,30]' --arg 'c=[0,0,0]' --arg n=3", {});
  ASSERT_GE(o.lines.size(), 2u) << o.lines[0];
  EXPECT_TRUE(o.lines[0].starts_with("launch vecadd (")) << o.lines[0];
  EXPECT_NE(std::find(o.lines.begin(), o.lines.end(), "  c = [11, 22, 33]"), o.lines.end());
  ASSERT_TRUE(session.last_launch());
  expect_interpreter_outputs(*session.last_launch());
  std::vector<std::string> trace = run_command(session, "/trace", {}).lines;
  EXPECT_EQ(trace.size(), session.last_launch()->trace.records.size() + 1);
  std::vector<std::string> sum = run_command(session, "/run sum --block 4 --arg 'values=[1,2]' --arg 'out=[0]' --arg n=2", {}).lines;
  EXPECT_NE(std::find(sum.begin(), sum.end(), "  out = [3]"), sum.end()) << sum[0];
  // A ready-made kernel with its tool's arguments alone: launched as the tool call is, and
  // its result shown once (not again as the array it is read from).
  std::vector<std::string> sort = run_command(session, "/run sort --arg 'values=[5,3,9,1]'", {}).lines;
  ASSERT_EQ(sort.size(), 3u) << sort[0];
  EXPECT_TRUE(sort[0].starts_with("launch sort (kernels/library/sort.cu): ")) << sort[0];
  EXPECT_EQ(sort[1], "  values = [5, 3, 9, 1]");
  EXPECT_EQ(sort[2], "  result: {\"result\": [1, 3, 5, 9]}");
  expect_interpreter_outputs(*session.last_launch());
  const std::string empty = run_command(session, "/run sort --arg 'values=[]'", {}).lines.at(0);
  EXPECT_TRUE(empty.starts_with("launch kernels/library/sort.cu: ")) << empty;
  EXPECT_EQ(run_command(session, "/run /nonexistent.cu", {}).lines,
            std::vector<std::string>{"launch /nonexistent.cu: /nonexistent.cu: cannot read the CUDA source (No such file or directory)"});
  EXPECT_EQ(run_command(session, "/mode fast", {}).lines, std::vector<std::string>{"/mode: mode 'fast': expected normal or advanced"});
  EXPECT_EQ(run_command(session, "/mode advanced", {}).lines, std::vector<std::string>{"mode: advanced"});
  EXPECT_EQ(run_command(session, "/bogus", {}).lines, std::vector<std::string>{"/bogus: unknown command; / lists the commands"});
  EXPECT_TRUE(run_command(session, "/quit", {}).quit);
  EXPECT_EQ(run_command(session, "/panel off", {}).panel, false);
  test_util::TempDir d;
  // A /save killed half-way left its temporary (PATH.tmp.PID): the next /save removes it.
  const pid_t gone = fork();
  if (gone == 0) _exit(0);
  waitpid(gone, nullptr, 0);
  std::ofstream(d / fmt::format("chat.json.tmp.{}", gone)) << "{\"partial";
  EXPECT_EQ(run_command(session, "/save " + d / "chat.json", {}).lines[0], "saved the conversation and its launches to " + d / "chat.json");
  EXPECT_FALSE(std::filesystem::exists(d / fmt::format("chat.json.tmp.{}", gone)));
  ojson saved = ojson::parse(test_util::read_file(d / "chat.json"));
  EXPECT_EQ(saved["launches"].size(), 5u);
  EXPECT_EQ(saved["launches"][0]["outputs"]["c"], ojson({11, 22, 33}));
}

TEST(ChatCommands, SplitWordsQuotes) {
  EXPECT_EQ(split_words("/run  k.cu --arg 'a=[1, 2]' \"x y\""),
            (std::vector<std::string>{"/run", "k.cu", "--arg", "a=[1, 2]", "x y"}));
}

TEST(ChatEval, MatchesNumbersInTheAnswer) {
  EXPECT_TRUE(answer_matches("The sum is 54.", 54));
  EXPECT_FALSE(answer_matches("The sum is 540.", 54));
  EXPECT_FALSE(answer_matches("x54", 54));
  EXPECT_TRUE(answer_matches("It is -3, then", -3));
  EXPECT_TRUE(answer_matches("sorted: [1, 2, 3]", ojson({1, 2, 3})));
  EXPECT_FALSE(answer_matches("sorted: [1, 3, 2]", ojson({1, 2, 3})));
  EXPECT_TRUE(answer_matches("rows 1 2 and 3 4", ojson({{1, 2}, {3, 4}})));
  // Fractions: a float tool's result, said to the digits a reader would write.
  EXPECT_FALSE(answer_matches("It is 1.5.", 1));
  EXPECT_TRUE(answer_matches("The mean is 7.45.", 7.4499998));
  EXPECT_TRUE(answer_matches("about 2.48", 2.4833333));
  EXPECT_TRUE(answer_matches("2.4833 exactly", 2.4833333));
  EXPECT_FALSE(answer_matches("about 2.5", 2.4833333));   // 2 digits of 8
  EXPECT_FALSE(answer_matches("about 2.49", 2.4833333));  // not what it rounds to
  EXPECT_TRUE(answer_matches("6.2", 6.2));
  EXPECT_TRUE(answer_matches("-1.5e-3 it is", -0.0015));
  EXPECT_FALSE(answer_matches("7", 7.4499998));
  EXPECT_TRUE(answer_matches("0.0100000007", 0.010000001));  // more digits, the same float
}

// The language side of a merged checkpoint: the engine generator streams exactly what it
// returns, and a prompt that extends the last one continues from the kept state with the
// same tokens as a fresh generator fed the whole prompt.
TEST(ChatGenerator, EngineGeneratorStreamsAndReusesItsState) {
  test_util::TempDir d;
  engine::write_tiny_model(d.path.string(), engine::TinySpec{.layers = "LF", .intermediate_size = 32});
  engine::Model m = engine::load_model(d.path.string());
  engine::Tokenizer tok = engine::load_tokenizer(d / "tokenizer.json");
  auto a = engine_generator(m, tok, {.max_tokens = 12, .threads = 1});
  std::string pieces;
  std::string first = a->reply(
      "<|im_start|>user\nhello<|im_end|>\n<|im_start|>assistant\n",
      [&](std::string_view p) {
        pieces += p;
        return true;
      },
      {});
  EXPECT_EQ(pieces, first);
  const std::string next = "<|im_start|>user\nhello<|im_end|>\n<|im_start|>assistant\n" + first + "<|im_end|>\n<|im_start|>user\nmore";
  std::string continued = a->reply(next, [](std::string_view) { return true; }, {});
  auto b = engine_generator(m, tok, {.max_tokens = 12, .threads = 1});
  EXPECT_EQ(continued, b->reply(next, [](std::string_view) { return true; }, {}));
}

TEST(ChatCli, AskAndEvalWithAScriptedLanguageSide) {
  ojson rules = ojson::array();
  for (const EvalQuestion& q : eval_questions()) rules.push_back({{"when", q.question}, {"reply", call(q.tool, q.arguments)}});
  rules.push_back({{"when", "<tool_response>"}, {"reply", "The answer is {{result}}."}});
  TempFile s(script(rules));
  const EvalQuestion q = eval_questions().front();
  test_util::Result r = test_util::qgpu("eval --script " + s.path.string() + " --samples 3 --json --dtype bf16 gpu");
  ASSERT_EQ(r.status, 0) << r.err;
  ojson j = ojson::parse(r.out);
  ASSERT_EQ(j["modes"].size(), 1u);
  EXPECT_EQ(j["modes"][0]["questions"], 3);
  EXPECT_EQ(j["modes"][0]["gpu_correct"], 3) << r.out;
  EXPECT_EQ(j["modes"][0]["used_gpu"], 3);
  EXPECT_EQ(j["modes"][0]["answered_correctly"], 3) << r.out;
  test_util::Result one =
      test_util::qgpu("ask --script " + s.path.string() + " --json --dtype bf16 gpu '" + q.question + "'");
  ASSERT_EQ(one.status, 0) << one.err;
  ojson a = ojson::parse(one.out);
  EXPECT_EQ(a["launches"].size(), 1u);
  EXPECT_TRUE(answer_matches(a["answer"].get<std::string>(), q.answer)) << one.out;
  test_util::Result gpu_only = test_util::qgpu("ask --dtype bf16 gpu 'hi'");
  EXPECT_EQ(gpu_only.status, 1);
  EXPECT_NE(gpu_only.err.find("is the GPU-only model: it has no language model"), std::string::npos) << gpu_only.err;
}

int occurrences(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// stdout's lines (a last line without its newline, the prompt at end of input, included).
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  size_t at = 0;
  for (size_t nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1) out.push_back(text.substr(at, nl - at));
  if (at < text.size()) out.push_back(text.substr(at));
  return out;
}

// The lines from `first` up to (not including) the next one starting with `stop`.
std::vector<std::string> lines_until(const std::vector<std::string>& lines, size_t first, std::string_view stop) {
  std::vector<std::string> out;
  for (size_t i = first; i < lines.size() && !lines[i].starts_with(stop); ++i) out.push_back(lines[i]);
  return out;
}

size_t index_of(const std::vector<std::string>& lines, const std::string& line) {
  return static_cast<size_t>(std::find(lines.begin(), lines.end(), line) - lines.begin());
}

// Input from a file: each line is echoed after its `> ` prompt, and what it prints starts
// on the next line. The GPU-only model's greeting and its answer to words name --script.
TEST(ChatCli, PlainChatRunsCommandsFromStdin) {
  const std::string sum = "/run sum --block 4 --arg 'values=[4,5,6]' --arg 'out=[0]' --arg n=3";
  const std::string sort = "/run sort --arg 'values=[5,3,9,1]'";
  TempFile in("/kernels\n" + sum + "\nhello\n\n" + sort + "\n/run /nonexistent.cu\n/quit\n");
  test_util::Result r = test_util::qgpu("chat --plain --dtype bf16 < " + in.path.string());
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<std::string> lines = lines_of(r.out);
  ASSERT_GE(lines.size(), 3u) << r.out;
  EXPECT_EQ(lines[0],
            "No checkpoint given: the GPU-only model (the compiled GPU's layers, no language model), so it cannot answer "
            "in words. /run FILE.cu or /kernels launch kernels with the panel; for chat, merge it into Qwen3.5 with "
            "`qgpu build` and run `qgpu chat build/merged-2b`, or script the replies with --script FILE "
            "(docs/chat-scripts.md). / lists the commands.");
  EXPECT_EQ(lines[1], "> /kernels");
  EXPECT_TRUE(lines[2].starts_with("ready-made kernels")) << lines[2];
  const size_t run_sum = index_of(lines, "> " + sum);
  ASSERT_LT(run_sum + 2, lines.size()) << r.out;
  EXPECT_EQ(lines[run_sum + 1], "[qgpu] launch sum (kernels/library/sum.cu) inside the model...");
  EXPECT_TRUE(lines[run_sum + 2].starts_with("launch sum (kernels/library/sum.cu): ")) << lines[run_sum + 2];
  const size_t hello = index_of(lines, "> hello");
  ASSERT_LT(hello + 2, lines.size()) << r.out;
  EXPECT_EQ(lines[hello + 1], std::string("[qgpu] error: ") + kNoLanguage);
  EXPECT_EQ(lines[hello + 2], "> ");  // an empty line: nothing but its prompt
  // A ready-made kernel in its tool's form: its summary and its panel once each; a /run that
  // does not compile shows its error and no panel (not the last launch's again).
  const size_t run_sort = index_of(lines, "> " + sort);
  ASSERT_LT(run_sort + 2, lines.size()) << r.out;
  EXPECT_EQ(lines[run_sort + 1], "[qgpu] launch sort (kernels/library/sort.cu) inside the model...");
  EXPECT_TRUE(lines[run_sort + 2].starts_with("launch sort (kernels/library/sort.cu): ")) << lines[run_sort + 2];
  EXPECT_EQ(occurrences(r.out, "launch sort (kernels/library/sort.cu): "), 1) << r.out;
  EXPECT_EQ(occurrences(r.out, "qgpu sort  grid"), 1) << r.out;
  const std::vector<std::string> tail(lines.end() - std::min<size_t>(lines.size(), 3), lines.end());
  EXPECT_EQ(tail, (std::vector<std::string>{"> /run /nonexistent.cu",
                                            "launch /nonexistent.cu: /nonexistent.cu: cannot read the CUDA source "
                                            "(No such file or directory)",
                                            "> /quit"}))
      << r.out;
}

// A turn's tool call in --plain, line by line: the question after its prompt, the reply's
// text, the launch's lines on their own (its result once, not again as the array the tool
// reads it from), the panel (whose speed is the summary's), the answer, the next prompt.
TEST(ChatCli, PlainChatShowsAToolCallsResultOnce) {
  TempFile s(script({{{"when", "<tool_response>"}, {"reply", "The dot product is {{result}}."}},
                     {{"when", "dot product"}, {"reply", call("dot", {{"a", {1, 2, 3}}, {"b", {4, 5, 6}}})}}}));
  TempFile in("What is the dot product of [1,2,3] and [4,5,6]?\n");
  test_util::Result r = test_util::qgpu("chat --plain --dtype bf16 gpu --script " + s.path.string() + " < " + in.path.string());
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<std::string> lines = lines_of(r.out);
  EXPECT_EQ(lines_until(lines, 0, "[qgpu] launch dot (kernels/library/dot.cu): "),
            (std::vector<std::string>{
                "the GPU-only model (in memory): language side scripted by " + s.path.string() +
                    " (a test seam); launches run on the model",
                "> What is the dot product of [1,2,3] and [4,5,6]?", "<tool_call>", "<function=dot>", "<parameter=a>",
                "[1,2,3]", "</parameter>", "<parameter=b>", "[4,5,6]", "</parameter>", "</function>", "</tool_call>",
                "[qgpu] launch dot (kernels/library/dot.cu) inside the model..."}))
      << r.out;
  const size_t summary = 13;
  ASSERT_LT(summary + 4, lines.size()) << r.out;
  std::smatch done, panel;
  ASSERT_TRUE(std::regex_match(lines[summary], done, std::regex(R"(\[qgpu\] launch dot \(kernels/library/dot\.cu\): )"
                                                               R"((\d+) records generated by the model in [0-9.]+ s \((\d+) tokens/s\))")))
      << lines[summary];
  EXPECT_EQ(std::vector<std::string>(lines.begin() + summary + 1, lines.begin() + summary + 4),
            (std::vector<std::string>{"[qgpu]   a = [1, 2, 3]", "[qgpu]   b = [4, 5, 6]", "[qgpu]   result: {\"result\": 32}"}));
  ASSERT_TRUE(std::regex_match(lines[summary + 4], panel,
                               std::regex(R"(qgpu dot  grid 1x1 block 4x1  records (\d+)  (\d+) tokens/s  finished)")))
      << lines[summary + 4];
  EXPECT_EQ(panel[1], done[1]);  // records
  EXPECT_EQ(panel[2], done[2]) << "the panel's speed and the summary's, of the same launch";
  EXPECT_EQ(occurrences(r.out, "[32]"), 0) << r.out;
  EXPECT_EQ(occurrences(r.out, "qgpu dot  grid"), 1) << r.out;
  const std::vector<std::string> tail(lines.end() - 2, lines.end());
  EXPECT_EQ(tail, (std::vector<std::string>{"The dot product is 32.", "> "})) << r.out;
}

}  // namespace
}  // namespace qgpu::chat
