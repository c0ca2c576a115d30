// A model's reply and a conversation: the tool-call parser (engine::parse_tool_calls, with
// the chat's 14 tool schemas) on arbitrary text, then the chat template rendering the
// conversation that reply makes (the calls it parsed, its content, a tool response).
#include "chat/library.h"
#include "engine/chat_template.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const nlohmann::ordered_json tools = qgpu::chat::library_tools();
  const std::string reply(qgpu::fuzz::text_of(data, size));
  const qgpu::engine::ToolCallParse parse = qgpu::engine::parse_tool_calls(reply, tools);
  FUZZ_REQUIRE(parse.content.size() <= reply.size(), "content {} bytes from a {}-byte reply", parse.content.size(),
               reply.size());
  std::vector<qgpu::engine::ChatMessage> messages = {
      {.role = "system", .content = "You are qgpu."},
      {.role = "user", .content = reply},
      {.role = "assistant", .content = parse.content, .reasoning_content = reply, .tool_calls = parse.calls},
      {.role = "tool", .content = parse.error.empty() ? reply : parse.error},
  };
  for (bool thinking : {false, true})
    qgpu::fuzz::accepted([&] {
      qgpu::engine::render_chat(messages, {.enable_thinking = thinking, .tools = tools});
    });
  return 0;
}
