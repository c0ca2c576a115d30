// Token generation on a Runtime: greedy or sampled (temperature, top-k, top-p, seed), stop
// tokens, a logit mask, and a per-token callback that may stop generation.
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <span>
#include <vector>

#include "engine/forward.h"
#include "engine/tokenizer.h"

namespace qgpu::engine {

struct SamplingOptions {
  float temperature = 0.0f;  // 0: greedy (argmax, lowest id on ties)
  int top_k = 0;             // 0: all
  float top_p = 1.0f;        // nucleus; 1: all
  uint64_t seed = 0;
};

// Which tokens may be sampled: all, only `ids` (allow), or all but `ids` (forbid).
struct LogitMask {
  enum class Kind { none, allow, forbid } kind = Kind::none;
  std::vector<int32_t> ids;
};

struct GenerateOptions {
  int max_tokens = 16;  // at most; fewer at the end of the model's context
  SamplingOptions sampling;
  std::vector<int32_t> stop_tokens;  // generation ends after emitting one of these
  LogitMask mask;
  // Called after each generated token with its logits (before masking); false stops.
  std::function<bool(int32_t token, std::span<const float> logits)> on_token;
  // Called as the prompt is read, after each kPrefillChunk tokens and at its end: tokens fed
  // so far of the prompt's; false stops (generate returns no tokens, s holds the prompt's
  // first `fed`). Null: the prompt is fed in one call. The same bits either way.
  std::function<bool(int64_t fed, int64_t total)> on_prefill;
};

// Prompt tokens fed between two on_prefill calls: a multiple of the Runtime's default
// max_batch (64), so the chunks are the batches forward makes anyway.
inline constexpr int64_t kPrefillChunk = 256;

// The tokens text generation may say: not a merged checkpoint's GPU tokens, and (with a
// tokenizer) not the padding rows past what the tokenizer spells (Qwen3.5 pads its
// vocabulary; decoding such an id is an Error).
LogitMask text_mask(const Config& c, const Tokenizer* tok);

// Samples one token from logits (modified in place: mask, temperature, filters).
int32_t sample_token(std::vector<float>& logits, const SamplingOptions& o,
                     const std::vector<uint8_t>& allowed, std::mt19937_64& rng);

// Feeds prompt (>= 1 token) from state s and generates up to max_tokens; returns the
// generated tokens (including a stop token that ended it). Every generated token is fed
// back before returning, so s is the state after prompt + all returned tokens (unless
// on_prefill stopped it).
std::vector<int32_t> generate(Runtime& rt, State& s, std::span<const int32_t> prompt,
                              const GenerateOptions& o);

}  // namespace qgpu::engine
