// The Qwen3.5 chat template (ChatML with think blocks and XML tool calls), in C++.
//
// render_chat produces exactly what the official Qwen3.5 (0.8B/2B) chat_template.jinja
// renders for text-only messages; tests/goldens/tokenizer/qwen35_chat_template.jinja holds
// that template and chat_renders.json its renders by @huggingface/jinja. parse_tool_calls
// reads the <tool_call><function=...><parameter=...> form back out of a model's reply.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace qgpu::engine {

// One function call, as in an OpenAI-style message's tool_calls[i].function.
struct ToolCall {
  std::string name;
  nlohmann::ordered_json arguments = nlohmann::ordered_json::object();  // parameter -> value
};

struct ChatMessage {
  std::string role;  // "system" (first only), "user", "assistant" or "tool"
  std::string content;
  std::optional<std::string> reasoning_content;  // assistant: thinking kept apart from content
  std::vector<ToolCall> tool_calls;              // assistant: calls after the content
};

struct ChatOptions {
  bool add_generation_prompt = true;  // end with "<|im_start|>assistant\n" and a think opening
  bool enable_thinking = false;       // false: the empty "<think>\n\n</think>\n\n" block
  nlohmann::ordered_json tools = nlohmann::ordered_json::array();  // function schemas
};

// The prompt text for `messages`, as the Qwen3.5 template renders it. Conversations the
// template rejects (no user message, a system message not first, an unknown role) are an
// Error with the template's own message.
std::string render_chat(const std::vector<ChatMessage>& messages, const ChatOptions& options);

// The length of the system block a rendered prompt begins with: from "<|im_start|>system\n"
// to the first "<|im_end|>\n" after it, included (0 when the prompt begins otherwise). Every
// prompt of a conversation with the same system message and tools begins with the same
// block (a system text that holds "<|im_end|>\n" itself: with the same part of it).
size_t system_block_length(std::string_view prompt);

// JSON as the template's tojson writes it (Python json.dumps: ", " and ": " separators,
// keys in insertion order, non-ASCII kept).
std::string template_tojson(const nlohmann::ordered_json& value);

// Tool calls read out of an assistant reply.
struct ToolCallParse {
  std::string content;          // the reply without its <tool_call> blocks, trimmed
  std::vector<ToolCall> calls;  // the calls that parsed, in order
  std::string error;            // empty, or what is malformed, in words a model can act on
};

// Reads "<tool_call>\n<function=NAME>\n<parameter=P>\nVALUE\n</parameter>\n</function>\n
// </tool_call>" blocks. A parameter whose schema type in `tools` is not "string" is parsed as
// JSON; without a schema, values that parse as a JSON object or array are JSON, the rest stay
// strings. Never throws: problems go to .error.
ToolCallParse parse_tool_calls(std::string_view assistant_text,
                               const nlohmann::ordered_json& tools = nlohmann::ordered_json::array());

}  // namespace qgpu::engine
