// The two sides of the TextGenerator seam. engine_generator is the merged checkpoint's
// own greedy (or sampled) generation: it keeps the recurrent state after the last reply
// and, when the next prompt extends what it has fed (a tool response after a tool call),
// feeds only the new tokens; otherwise it starts over. It reads a prompt in chunks and
// reports each (on_prefill): the first turn's system prompt is thousands of tokens. With
// the prompt cache on, starting over begins after the prompt's system block (the prefix)
// when the prompt's tokens begin with the block's own: from the state kept in memory, else
// from the prompt cache's file (engine/state_cache.h), else by reading the prefix, then
// keeping its state in both. scripted_generator is the one fake
// the tests use where no Qwen3.5 weights exist: replies come from a JSON script
// (docs/chat-scripts.md: the format, and examples tests/chat_scripts_test.cpp runs),
//
//   {"rules": [{"when": "sum of 12", "reply": "<tool_call>...</tool_call>"},
//              {"when": "<tool_response>", "reply": "The sum is {{result}}."}]}
//
// The first rule whose `when` occurs in the prompt's last user block (a question, or the
// tool responses the template wraps in one) replies; a rule without `when` always matches.
// {{result}}, {{outputs}} and {{error}} are that field of the last tool response's JSON.
#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <sstream>

#include "base/error.h"
#include "base/text_file.h"
#include "chat/commands.h"
#include "chat/session.h"
#include "engine/generate.h"

namespace qgpu::chat {
namespace {

using ojson = nlohmann::ordered_json;

// Bytes of s that end on a whole UTF-8 character.
size_t complete_utf8(std::string_view s) {
  size_t n = s.size(), back = 0;
  while (back < 4 && back < n && (static_cast<unsigned char>(s[n - 1 - back]) & 0xC0) == 0x80) ++back;
  if (back == n) return n;
  unsigned char lead = static_cast<unsigned char>(s[n - 1 - back]);
  size_t want = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
  return back + 1 >= want ? n : n - back - 1;
}

// s with every byte that is not part of a valid UTF-8 character replaced by U+FFFD: a
// sampled token sequence may cut or garble a character, and JSON (tool calls, --json, /save)
// needs valid text.
std::string valid_utf8(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = b(i);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 && c >= 0xC2 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 && c <= 0xF4 ? 4 : 0;
    bool ok = n > 0 && i + n <= s.size();
    for (size_t k = 1; ok && k < n; ++k) ok = (b(i + k) & 0xC0) == 0x80;
    if (ok && n == 3) ok = !(c == 0xE0 && b(i + 1) < 0xA0) && !(c == 0xED && b(i + 1) >= 0xA0);
    if (ok && n == 4) ok = !(c == 0xF0 && b(i + 1) < 0x90) && !(c == 0xF4 && b(i + 1) >= 0x90);
    if (ok) out.append(s.substr(i, n)), i += n;
    else out += "\xEF\xBF\xBD", i += 1;
  }
  return out;
}

// A reply's reading of its prompt, as on_prefill sees it: `total` tokens to read after the
// `kept` ones (fed before, or restored from the prompt cache: `cached` of them), and the
// cache's note until a report carries it. Every report moves fed (the generator's fed_) along.
struct PromptReading {
  const std::vector<int32_t>& ids;
  std::vector<int32_t>& fed;
  const std::function<bool(const Prefill&)>& on_prefill;
  size_t kept = 0;
  int64_t cached = 0;
  std::string note;
  bool stopped = false;  // on_prefill said false: fed holds what was read
  const std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();

  int64_t total() const { return static_cast<int64_t>(ids.size() - kept); }
  // n of total read; false when on_prefill stops the reading.
  bool report(int64_t n) {
    fed.assign(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(kept + static_cast<size_t>(n)));
    if (!on_prefill) return true;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    stopped = !on_prefill({.fed = n, .total = total(), .seconds = seconds, .cached = cached, .note = std::exchange(note, {})});
    return !stopped;
  }
};

class EngineGenerator : public TextGenerator {
 public:
  EngineGenerator(const engine::Model& m, const engine::Tokenizer& tok, GeneratorOptions o)
      : m_(m), tok_(tok), o_(o), ro_{.threads = o.threads, .skip_zero_rows = m.config.qgpu.has_value()}, rt_(m, ro_),
        s_(engine::make_state(m.config)) {
    for (std::string_view stop : {"<|im_end|>", "<|endoftext|>"})
      if (std::optional<int32_t> id = tok.token_id(stop)) stops_.push_back(*id);
    for (int32_t id : m.config.eos_token_id) stops_.push_back(id);
    mask_ = engine::text_mask(m.config, &tok);
  }

