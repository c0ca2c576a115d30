// The engine's subcommands:
//   qgpu forward MODEL --tokens 1,2,3 [--dtype f32|bf16|f16] [--json] [--top K] [--reference]
//                [--rounding llama|transformers]
//   qgpu generate MODEL (--prompt TEXT | --tokens ...) [--max-tokens N] [--chat]
//                 [--temperature T --top-k K --top-p P --seed S] [--json]
//   qgpu convert MODEL --out FILE.gguf [--dtype f32|bf16|f16]
//   qgpu tiny-model --out DIR [--mergeable] [--hidden 64 --layers LLLF ...]
// MODEL is a Hugging Face checkpoint directory or a .gguf file.
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "commands.h"
#include "host/gpu_model.h"
#include "engine/chat_template.h"
#include "engine/forward.h"
#include "engine/generate.h"
#include "engine/tiny_model.h"
#include "engine/tokenizer.h"
#include "lift/machine_model.h"

namespace qgpu {
namespace {

using namespace engine;
using Clock = std::chrono::steady_clock;

std::vector<int32_t> parse_tokens(const std::string& text) {
  std::vector<int32_t> out;
  size_t i = 0;
  while (i < text.size()) {
    size_t j = text.find(',', i);
    if (j == std::string::npos) j = text.size();
    std::string item = text.substr(i, j - i);
    char* end = nullptr;
    long v = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || v < 0 || v > INT32_MAX)
      fail("--tokens '{}': '{}' is not a token id (expected comma-separated integers >= 0)", text, item);
    out.push_back(static_cast<int32_t>(v));
    i = j + 1;
  }
  if (out.empty()) fail("--tokens: give at least one token id, e.g. --tokens 1,2,3");
  return out;
}

std::optional<DType> dtype_option(const std::string& s) {
  if (s.empty()) return std::nullopt;
  auto t = parse_dtype(s);
  if (!t) fail("--dtype {}: expected f32, bf16 or f16", s);
  return t;
}

std::string tokenizer_path(const std::string& model) {
  namespace fs = std::filesystem;
  std::string dir = fs::is_directory(model) ? model : fs::path(model).parent_path().string();
  std::string p = (fs::path(dir.empty() ? "." : dir) / "tokenizer.json").string();
  if (!fs::exists(p)) fail("{}: no tokenizer.json next to the model (needed for --prompt)", p);
  return p;
}

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

struct ForwardArgs {
  std::string model, tokens, dtype, rounding = "llama";
  bool json = false, reference = false;
  int top = 0, threads = 0;
};

void print_position(const std::vector<float>& logits, int64_t pos, int64_t V, int top) {
  const float* row = logits.data() + pos * V;
  if (top <= 0) {
    std::string line;
    for (int64_t v = 0; v < V; ++v) line += fmt::format("{}{:.6g}", v ? " " : "", row[v]);
    return fmt::print("{}\n", line);
  }
  std::vector<int32_t> ids(V);
  for (int64_t v = 0; v < V; ++v) ids[v] = static_cast<int32_t>(v);
  std::partial_sort(ids.begin(), ids.begin() + std::min<int64_t>(top, V), ids.end(),
                    [&](int32_t a, int32_t b) { return row[a] > row[b]; });
  std::string line = fmt::format("pos {}:", pos);
  for (int64_t k = 0; k < std::min<int64_t>(top, V); ++k)
    line += fmt::format(" {}={:.6g}", ids[k], row[ids[k]]);
  fmt::print("{}\n", line);
}

void run_forward(const ForwardArgs& a) {
  std::vector<int32_t> tokens = parse_tokens(a.tokens);
  Model m = host::load_checkpoint(a.model, dtype_option(a.dtype));
  Runtime rt(m, {.threads = a.threads,
                 .matmul = a.reference ? MatmulPath::reference : MatmulPath::fast,
                 .rounding = rounding_option(a.rounding),
                 .skip_zero_rows = m.config.qgpu.has_value()});  // a merged checkpoint's zeros
  State s = make_state(m.config);
  std::vector<float> logits;
  rt.forward(s, tokens, logits, /*all_logits=*/true);
  int64_t V = m.config.vocab_size, T = static_cast<int64_t>(tokens.size());
  if (a.json) {
    nlohmann::json rows = nlohmann::json::array();
    for (int64_t t = 0; t < T; ++t)
      rows.push_back(std::vector<float>(logits.begin() + t * V, logits.begin() + (t + 1) * V));
    return fmt::print("{}\n", nlohmann::json{{"logits", rows}, {"dtype", dtype_name(m.dtype)}}.dump());
  }
  for (int64_t t = 0; t < T; ++t) print_position(logits, t, V, a.top);
}

struct GenerateArgs {
  std::string model, prompt, tokens, dtype, system;
  int max_tokens = 32, top_k = 0, threads = 0;
  float temperature = 0, top_p = 1;
  uint64_t seed = 0;
  bool json = false, chat = false, ignore_eos = false;
};

void run_generate(const GenerateArgs& a) {
  if (a.prompt.empty() == a.tokens.empty()) fail("generate: give exactly one of --prompt or --tokens");
  const auto loading = Clock::now();
  Model m = host::load_checkpoint(a.model, dtype_option(a.dtype));
  std::optional<Tokenizer> tok;
  if (!a.prompt.empty()) tok = load_tokenizer(tokenizer_path(a.model));
  std::vector<int32_t> prompt;
  if (tok) {
    std::vector<ChatMessage> msgs;
    if (!a.system.empty()) msgs.push_back({.role = "system", .content = a.system});
    msgs.push_back({.role = "user", .content = a.prompt});
    prompt = tok->encode(a.chat ? render_chat(msgs, {.add_generation_prompt = true}) : a.prompt);
  } else {
    prompt = parse_tokens(a.tokens);
  }
  // A merged checkpoint (`qgpu build`): its GPU's zero structure skipped, its GPU tokens
  // never sampled in text (nor padding ids the tokenizer cannot spell).
  Runtime rt(m, {.threads = a.threads, .skip_zero_rows = m.config.qgpu.has_value()});
  const double load_s = seconds_since(loading);  // the checkpoint, the tokenizer, the Runtime (a merge's copies)
  State s = make_state(m.config);
  GenerateOptions o{.max_tokens = a.max_tokens,
                    .sampling = {a.temperature, a.top_k, a.top_p, a.seed}};
  o.mask = text_mask(m.config, tok ? &*tok : nullptr);
  if (!a.ignore_eos) o.stop_tokens = m.config.eos_token_id;
  auto start = Clock::now();
  double first = 0;
  o.on_token = [&](int32_t t, std::span<const float>) {
    if (first == 0) first = seconds_since(start);
    if (!a.json) fmt::print("{}", tok ? tok->decode(std::span<const int32_t>(&t, 1)) : fmt::format("{} ", t));
    std::fflush(stdout);
    return true;
  };
  std::vector<int32_t> out = generate(rt, s, prompt, o);
  double total = seconds_since(start);
  double decode_s = total - first;
  if (!a.json) return fmt::print("\n");
  nlohmann::json j{{"prompt_tokens", prompt}, {"tokens", out}, {"load_seconds", load_s},
                   {"first_token_seconds", load_s + first},
                   {"prefill_tokens_per_s", prompt.size() / first},
                   {"decode_tokens_per_s", out.size() > 1 ? (out.size() - 1) / decode_s : 0.0}};
  if (tok) j["text"] = tok->decode(out, /*skip_special=*/true);
  // "text" may cut a character between tokens: invalid bytes become U+FFFD in the JSON.
  fmt::print("{}\n", j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace

void add_forward_command(CLI::App& app) {
  auto a = std::make_shared<ForwardArgs>();
  auto* cmd = app.add_subcommand("forward", "Run tokens through a Qwen3.5 model; print the logits at every position");
  cmd->add_option("model", a->model, "HF checkpoint directory or .gguf file")->required();
  cmd->add_option("--tokens", a->tokens, "Comma-separated token ids")->required();
  cmd->add_option("--dtype", a->dtype, "Convert matmul weights to f32, bf16 or f16 (default: as stored)");
  cmd->add_flag("--json", a->json, "Print {\"logits\": [[...], ...]}");
  cmd->add_option("--top", a->top, "Print only the K largest logits per position");
  cmd->add_option("--threads", a->threads, "Threads (default: all cores; 1 for a small model)");
  cmd->add_flag("--reference", a->reference, "Use the plain-loop reference matmul");
  cmd->add_option("--rounding", a->rounding,
                  "Where bf16/f16 activations round: llama (default; matmul inputs only) or "
                  "transformers (every op's output, as transformers in that dtype)");
  cmd->callback([a] { run_forward(*a); });
}

void add_generate_command(CLI::App& app) {
  auto a = std::make_shared<GenerateArgs>();
  auto* cmd = app.add_subcommand("generate", "Generate tokens with a Qwen3.5 model");
  cmd->add_option("model", a->model, "HF checkpoint directory or .gguf file")->required();
  cmd->add_option("--prompt", a->prompt, "Prompt text (tokenized with the model's tokenizer.json)");
  cmd->add_option("--tokens", a->tokens, "Prompt as comma-separated token ids");
  cmd->add_flag("--chat", a->chat, "Wrap --prompt in the chat template (non-thinking)");
  cmd->add_option("--system", a->system, "System message for --chat");
  cmd->add_option("--max-tokens", a->max_tokens, "Tokens to generate (default 32)");
  cmd->add_option("--temperature", a->temperature, "0 (default): greedy");
  cmd->add_option("--top-k", a->top_k, "Sample among the K most likely (0: all)");
  cmd->add_option("--top-p", a->top_p, "Nucleus sampling threshold (1: off)");
  cmd->add_option("--seed", a->seed, "Sampling seed");
  cmd->add_flag("--ignore-eos", a->ignore_eos, "Do not stop at the config's eos tokens");
  cmd->add_option("--threads", a->threads, "Threads (default: all cores; 1 for a small model)");
  cmd->add_flag("--json", a->json, "Print one JSON object (tokens, text, tokens/s)");
  cmd->callback([a] { run_generate(*a); });
}

void add_convert_command(CLI::App& app) {
  auto out = std::make_shared<std::string>();
  auto model = std::make_shared<std::string>();
  auto dtype = std::make_shared<std::string>("bf16");
  auto* cmd = app.add_subcommand("convert", "Write a Qwen3.5 checkpoint as GGUF (llama.cpp's qwen35)");
  cmd->add_option("model", *model, "HF checkpoint directory or .gguf file")->required();
  cmd->add_option("--out", *out, "Output .gguf file")->required();
  cmd->add_option("--dtype", *dtype, "Matmul weight type: f32, bf16 (default) or f16");
  cmd->callback([=] {
    DType t = *dtype_option(*dtype);
    Model m = load_model(*model);
    namespace fs = std::filesystem;
    std::string tj = fs::is_directory(*model) ? (fs::path(*model) / "tokenizer.json").string() : "";
    write_gguf_model(m, *out, t, fs::exists(tj) ? tj : "");
    fmt::print("wrote {} ({}, {} layers)\n", *out, dtype_name(t), m.config.num_hidden_layers);
  });
}

namespace {

// The head shapes' flags, the fields they set and config.json's keys: the fields the
// compiled GPU's layers fix (mergeable_tiny_spec's). The options are made from this table.
struct HeadShapeFlag {
  const char* flag;
  int TinySpec::*field;
  const char* key;
};
constexpr HeadShapeFlag kHeadShapeFlags[] = {
    {"--heads", &TinySpec::num_attention_heads, "num_attention_heads"},
    {"--kv-heads", &TinySpec::num_key_value_heads, "num_key_value_heads"},
    {"--head-dim", &TinySpec::head_dim, "head_dim"},
    {"--linear-k-heads", &TinySpec::linear_num_key_heads, "linear_num_key_heads"},
    {"--linear-v-heads", &TinySpec::linear_num_value_heads, "linear_num_value_heads"},
    {"--linear-k-dim", &TinySpec::linear_key_head_dim, "linear_key_head_dim"},
    {"--linear-v-dim", &TinySpec::linear_value_head_dim, "linear_value_head_dim"},
};

// --mergeable: the GPU's head shapes and layers LF under what the flags gave; a head-shape
// flag with another value than the GPU's is an Error (the base would not merge).
void make_mergeable(const CLI::App& cmd, TinySpec& s) {
  const TinySpec m = mergeable_tiny_spec(lift::machine_config());
  for (const auto& [flag, field, key] : kHeadShapeFlags) {
    if (cmd.count(flag) > 0 && s.*field != m.*field)
      fail("tiny-model: {} {} conflicts with --mergeable: the compiled GPU's layers need {} {}; drop {} "
           "(or --mergeable, for a base `qgpu build` will not take)",
           flag, s.*field, flag, m.*field, flag);
    s.*field = m.*field;
  }
  if (cmd.count("--layers") == 0) s.layers = m.layers;
}

}  // namespace

void add_tiny_model_command(CLI::App& app) {
  auto s = std::make_shared<TinySpec>();
  auto out = std::make_shared<std::string>();
  auto dtype = std::make_shared<std::string>("f32");
  auto untied = std::make_shared<bool>(false);
  auto mergeable = std::make_shared<bool>(false);
  auto* cmd = app.add_subcommand("tiny-model", "Write a tiny random Qwen3.5 checkpoint (HF layout) for tests");
  cmd->add_option("--out", *out, "Output directory")->required();
  cmd->add_flag("--mergeable", *mergeable,
                "The smallest base `qgpu build` merges the GPU into: its head shapes, layers LF (other flags still apply)");
  cmd->add_option("--hidden", s->hidden_size, "hidden_size (default 64)");
  cmd->add_option("--layers", s->layers, "Layer pattern, L = linear_attention, F = full_attention (default LLLF)");
  cmd->add_option("--intermediate", s->intermediate_size, "intermediate_size (default 128)");
  for (const auto& [flag, field, key] : kHeadShapeFlags)
    cmd->add_option(flag, (*s).*field, fmt::format("{} (default {})", key, TinySpec{}.*field));
  cmd->add_option("--vocab", s->vocab_size, "vocab_size (default: the tokenizer's, rounded up to 64)");
  cmd->add_option("--merges", s->n_merges, "BPE merges of the tiny tokenizer (default 200)");
  cmd->add_option("--seed", s->seed, "Random seed (default 1)");
  cmd->add_option("--dtype", *dtype, "Stored dtype: f32 (default), bf16, f16");
  cmd->add_flag("--untied", *untied, "Untied lm_head");
  cmd->add_flag("--multimodal", s->multimodal_wrapper, "Write the qwen3_5 multimodal wrapper layout");
  cmd->add_option("--shard-bytes", s->max_shard_bytes, "Max bytes per safetensors shard");
  cmd->callback([=] {
    if (*mergeable) make_mergeable(*cmd, *s);
    s->dtype = *dtype_option(*dtype);
    s->tie_word_embeddings = !*untied;
    write_tiny_model(*out, *s);
    if (!*mergeable) return fmt::print("wrote {}\n", *out);
    fmt::print("wrote {}: a tiny random base with the compiled GPU's head shapes; merge the GPU into it with "
               "`qgpu build --base {} --out DIR`\n", *out, *out);
  });
}

Rounding rounding_option(const std::string& s) {
  if (s == "llama") return Rounding::llama_cpp;
  if (s == "transformers") return Rounding::transformers;
  fail("--rounding {}: expected llama or transformers", s);
}

}  // namespace qgpu
