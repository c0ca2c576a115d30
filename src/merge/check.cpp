#include "merge/check.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include "base/error.h"
#include "base/text_file.h"

namespace qgpu::merge {
namespace {

// log-softmax of x[0, n) in double.
std::vector<double> log_softmax(const float* x, int64_t n) {
  double top = -INFINITY;
  for (int64_t i = 0; i < n; ++i) top = std::max(top, static_cast<double>(x[i]));
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += std::exp(static_cast<double>(x[i]) - top);
  const double lse = top + std::log(sum);
  std::vector<double> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out[static_cast<size_t>(i)] = static_cast<double>(x[i]) - lse;
  return out;
}

// KL(p || q) from log-probabilities.
double kl(const std::vector<double>& lp, const std::vector<double>& lq) {
  double k = 0;
  for (size_t i = 0; i < lp.size(); ++i)
    if (std::isfinite(lp[i])) k += std::exp(lp[i]) * (lp[i] - lq[i]);
  return std::max(0.0, k);
}

int32_t argmax(const float* x, int64_t n) {
  return static_cast<int32_t>(std::max_element(x, x + n) - x);
}

}  // namespace

TextCheck check_text(const engine::Model& base, const engine::Model& merged, const engine::Tokenizer& tok,
                     std::span<const std::string> prompts, int generate, engine::RuntimeOptions options,
                     const std::function<void(size_t, size_t)>& progress) {
  const int64_t V = base.config.vocab_size, Vm = merged.config.vocab_size;
  const int64_t gpu_from = merged.config.qgpu ? merged.config.qgpu->token_offset : Vm;
  if (gpu_from != V)
    fail("the merged model's base vocabulary ({} tokens) is not the base's ({}): is it built from this base?",
         gpu_from, V);
  engine::Runtime rb(base, options), rm(merged, options);
  TextCheck out;
  double kl_sum = 0;
  for (const std::string& prompt : prompts) {
    std::vector<int32_t> seq = tok.encode(prompt);
    if (seq.empty()) continue;
    PromptCheck pc{.prompt = prompt};
    // The base: the prompt's logits, then its greedy continuation.
    engine::State sb = engine::make_state(base.config);
    std::vector<float> lb, step;
    rb.forward(sb, seq, lb, /*all_logits=*/true);
    const size_t prompt_len = seq.size();
    for (int g = 0; g < generate; ++g) {
      const int32_t next = argmax(lb.data() + static_cast<int64_t>(lb.size()) - V, V);
      seq.push_back(next);
      rb.forward(sb, std::span(&seq.back(), 1), step);
      lb.insert(lb.end(), step.begin(), step.end());
    }
    // The merged model on the same tokens.
    engine::State sm = engine::make_state(merged.config);
    std::vector<float> lm;
    rm.forward(sm, seq, lm, /*all_logits=*/true);
    const int64_t T = static_cast<int64_t>(seq.size());
    double sum = 0;
    for (int64_t t = 0; t < T; ++t) {
      const float* b = lb.data() + t * V;
      const float* m = lm.data() + t * Vm;
      const double k = kl(log_softmax(b, V), log_softmax(m, V));
      sum += k;
      pc.max_kl = std::max(pc.max_kl, k);
      if (argmax(m, Vm) >= gpu_from) ++pc.gpu_wins;
      // Position t chose token t + 1 when that one was generated.
      if (t + 1 >= static_cast<int64_t>(prompt_len) && t + 1 < T) {
        ++pc.compared;
        pc.agree += argmax(m, V) == seq[static_cast<size_t>(t + 1)];
      }
    }
    pc.tokens = T;
    pc.mean_kl = sum / static_cast<double>(T);
    kl_sum += sum;
    out.positions += T;
    out.max_kl = std::max(out.max_kl, pc.max_kl);
    out.agree += pc.agree, out.compared += pc.compared, out.gpu_wins += pc.gpu_wins;
    out.prompts.push_back(std::move(pc));
    if (progress) progress(out.prompts.size(), prompts.size());
  }
  if (out.positions == 0) fail("check: no prompt gave any token");
  out.mean_kl = kl_sum / static_cast<double>(out.positions);
  return out;
}

std::vector<std::string> default_prompts() {
  return {
      "The capital of France is",
      "Once upon a time, in a village at the edge of a forest,",
      "def fibonacci(n):\n    \"\"\"Return the n-th Fibonacci number.\"\"\"\n",
      "Q: What is 17 times 23?\nA:",
      "The three laws of thermodynamics are",
      "Translate to German: The weather is nice today.",
      "Le chat est assis sur",
      "東京は日本の首都で、",
      "Ingredients for a simple pancake recipe:\n1.",
      "SELECT name, COUNT(*) FROM orders GROUP BY",
      "In 1969, Neil Armstrong",
      "A haiku about the sea:\n",
      "The derivative of x^3 + 2x is",
      "<html>\n  <head>\n    <title>",
      "Dear hiring manager, I am writing to apply for",
      "Photosynthesis converts sunlight into",
      "#include <stdio.h>\nint main(void) {\n",
      "The quick brown fox jumps over the lazy dog. The quick brown fox",
      "List of prime numbers: 2, 3, 5, 7, 11,",
      "Why is the sky blue? Because",
      "user: Can you recommend a good book?\nassistant:",
      "El perro corre por el parque y",
      "The mitochondria is the powerhouse of",
      "function add(a, b) { return",
      "Breaking news: scientists have discovered",
      "Step 1: Preheat the oven to 180 degrees.\nStep 2:",
      "The GDP of a country measures",
      "import numpy as np\nx = np.arange(10)\nprint(",
      "Roses are red, violets are blue,",
      "The theory of general relativity states that",
      "2, 4, 8, 16, 32,",
      "Der schnellste Weg zum Bahnhof ist",
      "A linked list is a data structure in which",
      "Summary of the meeting:\n- ",
      "The Pythagorean theorem: a^2 + b^2 =",
      "She opened the door and saw",
      "Water boils at 100 degrees Celsius at",
      "git commit -m \"",
      "Q: Who wrote Pride and Prejudice?\nA:",
      "The stock market fell sharply on Monday after",
      "Π = 3.14159",
      "To be, or not to be, that is",
      "Здравствуйте, меня зовут",
      "{\"name\": \"Alice\", \"age\":",
      "The best way to learn a new language is",
      "1 + 1 = 2\n2 + 2 = 4\n3 + 3 =",
      "In machine learning, overfitting occurs when",
      "The Great Wall of China is",
      "Thank you for your message. Unfortunately,",
      "A recurrent neural network keeps a hidden state that",
  };
}

std::vector<std::string> read_prompts(const std::string& path) {
  std::istringstream in(read_text_file(path, kMaxJsonBytes, "--prompts file"));
  std::vector<std::string> out;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    std::string p;
    for (size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == 'n') {
        p += '\n';
        ++i;
      } else {
        p += line[i];
      }
    }
    out.push_back(std::move(p));
  }
  if (out.empty()) fail("--prompts {}: no prompts (one per line; '#' starts a comment)", path);
  return out;
}

}  // namespace qgpu::merge
