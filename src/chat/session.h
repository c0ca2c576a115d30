// A conversation with the merged model, and the launches it makes on the same weights.
//
// normal mode: the system prompt offers the ready-made kernels (chat/library.h) as tools;
// the model calls one in Qwen3.5's tool-call format, the host validates and launches it,
// reads the result out of the model's recurrent state and answers with a tool response;
// the model then answers with the GPU's numbers. advanced mode: the system prompt carries
// the CUDA reference (docs/cuda-reference.md); the model writes a kernel in a ```cuda block
// and its launch in a ```launch block (the `qgpu run` options); compile errors go back to it
// (at most compile_retries times).
//
// The language side sits behind one seam, TextGenerator: the merged model's own generation
// (engine_generator), or a scripted one (scripted_generator) in tests, where no Qwen3.5
// weights exist. Launches always run on the real compiled model. The core is silent: the
// UI (ncurses, --plain, ask, eval) sees Events.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chat/panel.h"
#include "engine/chat_template.h"
#include "engine/model.h"
#include "engine/state_cache.h"
#include "engine/tokenizer.h"
#include "gpu/interp.h"

namespace qgpu::chat {

enum class Mode { normal, advanced };
Mode parse_mode(std::string_view text);  // "normal" | "advanced"; throws Error
const char* mode_name(Mode m);

// The language side reading its prompt before it replies: `fed` of `total` tokens, in
// `seconds` so far. total counts what it has not read yet (a prompt that extends the last
// one: what it adds; one that starts after the prompt cache's state: what follows it), so
// the first turn's is about the whole system prompt unless the cache holds it.
struct Prefill {
  int64_t fed = 0, total = 0;
  double seconds = 0;
  // Tokens before these whose state came from the prompt cache instead (the system block's:
  // engine/state_cache.h), in every report of the reply; not counted in fed or total.
  int64_t cached = 0;
  // One line about the cache for the user (its state was read from the disk, a damaged file
  // was rebuilt, it could not be written), in one report only: "" in the others. A report
  // that carries it may come before any token is read (fed 0).
  std::string note;
};

// The seam between the chat and a language model: the assistant's reply to a rendered
// prompt (the chat template's text, ending with the assistant's opening), streamed piece by
// piece through on_piece (false stops generation); on_prefill (may be null) sees the prompt
// read, chunk by chunk (false stops). Returns the whole reply.
struct TextGenerator {
  virtual ~TextGenerator() = default;
  virtual std::string reply(const std::string& prompt, const std::function<bool(std::string_view)>& on_piece,
                            const std::function<bool(const Prefill&)>& on_prefill) = 0;
};

struct GeneratorOptions {
  int max_tokens = 512;
  float temperature = 0.0f;  // greedy by default: answers are reproducible
  int threads = 2;
  // The prompt cache: the state after the prompt's system block (engine::system_block_length)
  // kept in memory, so that a fresh start (/reset, the next question) does not read it again;
  // and, with a directory, in a file there for the next process (engine/state_cache.h). Off:
  // every fresh start reads the whole prompt.
  bool prompt_cache = false;
  std::optional<engine::PromptStateDir> prompt_cache_dir;
};
// The merged checkpoint's own generation (GPU tokens masked, stops at <|im_end|>); keeps its
// recurrent state between calls and feeds only what a prompt adds to the last one; with the
// prompt cache, a prompt that starts over starts after its system block's state.
std::unique_ptr<TextGenerator> engine_generator(const engine::Model& m, const engine::Tokenizer& tok,
                                                GeneratorOptions options);
// The test seam: replies from a JSON script instead of a language model (see session.cpp).
std::unique_ptr<TextGenerator> scripted_generator(const std::string& script_path);

// One launch made by a turn or by /run.
struct LaunchReport {
  std::string tool;                                    // library tool, "kernel" (advanced) or "run"
  nlohmann::ordered_json arguments = nlohmann::ordered_json::object();
  std::string file;                                    // the CUDA source's name
  std::string kernel;
  Program program;
  Launch launch{1, 1, 4, 1};
  std::vector<std::string> output_arrays;              // the pointer parameters (what outputs holds)
  Trace trace;                                         // prompt, the model's records, memory read out
  nlohmann::ordered_json outputs = nlohmann::ordered_json::object();  // output arrays as read out
  nlohmann::ordered_json result = nlohmann::ordered_json::object();   // {"result": ...} or {"error": ...}
  double seconds = 0;                                  // generation: the prompt read to `end` (the panel's clock)
  std::string error;                                   // empty unless the launch did not run
};

struct Events {
  std::function<bool(const Prefill&)> on_prefill;           // the prompt read before a reply; false stops
  std::function<bool(std::string_view)> on_text;            // the reply, streamed; false stops it
  std::function<void(std::string_view)> on_notice;          // the host's lines: tool errors, retries
  std::function<void(const LaunchReport&)> on_launch_start;  // compiled, before the prompt is fed
  std::function<bool(const LaunchFeed&)> on_launch_token;   // every token of a launch; false stops
  std::function<void(const LaunchReport&)> on_launch_end;
};

struct TurnResult {
  std::string answer;                  // the final reply, tool calls and code blocks removed
  std::vector<LaunchReport> launches;
  int rounds = 0;                      // replies generated
};

struct SessionOptions {
  Mode mode = Mode::normal;
  int max_rounds = 4;        // replies per turn (tool calls and retries included)
  int compile_retries = 2;   // advanced mode
  int64_t max_records = 200000;
  int threads = 1;           // the launch's forward passes
};

class Session {
 public:
  // text is null for the GPU-only model (no language side): turns are an Error, launches work.
  Session(const engine::Model& model, TextGenerator* text, SessionOptions options);