  std::string reply(const std::string& prompt, const std::function<bool(std::string_view)>& on_piece,
                    const std::function<bool(const Prefill&)>& on_prefill) override {
    const std::vector<int32_t> ids = tok_.encode(prompt);
    if (o_.prompt_cache) set_prefix(prompt.substr(0, engine::system_block_length(prompt)));
    unread(ids);
    PromptReading r{.ids = ids, .fed = fed_, .on_prefill = on_prefill};
    if (fed_.empty() && extends_prefix(ids)) r.cached = restore_prefix(r.note);
    r.kept = fed_.size();
    std::vector<int32_t> said;
    std::string text;  // valid UTF-8, up to the last whole character decoded so far
    size_t shown = 0;
    engine::GenerateOptions g{.max_tokens = o_.max_tokens, .sampling = {.temperature = o_.temperature},
                              .stop_tokens = stops_, .mask = mask_};
    g.on_token = [&](int32_t t, std::span<const float>) {
      if (std::find(stops_.begin(), stops_.end(), t) != stops_.end()) return true;
      said.push_back(t);
      const std::string raw = tok_.decode(said, /*skip_special=*/true);
      text = valid_utf8(std::string_view(raw).substr(0, complete_utf8(raw)));
      if (text.size() <= shown) return true;
      bool go_on = on_piece(std::string_view(text).substr(shown));
      shown = text.size();
      return go_on;
    };
    std::vector<int32_t> out;
    try {
      if (!r.note.empty() && !r.report(0)) return "";  // the cache's line before the reading
      const int64_t pre = feed_prefix(ids, r);
      if (r.stopped) return "";
      if (on_prefill) g.on_prefill = [&](int64_t fed, int64_t) { return r.report(pre + fed); };
      out = engine::generate(rt_, s_, std::span<const int32_t>(ids).subspan(fed_.size()), g);
    } catch (const std::exception&) {  // s_ is part-way through: the next reply starts over
      s_ = engine::make_state(m_.config);
      fed_.clear();
      throw;
    }
    if (r.stopped) return "";
    fed_ = ids;
    fed_.insert(fed_.end(), out.begin(), out.end());
    text = valid_utf8(tok_.decode(said, /*skip_special=*/true));  // a cut last character too
    if (shown < text.size()) on_piece(std::string_view(text).substr(shown));
    return text;
  }

 private:
  // What follows fed_ in ids is what this reply reads: when ids does not extend fed_, s_
  // starts over from a fresh state. The invariant: s_ is the state after fed_.
  void unread(const std::vector<int32_t>& ids) {
    if (fed_.size() < ids.size() && std::equal(fed_.begin(), fed_.end(), ids.begin())) return;
    s_ = engine::make_state(m_.config);
    fed_.clear();
  }

  // The prompt prefix whose state the prompt cache keeps: the system block; another one
  // (another mode's) replaces it.
  void set_prefix(const std::string& text) {
    if (text == prefix_text_) return;
    prefix_text_ = text;
    prefix_ids_ = text.empty() ? std::vector<int32_t>{} : tok_.encode(text);
    snapshot_.reset();
    key_.reset();
    key_tried_ = false;
  }

  // Whether the prompt cache applies: ids is the prompt prefix's tokens and more (the prefix
  // text's tokens, checked: the tokenization at the boundary could differ).
  bool extends_prefix(const std::vector<int32_t>& ids) const {
    return o_.prompt_cache && !prefix_ids_.empty() && ids.size() > prefix_ids_.size() &&
           std::equal(prefix_ids_.begin(), prefix_ids_.end(), ids.begin());
  }

  // The prompt-cache file's key (engine/state_cache.h), made once per prefix; false: no
  // file for this model (the GPU-only model) or no directory. note: why, when it failed.
  bool prefix_key(std::string& note) {
    if (!o_.prompt_cache_dir) return false;
    if (!key_tried_) {
      key_tried_ = true;
      try {
        key_ = engine::prompt_state_key(m_, ro_, prefix_ids_);
      } catch (const Error& e) {
        note = fmt::format("prompt cache: not used: {}", e.what());
      }
    }
    return key_.has_value();
  }

  // The state after the prompt prefix into s_ and fed_, from memory or else from the prompt
  // cache's file; returns its tokens (0: neither holds it). note: the cache's line.
  int64_t restore_prefix(std::string& note) {
    if (!snapshot_ && prefix_key(note)) {
      engine::PromptStateLoad l = engine::load_prompt_state(*o_.prompt_cache_dir, m_.config, *key_);
      note = l.problem;
      if (l.state) {
        snapshot_ = std::move(l.state);
        note = fmt::format("the system prompt's state from the prompt cache ({} tokens)", grouped(std::ssize(prefix_ids_)));
      }
    }
    if (!snapshot_) return 0;
    s_ = *snapshot_;
    fed_ = prefix_ids_;
    return std::ssize(prefix_ids_);
  }

