// The Qwen3.5 chat template against @huggingface/jinja rendering the real template
// (tests/goldens/tokenizer/chat_renders.json), its error cases, and the tool-call parser.
#include "engine/chat_template.h"

#include <gtest/gtest.h>

#include "base/error.h"
#include "test_util.h"

namespace qgpu::engine {
namespace {

using ojson = nlohmann::ordered_json;

const std::string kGoldens = std::string(QGPU_SOURCE_DIR) + "/tests/goldens/tokenizer/";

ChatMessage message_from(const ojson& m) {
  ChatMessage msg{.role = m["role"], .content = m["content"]};
  if (m.contains("reasoning_content")) msg.reasoning_content = m["reasoning_content"].get<std::string>();
  for (const ojson& call : m.value("tool_calls", ojson::array()))
    msg.tool_calls.push_back({.name = call["name"], .arguments = call["arguments"]});
  return msg;
}

// The first difference of two renders, with context, for readable failures.
std::string first_difference(const std::string& expected, const std::string& actual) {
  size_t i = 0;
  while (i < expected.size() && i < actual.size() && expected[i] == actual[i]) ++i;
  size_t from = i < 40 ? 0 : i - 40;
  return "at byte " + std::to_string(i) + "\n  expected ..." + ojson(expected.substr(from, 100)).dump() +
         "\n  actual   ..." + ojson(actual.substr(from, 100)).dump();
}

TEST(ChatTemplateGolden, RendersLikeTheJinjaTemplate) {
  ojson cases = ojson::parse(test_util::read_file(kGoldens + "chat_renders.json"));
  ASSERT_GE(cases.size(), 20u);
  for (const ojson& c : cases) {
    std::vector<ChatMessage> messages;
    for (const ojson& m : c["messages"]) messages.push_back(message_from(m));
    ChatOptions options{.add_generation_prompt = c["add_generation_prompt"],
                        .enable_thinking = c["enable_thinking"], .tools = c["tools"]};
    std::string expected = c["text"], actual = render_chat(messages, options);
    EXPECT_EQ(actual, expected) << c["name"] << ": " << first_difference(expected, actual);
  }
}

TEST(ChatTemplate, NonThinkingModeIsTheDefault) {
  std::vector<ChatMessage> chat = {{.role = "system", .content = "Be brief."}, {.role = "user", .content = "Hi"}};
  EXPECT_EQ(render_chat(chat, {}),
            "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n"
            "<|im_start|>assistant\n<think>\n\n</think>\n\n");
  EXPECT_TRUE(render_chat(chat, {.enable_thinking = true}).ends_with("<|im_start|>assistant\n<think>\n"));
  EXPECT_TRUE(render_chat(chat, {.add_generation_prompt = false}).ends_with("Hi<|im_end|>\n"));
}

TEST(ChatTemplate, ScalarArgumentsFollowPythonStr) {
  // Python's jinja2 (what transformers runs) writes True/None; @huggingface/jinja differs, so
  // this case is pinned here rather than in the goldens.
  std::vector<ChatMessage> chat = {
      {.role = "user", .content = "go"},
      {.role = "assistant", .tool_calls = {{.name = "f", .arguments = {{"on", true}, {"x", nullptr}, {"n", 1.5}}}}}};
  EXPECT_EQ(render_chat(chat, {.add_generation_prompt = false}),
            "<|im_start|>user\ngo<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n<tool_call>\n"
            "<function=f>\n<parameter=on>\nTrue\n</parameter>\n<parameter=x>\nNone\n</parameter>\n"
            "<parameter=n>\n1.5\n</parameter>\n</function>\n</tool_call><|im_end|>\n");
}

std::string render_error(const std::vector<ChatMessage>& chat) {
  try {
    render_chat(chat, {});
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ChatTemplate, RejectsWhatTheTemplateRejects) {
  EXPECT_EQ(render_error({}), "chat template: No messages provided.");
  EXPECT_EQ(render_error({{.role = "system", .content = "s"}}), "chat template: No user query found in messages.");
  EXPECT_EQ(render_error({{.role = "user", .content = "<tool_response>x</tool_response>"}}),
            "chat template: No user query found in messages.");
  EXPECT_EQ(render_error({{.role = "user", .content = "u"}, {.role = "system", .content = "s"}}),
            "chat template: System message must be at the beginning.");
  EXPECT_EQ(render_error({{.role = "user", .content = "u"}, {.role = "critic", .content = "c"}}),
            "chat template: Unexpected message role. (message 1 has role \"critic\")");
}

TEST(ChatTemplate, TojsonSpacesLikePython) {
  ojson v = ojson::parse(R"({"b": [1, 2.5, "é\n"], "a": {"x": null, "y": true}, "e": {}, "f": []})");
  EXPECT_EQ(template_tojson(v), R"({"b": [1, 2.5, "é\n"], "a": {"x": null, "y": true}, "e": {}, "f": []})");
}

// ---- parse_tool_calls ----

const ojson kTools = ojson::parse(R"([
  {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer"}, "opts": {"type": "object"}}}}}])");

TEST(ToolCalls, ParsesWhatTheTemplateRenders) {
  ToolCall call{.name = "get_weather", .arguments = {{"city", "12"}, {"days", 3}, {"opts", {{"units", "C"}}}}};
  std::vector<ChatMessage> chat = {{.role = "user", .content = "q"},
                                   {.role = "assistant", .content = "Checking.", .tool_calls = {call, call}}};
  std::string rendered = render_chat(chat, {.add_generation_prompt = false});
  std::string reply = rendered.substr(rendered.find("</think>\n\n") + 10);
  reply = reply.substr(0, reply.find("<|im_end|>"));
  ToolCallParse p = parse_tool_calls(reply, kTools);
  EXPECT_EQ(p.error, "");
  EXPECT_EQ(p.content, "Checking.");
  ASSERT_EQ(p.calls.size(), 2u);
  EXPECT_EQ(p.calls[1].name, "get_weather");
  EXPECT_EQ(p.calls[1].arguments, call.arguments);  // "12" stays a string: its schema says so
}

TEST(ToolCalls, MultilineValuesAndNoSchema) {
  ToolCallParse p = parse_tool_calls(
      "<tool_call>\n<function=write>\n<parameter=text>\nline 1\n\nline 3\n</parameter>\n"
      "<parameter=list>\n[1, 2]\n</parameter>\n<parameter=n>\n7\n</parameter>\n</function>\n</tool_call>");
  EXPECT_EQ(p.error, "");
  ASSERT_EQ(p.calls.size(), 1u);
  EXPECT_EQ(p.calls[0].arguments, (ojson{{"text", "line 1\n\nline 3"}, {"list", {1, 2}}, {"n", "7"}}));
}

TEST(ToolCalls, NoCallsIsJustContent) {
  ToolCallParse p = parse_tool_calls("  The answer is 4.\n");
  EXPECT_EQ(p.content, "The answer is 4.");
  EXPECT_TRUE(p.calls.empty());
  EXPECT_EQ(p.error, "");
}

std::string parse_error(std::string_view text) { return parse_tool_calls(text, kTools).error; }

TEST(ToolCalls, MalformedCallsSayWhatIsWrong) {
  EXPECT_EQ(parse_error("<tool_call>\n<function=get_weather>\n</function>"),
            "tool call 1: <tool_call> is not closed by </tool_call>");
  EXPECT_EQ(parse_error("<tool_call>\n{\"name\": \"get_weather\"}\n</tool_call>"),
            "tool call 1: a <tool_call> must contain <function=NAME> ... </function>");
  EXPECT_EQ(parse_error("<tool_call>\n<function=nope>\n</function>\n</tool_call>"),
            "tool call 1: there is no function named nope");
  EXPECT_EQ(parse_error("<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</function>\n</tool_call>"),
            "tool call 1: a <parameter=...> of get_weather is not closed by </parameter>");
  EXPECT_EQ(parse_error("<tool_call>\n<function=get_weather>\n<parameter=days>\nthree\n</parameter>\n"
                        "</function>\n</tool_call>"),
            "tool call 1: parameter days of get_weather must be integer (JSON), got \"three\"");
  EXPECT_EQ(parse_error("<tool_call>\n<function=get_weather>\ncity=Paris\n</function>\n</tool_call>"),
            "tool call 1: unexpected text \"city=Paris\n\" in <function=get_weather>; expected <parameter=NAME>");
  EXPECT_EQ(parse_error("<tool_call>\n<function=get_weather>\n</function>\n</tool_call>\n<tool_call>\n"
                        "<function=get_weather>\n</function>\nsuffix\n</tool_call>"),
            "tool call 2: unexpected text after </function> in the call to get_weather");
}

}  // namespace
}  // namespace qgpu::engine