  bool has_language() const { return text_ != nullptr; }
  TurnResult turn(std::string_view user_text, const Events& events);
  // A launch in `qgpu run` syntax: FILE.cu (or a ready-made kernel's name) [--kernel K]
  // [--grid G] [--block B] [--arg NAME=VALUE]...; errors come back in .error. A ready-made
  // kernel given only its tool's arguments launches as the tool call would (outputs allocated).
  LaunchReport run(const std::vector<std::string>& argv, const Events& events);

  void reset();  // forget the conversation (the mode stays)
  void set_mode(Mode m) { options_.mode = m; }
  Mode mode() const { return options_.mode; }
  const std::vector<engine::ChatMessage>& messages() const { return messages_; }
  const std::optional<LaunchReport>& last_launch() const { return last_; }
  // {"mode", "messages": [{role, content, tool_calls?}], "launches": [...]} for /save.
  nlohmann::ordered_json transcript() const;

 private:
  // Fills trace, outputs, error and result: result(final state) for a tool, else the outputs.
  LaunchReport launch(LaunchReport report, const Events& events,
                      const std::function<nlohmann::ordered_json(const MachineState&)>& result = {});
  void remember(const LaunchReport& r);                             // for /trace, /save
  std::string generate(const Events& events);
  bool normal_round(const std::string& reply, TurnResult& out, const Events& events);
  bool advanced_round(const std::string& reply, TurnResult& out, int& retries, const Events& events);

  const engine::Model& model_;
  TextGenerator* text_;
  SessionOptions options_;
  std::vector<engine::ChatMessage> messages_;
  std::vector<LaunchReport> launches_;
  std::optional<LaunchReport> last_;
};

// The system prompts of the two modes (normal: how to use the tools; advanced: the CUDA
// reference and the reply format).
std::string system_prompt(Mode m);

// {"kernel", "tool", "arguments", "launch", "outputs", "result", "records", "seconds", "error"}.
nlohmann::ordered_json launch_json(const LaunchReport& r);

}  // namespace qgpu::chat