  // Reads what fed_ lacks of the prompt prefix (when ids extends it), in kPrefillChunk
  // pieces reported to r, then keeps the state after it; returns the tokens read.
  int64_t feed_prefix(const std::vector<int32_t>& ids, PromptReading& r) {
    if (!extends_prefix(ids) || fed_.size() >= prefix_ids_.size()) return 0;
    const int64_t n = std::ssize(prefix_ids_) - std::ssize(fed_);
    std::vector<float> logits;
    for (int64_t done = 0; done < n;) {
      const int64_t k = r.on_prefill ? std::min(engine::kPrefillChunk, n - done) : n - done;
      rt_.forward(s_, std::span<const int32_t>(ids).subspan(r.kept + static_cast<size_t>(done), static_cast<size_t>(k)),
                  logits);
      done += k;
      if (!r.report(done)) return done;
    }
    keep_prefix(r.note);
    return n;
  }

  // s_ (after the prompt prefix) kept in memory and, with a directory, in the prompt cache.
  void keep_prefix(std::string& note) {
    snapshot_ = s_;
    if (!prefix_key(note)) return;
    try {
      if (!engine::save_prompt_state(*o_.prompt_cache_dir, s_, *key_))
        note = fmt::format("prompt cache: the system prompt's state is larger than the cache's budget of {} MB "
                           "(QGPU_PROMPT_CACHE_MAX_MB): kept in memory only",
                           o_.prompt_cache_dir->max_bytes >> 20);
    } catch (const Error& e) {
      note = fmt::format("prompt cache: {}; the state is kept in memory only", e.what());
    }
  }

  const engine::Model& m_;
  const engine::Tokenizer& tok_;
  GeneratorOptions o_;
  engine::RuntimeOptions ro_;
  engine::Runtime rt_;
  engine::State s_;
  std::vector<int32_t> stops_, fed_;
  engine::LogitMask mask_;
  // The prompt cache: the prefix, its tokens, the state after them, the file's key.
  std::string prefix_text_;
  std::vector<int32_t> prefix_ids_;
  std::optional<engine::State> snapshot_;
  std::optional<std::string> key_;
  bool key_tried_ = false;
};

class ScriptedGenerator : public TextGenerator {
 public:
  explicit ScriptedGenerator(const std::string& path) : path_(path) {
    const std::string text = read_text_file(path, kMaxJsonBytes, "--script file");
    try {
      ojson j = ojson::parse(text);
      for (const ojson& r : j.at("rules")) rules_.push_back({r.value("when", ""), r.at("reply").get<std::string>()});
    } catch (const nlohmann::json::exception& e) {
      fail("--script {}: expected {{\"rules\": [{{\"when\": TEXT, \"reply\": TEXT}}, ...]}}: {}", path, e.what());
    }
  }

  // No tokenizer, nothing to read: on_prefill is never called.
  std::string reply(const std::string& prompt, const std::function<bool(std::string_view)>& on_piece,
                    const std::function<bool(const Prefill&)>&) override {
    std::string_view last = prompt;
    if (size_t at = last.rfind("<|im_start|>user\n"); at != std::string_view::npos) last = last.substr(at);
    for (const auto& [when, reply] : rules_) {
      if (!when.empty() && last.find(when) == std::string_view::npos) continue;
      std::string text = fill(reply, last);
      for (size_t at = 0; at < text.size();) {  // word by word, as a model streams
        size_t end = text.find(' ', at + 1);
        end = end == std::string::npos ? text.size() : end;
        if (!on_piece(std::string_view(text).substr(at, end - at))) break;
        at = end;
      }
      return text;
    }
    fail("--script {}: no rule matches the last message: {}", path_, std::string(last.substr(0, 200)));
  }

 private:
  // {{result}}, {{outputs}}, {{error}} from the last tool response in `last`.
  static std::string fill(std::string text, std::string_view last) {
    ojson response;
    if (size_t open = last.rfind("<tool_response>\n"); open != std::string_view::npos) {
      size_t from = open + 16, close = last.find("\n</tool_response>", from);
      response = ojson::parse(last.substr(from, close - from), nullptr, /*allow_exceptions=*/false);
    }
    for (const char* key : {"result", "outputs", "error"}) {
      std::string slot = fmt::format("{{{{{}}}}}", key);
      for (size_t at; (at = text.find(slot)) != std::string::npos;) {
        std::string value = response.is_object() && response.contains(key)
                                ? (response[key].is_string() ? response[key].get<std::string>()
                                                             : engine::template_tojson(response[key]))
                                : "(none)";
        text.replace(at, slot.size(), value);
      }
    }
    return text;
  }

  std::string path_;
  std::vector<std::pair<std::string, std::string>> rules_;
};

}  // namespace

std::unique_ptr<TextGenerator> engine_generator(const engine::Model& m, const engine::Tokenizer& tok,
                                                GeneratorOptions options) {
  return std::make_unique<EngineGenerator>(m, tok, options);
}

std::unique_ptr<TextGenerator> scripted_generator(const std::string& script_path) {
  return std::make_unique<ScriptedGenerator>(script_path);
}

}  // namespace qgpu::chat
