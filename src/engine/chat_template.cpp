// The Qwen3.5 chat template in C++, and the tool-call parser for its XML call form.
//
// Approach: render_chat is a line-by-line transcription of the official Qwen3.5 (small
// models: non-thinking by default) chat_template.jinja, kept in the same order so the two can
// be read side by side; tests/goldens/tokenizer/qwen35_chat_template.jinja is that template.
// Only text content is supported (no images). Where Jinja's Python semantics matter we follow
// Python (the template runs under Python jinja2 in transformers): `|trim` is str.strip(),
// `|string` of true is "True", `|tojson` is json.dumps with ", " / ": " separators.
// parse_tool_calls is the inverse of the tool-call rendering, strict about structure and
// reporting the first problem in words a model can act on.
#include "engine/chat_template.h"

#include "base/error.h"

namespace qgpu::engine {
namespace {

using ojson = nlohmann::ordered_json;

constexpr std::string_view kToolsPreamble =
    "<|im_start|>system\n# Tools\n\nYou have access to the following functions:\n\n<tools>";
constexpr std::string_view kToolsPostamble =
    "\n</tools>\n\nIf you choose to call a function ONLY reply in the following format with NO "
    "suffix:\n\n<tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>\n"
    "value_1\n</parameter>\n<parameter=example_parameter_2>\nThis is the value for the second "
    "parameter\nthat can span\nmultiple lines\n</parameter>\n</function>\n</tool_call>\n\n"
    "<IMPORTANT>\nReminder:\n- Function calls MUST follow the specified format: an inner "
    "<function=...></function> block must be nested within <tool_call></tool_call> XML tags\n- "
    "Required parameters MUST be specified\n- You may provide optional reasoning for your "
    "function call in natural language BEFORE the function call, but NOT after\n- If there is no "
    "function call available, answer the question like normal with your current knowledge and do "
    "not tell the user about function calls\n</IMPORTANT>";

// Whitespace that Python's str.strip() and JavaScript's trim() both remove.
size_t space_prefix_len(std::string_view s) {
  static constexpr std::string_view kMultiByte[] = {
      "\u00a0", "\u1680", "\u2000", "\u2001", "\u2002", "\u2003", "\u2004", "\u2005", "\u2006",
      "\u2007", "\u2008", "\u2009", "\u200a", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000"};
  if (s.empty()) return 0;
  if (std::string_view(" \t\n\r\v\f").find(s[0]) != std::string_view::npos) return 1;
  for (std::string_view m : kMultiByte)
    if (s.starts_with(m)) return m.size();
  return 0;
}

size_t space_suffix_len(std::string_view s) {
  for (size_t len = 1; len <= 3 && len <= s.size(); ++len)
    if (space_prefix_len(s.substr(s.size() - len)) == len) return len;
  return 0;
}

// Jinja's |trim (Python str.strip()).
std::string trim(std::string_view s) {
  while (size_t n = space_prefix_len(s)) s.remove_prefix(n);
  while (size_t n = space_suffix_len(s)) s.remove_suffix(n);
  return std::string(s);
}

std::string_view lstrip_newlines(std::string_view s) {
  while (!s.empty() && s.front() == '\n') s.remove_prefix(1);
  return s;
}

std::string_view rstrip_newlines(std::string_view s) {
  while (!s.empty() && s.back() == '\n') s.remove_suffix(1);
  return s;
}

// Python's s.split(sep)[0] and s.split(sep)[-1].
std::string_view before_first(std::string_view s, std::string_view sep) {
  return s.substr(0, s.find(sep));
}
std::string_view after_last(std::string_view s, std::string_view sep) {
  size_t at = s.rfind(sep);
  return at == std::string_view::npos ? s : s.substr(at + sep.size());
}

// Jinja's |string under Python: str(value).
std::string python_str(const ojson& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  if (v.is_null()) return "None";
  return v.dump();
}

std::string render_system_block(const std::vector<ChatMessage>& messages, const ojson& tools) {
  bool has_system = messages[0].role == "system";
  std::string system = has_system ? trim(messages[0].content) : "";
  if (tools.is_array() && !tools.empty()) {
    std::string out(kToolsPreamble);
    for (const ojson& tool : tools) out += "\n" + template_tojson(tool);
    out += kToolsPostamble;
    if (!system.empty()) out += "\n\n" + system;
    return out + "<|im_end|>\n";
  }
  return has_system ? "<|im_start|>system\n" + system + "<|im_end|>\n" : "";
}

bool is_tool_response(const std::string& content) {
  std::string c = trim(content);
  return c.starts_with("<tool_response>") && c.ends_with("</tool_response>");
}

// The index of the last user message that is a real query (not wrapped tool output).
size_t last_query_index(const std::vector<ChatMessage>& messages) {
  for (size_t i = messages.size(); i-- > 0;)
    if (messages[i].role == "user" && !is_tool_response(messages[i].content)) return i;
  fail("chat template: No user query found in messages.");
}

std::string render_tool_calls(const std::vector<ToolCall>& calls, const std::string& content) {
  std::string out;
  for (size_t k = 0; k < calls.size(); ++k) {
    const ToolCall& call = calls[k];
    if (k > 0) out += "\n";
    else if (!trim(content).empty()) out += "\n\n";
    out += "<tool_call>\n<function=" + call.name + ">\n";
    for (const auto& [name, value] : call.arguments.items()) {
      bool structured = value.is_object() || value.is_array();
      out += "<parameter=" + name + ">\n" + (structured ? template_tojson(value) : python_str(value)) +
             "\n</parameter>\n";
    }
    out += "</function>\n</tool_call>";
  }
  return out;
}

std::string render_assistant(const ChatMessage& m, bool after_last_query) {
  std::string content = trim(m.content);
  std::string reasoning;
  if (m.reasoning_content) {
    reasoning = *m.reasoning_content;
  } else if (content.find("</think>") != std::string::npos) {
    std::string_view c = content;
    reasoning = lstrip_newlines(after_last(rstrip_newlines(before_first(c, "</think>")), "<think>"));
    content = std::string(lstrip_newlines(after_last(c, "</think>")));
  }
  reasoning = trim(reasoning);
  std::string out = "<|im_start|>assistant\n";
  if (after_last_query) out += "<think>\n" + reasoning + "\n</think>\n\n";
  out += content + render_tool_calls(m.tool_calls, content);
  return out + "<|im_end|>\n";
}

std::string render_tool(const std::vector<ChatMessage>& messages, size_t i) {
  std::string out;
  if (i > 0 && messages[i - 1].role != "tool") out += "<|im_start|>user";  // loop.previtem
  out += "\n<tool_response>\n" + trim(messages[i].content) + "\n</tool_response>";
  if (i + 1 == messages.size() || messages[i + 1].role != "tool") out += "<|im_end|>\n";
  return out;
}

}  // namespace

std::string template_tojson(const ojson& value) {
  if (value.is_object()) {
    std::string out = "{";
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (it != value.begin()) out += ", ";
      out += ojson(it.key()).dump() + ": " + template_tojson(it.value());
    }
    return out + "}";
  }
  if (value.is_array()) {
    std::string out = "[";
    for (size_t i = 0; i < value.size(); ++i) out += (i ? ", " : "") + template_tojson(value[i]);
    return out + "]";
  }
  return value.dump();
}

size_t system_block_length(std::string_view prompt) {
  constexpr std::string_view kOpen = "<|im_start|>system\n", kClose = "<|im_end|>\n";
  if (!prompt.starts_with(kOpen)) return 0;
  const size_t end = prompt.find(kClose, kOpen.size());
  return end == std::string_view::npos ? 0 : end + kClose.size();
}

std::string render_chat(const std::vector<ChatMessage>& messages, const ChatOptions& options) {
  if (messages.empty()) fail("chat template: No messages provided.");
  std::string out = render_system_block(messages, options.tools);
  size_t last_query = last_query_index(messages);
  for (size_t i = 0; i < messages.size(); ++i) {
    const ChatMessage& m = messages[i];
    if (m.role == "system") {
      if (i != 0) fail("chat template: System message must be at the beginning.");
    } else if (m.role == "user") {
      out += "<|im_start|>user\n" + trim(m.content) + "<|im_end|>\n";
    } else if (m.role == "assistant") {
      out += render_assistant(m, i > last_query);
    } else if (m.role == "tool") {
      out += render_tool(messages, i);
    } else {
      fail("chat template: Unexpected message role. (message {} has role \"{}\")", i, m.role);
    }
  }
  if (options.add_generation_prompt)
    out += options.enable_thinking ? "<|im_start|>assistant\n<think>\n"
                                   : "<|im_start|>assistant\n<think>\n\n</think>\n\n";
  return out;
}

// ---- parse_tool_calls ----

namespace {

// The schema type of a function's parameter in `tools` ("" when not declared).
std::string schema_type(const ojson& tools, const std::string& function, const std::string& param) {
  for (const ojson& tool : tools) {
    const ojson& f = tool.contains("function") ? tool["function"] : tool;
    if (!f.is_object() || f.value("name", "") != function) continue;
    const ojson* props = f.contains("parameters") ? &f["parameters"] : nullptr;
    if (props && props->contains("properties")) props = &(*props)["properties"];
    if (props && props->is_object() && props->contains(param) && (*props)[param].is_object())
      return (*props)[param].value("type", "");
  }
  return "";
}

bool declares_function(const ojson& tools, const std::string& name) {
  for (const ojson& tool : tools) {
    const ojson& f = tool.contains("function") ? tool["function"] : tool;
    if (f.is_object() && f.value("name", "") == name) return true;
  }
  return false;
}

// A parameter's value: JSON when its schema says it is not a string (or, without a schema,
// when it is a JSON object or array), else the text itself.
std::optional<ojson> parameter_value(const std::string& text, const std::string& type) {
  if (type == "string") return ojson(text);
  ojson parsed = ojson::parse(text, nullptr, /*allow_exceptions=*/false);
  if (type.empty()) return parsed.is_object() || parsed.is_array() ? parsed : ojson(text);
  if (parsed.is_discarded()) return std::nullopt;
  return parsed;
}

// Parses the body of one <function=...> block (the parameters) into call.arguments.
std::string parse_parameters(std::string_view body, ToolCall& call, const ojson& tools) {
  constexpr std::string_view kOpen = "<parameter=", kClose = "</parameter>";
  while (true) {
    while (size_t n = space_prefix_len(body)) body.remove_prefix(n);
    if (body.empty()) return "";
    if (!body.starts_with(kOpen))
      return fmt::format("unexpected text \"{}\" in <function={}>; expected <parameter=NAME>",
                         body.substr(0, 40), call.name);
    size_t gt = body.find('>');
    size_t end = body.find(kClose);
    if (gt == std::string_view::npos || end == std::string_view::npos || end < gt)
      return fmt::format("a <parameter=...> of {} is not closed by </parameter>", call.name);
    std::string name(body.substr(kOpen.size(), gt - kOpen.size()));
    std::string_view value = body.substr(gt + 1, end - gt - 1);
    if (value.starts_with("\n")) value.remove_prefix(1);
    if (value.ends_with("\n")) value.remove_suffix(1);
    if (name.empty() || call.arguments.contains(name))
      return fmt::format("parameter \"{}\" of {} is empty or repeated", name, call.name);
    std::string type = schema_type(tools, call.name, name);
    auto parsed = parameter_value(std::string(value), type);
    if (!parsed)
      return fmt::format("parameter {} of {} must be {} (JSON), got \"{}\"", name, call.name, type,
                         value.substr(0, 40));
    call.arguments[name] = *parsed;
    body.remove_prefix(end + kClose.size());
  }
}

// Parses the inside of one <tool_call> block.
std::string parse_call(std::string_view block, ToolCall& call, const ojson& tools) {
  constexpr std::string_view kOpen = "<function=", kClose = "</function>";
  std::string inner = trim(block);
  std::string_view s = inner;
  size_t gt = s.find('>');
  if (!s.starts_with(kOpen) || gt == std::string_view::npos)
    return "a <tool_call> must contain <function=NAME> ... </function>";
  call.name = trim(s.substr(kOpen.size(), gt - kOpen.size()));
  if (call.name.empty() || call.name.find('\n') != std::string::npos)
    return "<function=NAME> needs a one-line function name";
  if (!tools.empty() && !declares_function(tools, call.name))
    return fmt::format("there is no function named {}", call.name);
  size_t end = s.rfind(kClose);
  if (end == std::string_view::npos || end < gt)
    return fmt::format("<function={}> is not closed by </function>", call.name);
  if (!trim(s.substr(end + kClose.size())).empty())
    return fmt::format("unexpected text after </function> in the call to {}", call.name);
  return parse_parameters(s.substr(gt + 1, end - gt - 1), call, tools);
}

}  // namespace

ToolCallParse parse_tool_calls(std::string_view text, const ojson& tools) {
  constexpr std::string_view kOpen = "<tool_call>", kClose = "</tool_call>";
  ToolCallParse out;
  std::string content;
  while (!text.empty()) {
    size_t open = text.find(kOpen);
    content += text.substr(0, open);
    if (open == std::string_view::npos) break;
    size_t close = text.find(kClose, open);
    size_t n = out.calls.size() + 1;
    if (close == std::string_view::npos) {
      out.error = fmt::format("tool call {}: <tool_call> is not closed by </tool_call>", n);
      break;
    }
    ToolCall call;
    std::string error = parse_call(text.substr(open + kOpen.size(), close - open - kOpen.size()), call, tools);
    if (!error.empty()) {
      out.error = fmt::format("tool call {}: {}", n, error);
      break;
    }
    out.calls.push_back(std::move(call));
    text.remove_prefix(close + kClose.size());
  }
  out.content = trim(content);
  return out;
}

}  // namespace qgpu::engine
