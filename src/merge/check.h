// `qgpu check`'s text half (issue 6): does a merged checkpoint still speak like its base?
// Over a prompt set, the base generates greedily; the merged model is run on the same
// tokens (teacher forcing, so one differing choice does not change every later position).
// At every position: KL(base || merged) over the base's vocabulary (the merged model's
// distribution restricted to the base's tokens and renormalised, as the host masks the
// GPU's tokens in text), and at every generated position whether the merged model's
// greedy choice is the base's.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "engine/forward.h"
#include "engine/tokenizer.h"

namespace qgpu::merge {

struct PromptCheck {
  std::string prompt;
  int64_t tokens = 0;         // prompt + generated positions compared
  double mean_kl = 0, max_kl = 0;
  int64_t agree = 0, compared = 0;  // greedy choices at generated positions
  int64_t gpu_wins = 0;       // positions where the merged model's unmasked argmax is a GPU token
};

struct TextCheck {
  std::vector<PromptCheck> prompts;
  int64_t positions = 0;
  double mean_kl = 0, max_kl = 0;
  int64_t agree = 0, compared = 0, gpu_wins = 0;
};

// base and merged must share the base's vocabulary (merged.config.qgpu says where the GPU's
// tokens start; without it the two vocabularies must be equal). generate: tokens the base
// generates after each prompt.
// progress (may be null) is called after each prompt with (done, total).
TextCheck check_text(const engine::Model& base, const engine::Model& merged, const engine::Tokenizer& tok,
                     std::span<const std::string> prompts, int generate, engine::RuntimeOptions options,
                     const std::function<void(size_t, size_t)>& progress = nullptr);

// The shipped prompt set: 50 prompts of varied kinds (questions, code, arithmetic, other
// languages, lists, chat turns).
std::vector<std::string> default_prompts();
// A prompt file: one prompt per line; blank lines and lines starting with '#' skipped;
// "\n" in a line is a newline. Errors name the file.
std::vector<std::string> read_prompts(const std::string& path);

}  // namespace qgpu::merge
