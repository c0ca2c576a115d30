// `qgpu chat [MODEL_DIR] [--plain]`, `qgpu ask MODEL_DIR QUESTION` and `qgpu eval MODEL_DIR`:
// a conversation with a merged checkpoint whose answers come from launches on its own
// weights (src/chat/session.h). Without MODEL_DIR, chat runs on the GPU-only model (built
// in memory), which has no language side: the / commands still launch kernels with the panel.
// --script FILE replaces the language side with a scripted one (the tests' seam;
// docs/chat-scripts.md).
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "chat/commands.h"
#include "chat/eval.h"
#include "chat/panel.h"
#include "chat/session.h"
#include "chat/tui.h"
#include "commands.h"
#include "engine/state_cache.h"
#include "engine/tokenizer.h"

namespace qgpu {
namespace {

using ojson = nlohmann::ordered_json;

struct ChatArgs {
  std::string model, dtype, script, mode = "normal", question;
  int threads = 2, max_tokens = 512, slow_ms = 0, samples = 0;
  bool plain = false, json = false, no_panel = false, print_prompt_tokens = false;
  bool no_prompt_cache = false;
};

// The model, its language side (null for the GPU-only model without --script) and the
// greeting that says which it is.
struct Loaded {
  std::string dir;
  engine::Model model;
  std::optional<engine::Tokenizer> tokenizer;
  std::unique_ptr<chat::TextGenerator> text;
  std::string greeting;
};

[[noreturn]] void no_language(const std::string& name) {
  fail("{} is the GPU-only model: it has no language model to answer in words. Merge the GPU into "
       "Qwen3.5 with `qgpu build --base Qwen/Qwen3.5-2B --out build/merged-2b` and pass that directory, "
       "or script the replies with --script FILE (docs/chat-scripts.md)",
       name);
}

std::unique_ptr<Loaded> load(const ChatArgs& a, bool need_language) {
  // Refused before the GPU is made (a second, and 8 s under ASan, for nothing).
  if (need_language && a.script.empty() && (a.model.empty() || a.model == "gpu")) no_language("`gpu`");
  auto l = std::make_unique<Loaded>();
  NamedModel named = load_named_model(a.model, a.dtype);
  l->dir = named.name;
  l->model = std::move(named.model);
  const bool merged = l->model.config.qgpu.has_value();
  // The GPU-only model's vocabulary is the GPU's tokens (rounded up to a multiple of 64).
  const bool gpu_only = !merged && l->model.config.vocab_size >= vocab_size() && l->model.config.vocab_size < vocab_size() + 64;
  if (!merged && !gpu_only)
    fail("{}: a Qwen3.5 checkpoint without the GPU (config.json has no \"qgpu\" object): merge it first with "
         "`qgpu build --base {} --out DIR` and chat with DIR", l->dir, l->dir);
  if (!a.script.empty()) {
    l->text = chat::scripted_generator(a.script);
    l->greeting = fmt::format("{}: language side scripted by {} (a test seam); launches run on the model", l->dir, a.script);
  } else if (merged) {
    l->tokenizer = engine::load_tokenizer((std::filesystem::path(l->dir) / "tokenizer.json").string());
    chat::GeneratorOptions o{.max_tokens = a.max_tokens, .threads = a.threads, .prompt_cache = !a.no_prompt_cache};
    if (!a.no_prompt_cache) o.prompt_cache_dir = engine::default_prompt_state_dir();
    l->text = chat::engine_generator(l->model, *l->tokenizer, o);
    l->greeting = fmt::format("{}: Qwen3.5 with the GPU merged in; ask in words, or / for commands", l->dir);
  } else {
    if (need_language) no_language(l->dir);  // a GPU-only checkpoint on disk
    l->greeting = fmt::format(
        "{}: the GPU-only model (the compiled GPU's layers, no language model), so it cannot answer in words. "
        "/run FILE.cu or /kernels launch kernels with the panel; for chat, merge it into Qwen3.5 with "
        "`qgpu build` and run `qgpu chat build/merged-2b`, or script the replies with --script FILE "
        "(docs/chat-scripts.md). / lists the commands.",
        named.gpu_only_in_memory ? "No checkpoint given" : l->dir);
  }
  return l;
}

// A long prompt's reading, on stderr (stdout stays the answer, or --json's object): on a
// terminal one line redrawn in place, else a line each quarter of the prompt and at its end;
// the prompt cache's line (a state read from it, a damaged file) on a line of its own.
std::function<bool(const chat::Prefill&)> prefill_meter() {
  const bool tty = isatty(2);
  auto due = std::make_shared<int64_t>(0);  // the next plain line: when this many are read
  return [tty, due](const chat::Prefill& p) {
    if (!p.note.empty()) fmt::print(stderr, "{}[qgpu] {}\n", tty ? "\r\033[K" : "", p.note);
    if (p.total <= chat::kPrefillShown || p.fed == 0) return true;
    const bool end = p.fed == p.total;
    if (tty) {
      fmt::print(stderr, "\r\033[K[qgpu] {}{}", chat::prefill_line(p), end ? "\n" : "");
    } else if (end || p.fed >= *due) {
      fmt::print(stderr, "[qgpu] {}\n", chat::prefill_line(p));
      *due = end ? 0 : p.fed + p.total / 4;
    }
    return true;
  };
}

// ask --json's clock starts with the process (this file's static initialisation, before main).
const auto kProcessStart = std::chrono::steady_clock::now();
double since_start() { return std::chrono::duration<double>(std::chrono::steady_clock::now() - kProcessStart).count(); }

// ask's view of its language side (bench/run_chat_bench.sh reads it): the first reply's
// prompt, when that prompt's reading ended (its last chunk's forward gives the first token's
// logits; picking the token is an argmax) and how many of its tokens were read (the others
// came from the prompt-state cache). print_only: keep the prompt, generate nothing.
struct FirstReply : chat::TextGenerator {
  std::unique_ptr<chat::TextGenerator> text;
  bool print_only = false;
  std::optional<std::string> prompt;
  double first_token_seconds = -1;
  int64_t read = -1;
  std::string reply(const std::string& p, const std::function<bool(std::string_view)>& on_piece,
                    const std::function<bool(const chat::Prefill&)>& on_prefill) override {
    if (prompt) return text->reply(p, on_piece, on_prefill);
    prompt = p;
    if (print_only) return "";
    return text->reply(p, on_piece, [&](const chat::Prefill& x) {
      if (x.fed == x.total) first_token_seconds = since_start(), read = x.total;
      return !on_prefill || on_prefill(x);
    });
  }
};

chat::Session make_session(Loaded& l, const ChatArgs& a) {
  return chat::Session(l.model, l.text.get(), {.mode = chat::parse_mode(a.mode), .threads = 1});
}

// Plain mode's stdout. A reply streams in pieces and may end mid-line (a tool call's
// `</tool_call>`); the host's lines ([qgpu] ..., the panel, the next prompt) each start a line.
struct PlainOut {
  bool mid_line = false;
  void text(std::string_view t) {
    if (t.empty()) return;
    fmt::print("{}", t);
    std::fflush(stdout);
    mid_line = t.back() != '\n';
  }
  void end_line() {
    if (mid_line) fmt::print("\n");
    mid_line = false;
  }
  void line(std::string_view l) { end_line(), fmt::print("{}\n", l); }
};

// Plain mode: a line in, lines out (scripts and CI). The panel, when on, is printed once
// after each launch, from the model's state at its last token. A line read from a pipe or a
// file is echoed after the prompt, as a terminal would show it, so the transcript reads
// `> question`, the reply, the launch's lines, the answer.
int run_plain(chat::Session& s, const std::string& greeting, bool panel) {
  PlainOut out;
  const bool echo = !isatty(0);
  out.line(greeting);
  std::optional<chat::PanelSnapshot> snap;
  const auto print_panel = [&] {
    if (snap) for (const std::string& l : chat::render_panel(*snap, 100)) out.line(l);
  };
  chat::Events ev;
  ev.on_prefill = prefill_meter();
  ev.on_text = [&](std::string_view t) { return out.text(t), true; };
  ev.on_notice = [&](std::string_view t) { out.line(fmt::format("[qgpu] {}", t)); };
  ev.on_launch_start = [&](const chat::LaunchReport& r) {
    out.line(fmt::format("[qgpu] launch {} ({}) inside the model...", r.kernel, r.file));
    snap.reset();
  };
  ev.on_launch_token = [&](const chat::LaunchFeed& f) {
    if (!panel) return true;
    if (!f.record || f.record->kind == Tok::kEnd) {  // the state is read after the prompt and at the end
      snap = chat::read_snapshot(f, f.record && snap ? &*snap : nullptr);
    } else if (snap) {
      chat::note_record(*snap, f);  // the others only followed (the register types)
    }
    return true;
  };
  ev.on_launch_end = [&](const chat::LaunchReport& r) {
    for (const std::string& l : chat::launch_lines(r)) out.line("[qgpu] " + l);
    print_panel();
  };
  chat::Events command_ev = ev;
  command_ev.on_launch_end = nullptr;  // a /run's summary is the command's lines, its panel after them
  std::string line;
  while (fmt::print("> "), std::fflush(stdout), std::getline(std::cin, line)) {
    if (echo) fmt::print("{}\n", line);
    if (line.empty()) continue;
    try {
      if (line[0] == '/') {
        if (line.starts_with("/run")) snap.reset();  // a /run that fails to compile shows no panel
        chat::CommandOutcome o = chat::run_command(s, line, command_ev);
        for (const std::string& l : o.lines) out.line(l);
        if (o.panel) panel = *o.panel;
        if (line.starts_with("/run")) print_panel();
        if (o.quit) return 0;
        continue;
      }
      s.turn(line, ev);
      out.end_line();
    } catch (const std::exception& e) {
      out.line(fmt::format("[qgpu] error: {}", e.what()));
    }
  }
  fmt::print("\n");
  return 0;
}

void chat_command(const ChatArgs& a) {
  std::unique_ptr<Loaded> l = load(a, false);
  chat::Session s = make_session(*l, a);
  if (a.plain || !isatty(0) || !isatty(1)) {
    if (int rc = run_plain(s, l->greeting, !a.no_panel); rc != 0) std::exit(rc);
    return;
  }
  if (int rc = chat::run_tui(s, {.panel = !a.no_panel, .slow_ms = a.slow_ms, .greeting = l->greeting}); rc != 0)
    std::exit(rc);
}

void ask_command(const ChatArgs& a) {
  std::unique_ptr<Loaded> l = load(a, true);
  if (a.print_prompt_tokens && !l->tokenizer) fail("--print-prompt-tokens needs the checkpoint's tokenizer (not --script)");
  auto first = std::make_unique<FirstReply>();
  FirstReply& f = *first;
  f.text = std::move(l->text);
  f.print_only = a.print_prompt_tokens;
  l->text = std::move(first);
  chat::Session s = make_session(*l, a);
  const double load_s = since_start();
  chat::Events ev;
  ev.on_prefill = prefill_meter();
  if (!a.json) {
    ev.on_notice = [](std::string_view t) { fmt::print(stderr, "[qgpu] {}\n", t); };
    ev.on_launch_end = [](const chat::LaunchReport& r) {
      for (const std::string& line : chat::launch_lines(r)) fmt::print(stderr, "[qgpu] {}\n", line);
    };
  }
  chat::TurnResult t = s.turn(a.question, ev);
  if (a.print_prompt_tokens) {
    std::string ids;
    for (int32_t id : l->tokenizer->encode(*f.prompt)) ids += fmt::format("{}{}", ids.empty() ? "" : ",", id);
    return fmt::print("{}\n", ids);
  }
  if (!a.json) return fmt::print("{}\n", t.answer);
  ojson launches = ojson::array();
  for (const chat::LaunchReport& r : t.launches) launches.push_back(chat::launch_json(r));
  ojson j{{"model", l->dir}, {"mode", a.mode}, {"question", a.question}, {"answer", t.answer},
          {"rounds", t.rounds}, {"launches", launches}, {"load_seconds", load_s}};
  if (l->tokenizer && f.read >= 0) {
    const int64_t n = static_cast<int64_t>(l->tokenizer->encode(*f.prompt).size());
    j["first_token_seconds"] = f.first_token_seconds;
    j["prompt_tokens"] = n;
    j["prompt_tokens_from_cache"] = n - f.read;
  }
  fmt::print("{}\n", j.dump(-1, ' ', false, ojson::error_handler_t::replace));
}

void eval_command(const ChatArgs& a) {
  std::unique_ptr<Loaded> l = load(a, true);
  std::vector<chat::Mode> modes;
  if (a.mode == "both") modes = {chat::Mode::normal, chat::Mode::advanced};
  else modes = {chat::parse_mode(a.mode)};
  ojson report = {{"model", l->dir}, {"modes", ojson::array()}};
  for (chat::Mode m : modes) {
    chat::EvalReport r = chat::run_eval(l->model, *l->text, m, a.samples, [&](const chat::EvalRow& row) {
      if (!a.json) fmt::print(stderr, "{}\n", chat::eval_row_text(row));
    });
    if (!a.json) fmt::print("{}\n", chat::eval_summary_text(r));
    report["modes"].push_back(chat::eval_json(r));
  }
  if (a.json) fmt::print("{}\n", report.dump(-1, ' ', false, ojson::error_handler_t::replace));
}

void add_common(CLI::App* cmd, ChatArgs& a) {
  cmd->add_option("--mode", a.mode, "normal (ready-made kernels as tools) or advanced (the model writes CUDA)");
  cmd->add_option("--dtype", a.dtype, "f32, bf16 or f16 (default: the checkpoint's own)");
  cmd->add_option("--threads", a.threads, "Threads for the language model's forward passes");
  cmd->add_option("--max-tokens", a.max_tokens, "Longest reply in tokens");
  cmd->add_flag("--no-prompt-cache", a.no_prompt_cache,
                "Read the system prompt at every start: keep its state neither in memory nor in the prompt\n"
                "cache's files ($QGPU_CACHE_DIR/prompt-states; `qgpu cache` lists them)");
  cmd->add_option("--script", a.script,
                  "Replies from a JSON file instead of the language model (tests; no Qwen3.5 weights needed):\n"
                  "{\"rules\": [{\"when\": TEXT, \"reply\": TEXT}, ...]}: the first rule whose `when` occurs in\n"
                  "the last user message (or tool response) replies; {{result}}, {{outputs}}, {{error}} in a\n"
                  "reply are the last tool response's. Launches still run on the model. docs/chat-scripts.md")
      ->type_name("FILE");
}

}  // namespace

void add_chat_commands(CLI::App& app) {
  auto a = std::make_shared<ChatArgs>();
  auto* chat = app.add_subcommand("chat", "Talk to the merged model; its GPU runs the kernels, with a live panel");
  chat->add_option("model", a->model,
                   "Merged checkpoint directory (from `qgpu build`). Without one (or `gpu`): the GPU-only\n"
                   "model, built in memory, with no language model: the / commands only, or --script's replies");
  chat->add_flag("--plain", a->plain, "No terminal UI: a line in, lines out");
  chat->add_option("--slow", a->slow_ms, "Pause MS milliseconds after each launch token (to watch the panel)");
  chat->add_flag("--no-panel", a->no_panel, "Start with the panel hidden");
  add_common(chat, *a);
  chat->callback([a] { chat_command(*a); });

  auto* ask = app.add_subcommand("ask", "One question to the merged model; print its answer");
  ask->add_option("model", a->model, "Merged checkpoint directory, or `gpu` (the GPU-only model) with --script")->required();
  ask->add_option("question", a->question, "The question")->required();
  ask->add_flag("--json", a->json,
                "Print {answer, launches: [...], rounds, load_seconds} and, with the model's language side,\n"
                "first_token_seconds (both from process start), prompt_tokens, prompt_tokens_from_cache");
  ask->add_flag("--print-prompt-tokens", a->print_prompt_tokens,
                "Print the first reply's prompt (the chat template with --mode's system prompt and the\n"
                "question) as comma-separated token ids, as `qgpu generate --tokens` takes them; generate nothing");
  add_common(ask, *a);
  ask->callback([a] { ask_command(*a); });

  auto* eval = app.add_subcommand("eval", "The shipped questions with known answers: how often the model is right");
  eval->add_option("model", a->model, "Merged checkpoint directory, or `gpu` (the GPU-only model) with --script")->required();
  eval->add_option("--samples", a->samples, "Ask only the first N questions (default: all)");
  eval->add_flag("--json", a->json, "Print the report as JSON");
  add_common(eval, *a);
  eval->callback([a] { eval_command(*a); });
}

}  // namespace qgpu
