// A turn is a loop of rounds: render the conversation with the chat template, let the
// language side reply, and act on the reply: tool calls (normal mode) or a ```cuda kernel
// with its ```launch block (advanced mode) become launches on the compiled model, whose
// results go back as tool responses; a reply with neither ends the turn. Launches feed the
// program image to the same weights and generate its records greedily (host/launch.h); the
// outputs are the words the host reads out of the model's recurrent state.
#include "chat/session.h"

#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <sstream>

#include "base/error.h"
#include "base/text_file.h"
#include "chat/assets.h"
#include "chat/commands.h"
#include "chat/library.h"
#include "compiler/compile.h"
#include "gpu/trace_json.h"
#include "host/launch.h"

namespace qgpu::chat {
namespace {

using ojson = nlohmann::ordered_json;

constexpr const char* kNormalPrompt =
    "You are Qwen, and a small GPU runs inside your weights. For any arithmetic on numbers "
    "(sums, products, differences, means, minimum and maximum, dot products, vector operations, "
    "matrix products, powers, factorials, greatest common divisors, sorting), call one of the "
    "functions below with the numbers from the question: the GPU computes the result exactly, "
    "in 32-bit integers. Never compute it yourself. When the tool response arrives, answer in "
    "one short sentence using exactly the numbers it contains. If it reports an error, fix the "
    "call or explain what the GPU cannot do.";

constexpr const char* kAdvancedPrompt =
    "You are Qwen, and a small GPU runs inside your weights. To compute anything with numbers, "
    "write a CUDA kernel for it and its launch, exactly in the format of the reference below; the "
    "host compiles it, runs it on the GPU and replies with the output arrays. Then answer in one "
    "short sentence using exactly those numbers. Never compute the result yourself.\n\n";

// The text between "```TAG\n" and the next "```" (empty when absent).
std::optional<std::string> fenced_block(std::string_view text, std::string_view tag) {
  const std::string open = fmt::format("```{}", tag);
  size_t at = 0;
  while ((at = text.find(open, at)) != std::string_view::npos) {
    size_t body = at + open.size();
    if (body < text.size() && text[body] != '\n' && text[body] != '\r' && text[body] != ' ') {
      at = body;  // ```cudaX is another tag
      continue;
    }
    size_t line = text.find('\n', body);
    size_t close = line == std::string_view::npos ? line : text.find("```", line + 1);
    if (close == std::string_view::npos) return std::nullopt;
    return std::string(text.substr(line + 1, close - line - 1));
  }
  return std::nullopt;
}

// The reply without its fenced blocks and think block: what the user reads as the answer.
std::string prose(std::string_view reply) {
  std::string out(reply);
  if (size_t t = out.find("</think>"); t != std::string::npos) out.erase(0, t + 8);
  for (size_t at; (at = out.find("```")) != std::string::npos;) {
    size_t close = out.find("```", at + 3);
    out.erase(at, close == std::string::npos ? std::string::npos : close + 3 - at);
  }
  size_t a = out.find_first_not_of(" \n\t"), b = out.find_last_not_of(" \n\t");
  return a == std::string::npos ? "" : out.substr(a, b - a + 1);
}

std::string read_source(const std::string& file) { return read_text_file(file, kMaxSourceBytes, "CUDA source"); }

std::string tool_response(const ojson& j) { return engine::template_tojson(j); }

}  // namespace

Mode parse_mode(std::string_view text) {
  if (text == "normal") return Mode::normal;
  if (text == "advanced") return Mode::advanced;
  fail("mode '{}': expected normal or advanced", text);
}

const char* mode_name(Mode m) { return m == Mode::normal ? "normal" : "advanced"; }

std::string system_prompt(Mode m) {
  if (m == Mode::normal) return kNormalPrompt;
  return kAdvancedPrompt + std::string(chat_asset("docs/cuda-reference.md"));
}

Session::Session(const engine::Model& model, TextGenerator* text, SessionOptions options)
    : model_(model), text_(text), options_(options) {}

void Session::reset() {
  messages_.clear();
  launches_.clear();
  last_.reset();
}

std::string Session::generate(const Events& events) {
  engine::ChatOptions o;
  if (options_.mode == Mode::normal) o.tools = library_tools();
  std::string prompt = engine::render_chat(messages_, o);
  bool stopped = false;
  std::function<bool(const Prefill&)> on_prefill;
  if (events.on_prefill)
    on_prefill = [&](const Prefill& p) {
      stopped = !events.on_prefill(p);
      return !stopped;
    };
  std::string reply = text_->reply(
      prompt,
      [&](std::string_view piece) {
        stopped = events.on_text && !events.on_text(piece);
        return !stopped;
      },
      on_prefill);
  if (stopped) fail("reply stopped (interrupted); the conversation keeps what came before it");
  return reply;
}

TurnResult Session::turn(std::string_view user_text, const Events& events) {
  if (!text_)
    fail("this is the GPU-only model: it has no language model to answer in words. Launch kernels "
         "with /run FILE.cu (or /kernels), chat with a merged checkpoint (`qgpu build`), or script the "
         "replies: restart with --script FILE (docs/chat-scripts.md)");
  const std::string system = system_prompt(options_.mode);
  if (messages_.empty() || messages_.front().content != system) {
    if (!messages_.empty() && messages_.front().role == "system") messages_.erase(messages_.begin());
    messages_.insert(messages_.begin(), {.role = "system", .content = system});
  }
  messages_.push_back({.role = "user", .content = std::string(user_text)});
  TurnResult out;
  int retries = 0;
  while (out.rounds < options_.max_rounds) {
    std::string reply = generate(events);
    ++out.rounds;
    bool again = options_.mode == Mode::normal ? normal_round(reply, out, events)
                                                : advanced_round(reply, out, retries, events);
    if (!again) return out;
  }
  if (events.on_notice)
    events.on_notice(fmt::format("stopped after {} replies without a final answer", options_.max_rounds));
  return out;
}

// Tool calls -> launches and tool responses (true: the model speaks again); none -> the answer.
bool Session::normal_round(const std::string& reply, TurnResult& out, const Events& events) {
  const ojson tools = library_tools();
  engine::ToolCallParse parse = engine::parse_tool_calls(reply, tools);
  std::string content = prose(parse.content);
  messages_.push_back({.role = "assistant", .content = content, .tool_calls = parse.calls});
  if (parse.calls.empty() && parse.error.empty()) {
    out.answer = content;
    return false;
  }
  if (!parse.error.empty()) {
    if (events.on_notice) events.on_notice("tool call error: " + parse.error);
    messages_.push_back({.role = "tool", .content = tool_response({{"error", parse.error}})});
  }
  for (const engine::ToolCall& call : parse.calls) {
    LaunchReport r{.tool = call.name, .arguments = call.arguments};
    try {
      PreparedCall prepared = prepare_call(call);
      r.file = prepared.file;
      r.kernel = prepared.kernel.kernel;
      r.program = prepared.kernel.program;
      r.launch = prepared.kernel.program.launch;
      r.output_arrays = prepared.kernel.outputs;
      r = launch(std::move(r), events, prepared.result);
    } catch (const ToolError& e) {
      r.error = e.what();
      r.result = {{"error", r.error}};
    }
    if (!r.error.empty() && events.on_notice) events.on_notice(fmt::format("{}: {}", call.name, r.error));
    messages_.push_back({.role = "tool", .content = tool_response(r.result)});
    out.launches.push_back(r);
    remember(r);
  }
  return true;
}

// A ```cuda block -> compile (errors go back, at most compile_retries times) and launch.
bool Session::advanced_round(const std::string& reply, TurnResult& out, int& retries, const Events& events) {
  std::optional<std::string> source = fenced_block(reply, "cuda");
  messages_.push_back({.role = "assistant", .content = reply});
  if (!source) {
    out.answer = prose(reply);
    return false;
  }
  LaunchReport r{.tool = "kernel", .file = "reply.cu"};
  try {
    CompileOptions o{.file = r.file, .float_sequences = true};  // the model runs it
    std::optional<std::string> options = fenced_block(reply, "launch");
    if (!options) fail("no ```launch block: give the launch options after the kernel, e.g. --grid 1 --block 4 --arg 'x=[1,2,3]'");
    parse_launch_options(split_words(*options), o);
    r.arguments = {{"launch", *options}};
    CompiledKernel k = compile_cuda_text(*source, o);
    // What the model cannot run (a float op in hand-written PTX it has no sequence for)
    // goes back like a compile error, so the language side can rewrite the kernel.
    if (std::optional<std::string> gap = host::generation_gap(k.program, k.program.launch))
      fail("the compiled model cannot generate this kernel's records yet: {}", *gap);
    r.kernel = k.kernel;
    r.program = k.program;
    r.launch = k.program.launch;
    r.output_arrays = k.outputs;
  } catch (const Error& e) {
    r.error = e.what();
    r.result = {{"error", fmt::format("compile error:\n{}", r.error)}};
    messages_.push_back({.role = "tool", .content = tool_response(r.result)});
    out.launches.push_back(r);
    remember(r);
    if (events.on_notice) events.on_notice(fmt::format("compile error (retry {} of {}): {}", retries + 1,
                                                       options_.compile_retries, r.error));
    if (++retries <= options_.compile_retries) return true;
    out.answer = fmt::format("The kernel did not compile after {} tries: {}", retries, r.error);
    return false;
  }
  r = launch(std::move(r), events);
  messages_.push_back({.role = "tool", .content = tool_response(r.result)});
  out.launches.push_back(r);
  remember(r);
  return true;
}

LaunchReport Session::run(const std::vector<std::string>& argv, const Events& events) {
  LaunchReport r{.tool = "run"};
  std::function<ojson(const MachineState&)> result;
  try {
    if (argv.empty()) fail("/run needs a kernel: /run FILE.cu [--grid X] [--block X] [--arg NAME=VALUE]...");
    std::string source;
    r.file = argv[0];
    const LibraryKernel* tool = nullptr;
    for (const LibraryKernel& k : library())
      if (argv[0] == k.name) r.file = k.file, source = chat_asset(k.file), tool = &k;
    const bool embedded = !source.empty();  // else a file on disk, compiled where it is (its #includes)
    if (!embedded) source = read_source(argv[0]);
    CompileOptions o{.file = r.file, .float_sequences = true};  // the model runs it
    parse_launch_options({argv.begin() + 1, argv.end()}, o);
    for (const KernelArg& a : o.args) r.arguments[a.name] = a.is_array ? ojson(a.values) : ojson(a.values.at(0));
    // A ready-made kernel given its tool's arguments alone (/run sort --arg values=[5,3,9,1]):
    // launched as the model's tool call would be, its outputs allocated and its launch sized.
    bool as_tool = tool != nullptr;
    for (const std::string& w : argv) as_tool = as_tool && w != "--grid" && w != "--block" && w != "--kernel";
    for (const KernelArg& a : o.args) as_tool = as_tool && tool->parameters["properties"].contains(a.name);
    if (as_tool) {
      PreparedCall prepared;
      try {
        prepared = prepare_call({.name = tool->name, .arguments = r.arguments});
      } catch (const ToolError& e) {
        fail("{}", e.what());
      }
      r.tool = tool->name;
      r.kernel = prepared.kernel.kernel;
      r.program = prepared.kernel.program;
      r.launch = prepared.kernel.program.launch;
      r.output_arrays = prepared.kernel.outputs;
      result = prepared.result;
      r = launch(std::move(r), events, result);
      remember(r);
      return r;
    }
    CompiledKernel k = embedded ? compile_cuda_text(source, o) : compile_cuda(source, o);
    r.kernel = k.kernel;
    r.program = k.program;
    r.launch = k.program.launch;
    r.output_arrays = k.outputs;
  } catch (const Error& e) {
    r.error = e.what();
    remember(r);
    return r;
  }
  r = launch(std::move(r), events);
  remember(r);
  return r;
}

void Session::remember(const LaunchReport& r) {
  launches_.push_back(r);
  last_ = r;
}

LaunchReport Session::launch(LaunchReport r, const Events& events,
                             const std::function<ojson(const MachineState&)>& result) {
  try {
    if (std::optional<std::string> gap = host::generation_gap(r.program, r.launch))
      fail("the compiled model cannot generate this kernel's records yet: {}", *gap);
    if (events.on_launch_start) events.on_launch_start(r);
    // One clock for the panel's tokens/s and the summary's: from the prompt read (and shown)
    // to the model's `end`, so the panel's last speed is the summary's.
    auto start = std::chrono::steady_clock::now();
    int64_t n = 0;
    host::RecordHook hook = [&](const Rec* rec, const engine::State& s) {
      if (rec) ++n;
      const double t = rec ? std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() : 0.0;
      if (rec && rec->kind == Tok::kEnd) r.seconds = t;
      const bool go = !events.on_launch_token || events.on_launch_token({model_, s, rec, n, t, r.program, r.launch});
      if (!rec) start = std::chrono::steady_clock::now();
      return go;
    };
    r.trace = host::launch_trace(host::launch(
        r.program, r.launch, model_, {.max_records = options_.max_records, .threads = options_.threads, .on_record = hook}));
    for (const Array& a : r.program.arrays)  // the kernel's parameters, not its __shared__ copies
      if (std::find(r.output_arrays.begin(), r.output_arrays.end(), a.name) != r.output_arrays.end())
        r.outputs[a.name] = array_json(a, read_array(r.trace.final, a));  // a float array's as floats
    r.result = result ? result(r.trace.final) : ojson{{"outputs", r.outputs}};
  } catch (const Error& e) {
    r.error = e.what();
    r.result = {{"error", r.error}};
  }
  if (events.on_launch_end) events.on_launch_end(r);
  return r;
}

ojson launch_json(const LaunchReport& r) {
  ojson j = {{"tool", r.tool}, {"arguments", r.arguments}, {"file", r.file}, {"kernel", r.kernel}};
  j["launch"] = {{"grid", {r.launch.grid_x, r.launch.grid_y}}, {"block", {r.launch.block_x, r.launch.block_y}}};
  j["outputs"] = r.outputs;
  j["result"] = r.result;
  j["records"] = r.trace.records.size();
  j["seconds"] = r.seconds;
  if (!r.error.empty()) j["error"] = r.error;
  return j;
}

ojson Session::transcript() const {
  ojson msgs = ojson::array();
  for (const engine::ChatMessage& m : messages_) {
    ojson j = {{"role", m.role}, {"content", m.content}};
    for (const engine::ToolCall& c : m.tool_calls)
      j["tool_calls"].push_back({{"name", c.name}, {"arguments", c.arguments}});
    msgs.push_back(j);
  }
  ojson launches = ojson::array();
  for (const LaunchReport& r : launches_) launches.push_back(launch_json(r));
  return {{"mode", mode_name(options_.mode)}, {"messages", msgs}, {"launches", launches}};
}

}  // namespace qgpu::chat
