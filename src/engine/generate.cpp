// Generation loop and sampler. The sampler works on a copy of the logits: the mask sets
// forbidden logits to -inf, then greedy takes the argmax; otherwise temperature, top-k and
// top-p filter the softmax and a seeded mt19937_64 draws.
#include "engine/generate.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "base/error.h"

namespace qgpu::engine {
namespace {

std::vector<uint8_t> build_allowed(const LogitMask& m, int vocab) {
  std::vector<uint8_t> allowed(vocab, m.kind == LogitMask::Kind::allow ? 0 : 1);
  for (int32_t id : m.ids) {
    if (id < 0 || id >= vocab) fail("logit mask: token id {} is outside [0, {})", id, vocab);
    allowed[id] = m.kind == LogitMask::Kind::allow ? 1 : 0;
  }
  if (std::find(allowed.begin(), allowed.end(), 1) == allowed.end())
    fail("logit mask: no token is allowed");
  return allowed;
}

int32_t argmax(const std::vector<float>& logits) {
  return static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

// The prompt in kPrefillChunk pieces when someone watches it (forward batches it the same
// way), else in one call. False: on_prefill stopped it.
bool feed_prompt(Runtime& rt, State& s, std::span<const int32_t> prompt, std::vector<float>& logits,
                 const std::function<bool(int64_t, int64_t)>& on_prefill) {
  if (!on_prefill) return rt.forward(s, prompt, logits), true;
  const int64_t total = static_cast<int64_t>(prompt.size());
  for (int64_t fed = 0; fed < total;) {
    const int64_t n = std::min(kPrefillChunk, total - fed);
    rt.forward(s, prompt.subspan(static_cast<size_t>(fed), static_cast<size_t>(n)), logits);
    fed += n;
    if (!on_prefill(fed, total)) return false;
  }
  return true;
}

}  // namespace

LogitMask text_mask(const Config& c, const Tokenizer* tok) {
  const int32_t gpu = c.qgpu ? c.qgpu->token_offset : c.vocab_size;
  LogitMask mask{.kind = LogitMask::Kind::forbid};
  for (int32_t t = 0; t < c.vocab_size; ++t)
    if (t >= gpu || (tok && (t >= tok->vocab_size() || tok->id_text[t].empty()))) mask.ids.push_back(t);
  if (mask.ids.empty()) mask.kind = LogitMask::Kind::none;
  return mask;
}

int32_t sample_token(std::vector<float>& logits, const SamplingOptions& o,
                     const std::vector<uint8_t>& allowed, std::mt19937_64& rng) {
  for (size_t i = 0; i < logits.size(); ++i)
    if (!allowed[i]) logits[i] = -INFINITY;
  if (o.temperature <= 0.0f) return argmax(logits);
  // Candidates sorted by logit, cut by top-k, then softmax at temperature, cut by top-p.
  std::vector<int32_t> ids(logits.size());
  std::iota(ids.begin(), ids.end(), 0);
  size_t k = o.top_k > 0 ? std::min<size_t>(o.top_k, ids.size()) : ids.size();
  std::partial_sort(ids.begin(), ids.begin() + k, ids.end(), [&](int32_t a, int32_t b) {
    return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
  });
  ids.resize(k);
  std::vector<double> p(k);
  double top = logits[ids[0]], sum = 0;
  for (size_t i = 0; i < k; ++i) sum += p[i] = std::exp((logits[ids[i]] - top) / o.temperature);
  double cum = 0;
  size_t keep = k;
  for (size_t i = 0; i < k; ++i) {
    cum += p[i] / sum;
    if (cum >= o.top_p) {
      keep = i + 1;
      break;
    }
  }
  std::discrete_distribution<size_t> pick(p.begin(), p.begin() + static_cast<long>(keep));
  return ids[pick(rng)];
}

std::vector<int32_t> generate(Runtime& rt, State& s, std::span<const int32_t> prompt,
                              const GenerateOptions& o) {
  if (prompt.empty()) fail("generate: the prompt is empty");
  // The context: the prompt must leave room for a token; generation stops at its end.
  const int64_t context = rt.model().config.max_position_embeddings;
  if (s.n_past + static_cast<int64_t>(prompt.size()) >= context)
    fail("the prompt reaches token {} but the model's context is {} tokens (max_position_embeddings): shorten it "
         "or start a new conversation", s.n_past + static_cast<int64_t>(prompt.size()), context);
  const int vocab = rt.model().config.vocab_size;
  std::vector<uint8_t> allowed = build_allowed(o.mask, vocab);
  std::mt19937_64 rng(o.sampling.seed);
  std::vector<float> logits, work;
  std::vector<int32_t> out;
  if (!feed_prompt(rt, s, prompt, logits, o.on_prefill)) return out;
  for (int n = 0; n < o.max_tokens && s.n_past < context; ++n) {
    work = logits;
    int32_t tok = sample_token(work, o.sampling, allowed, rng);
    out.push_back(tok);
    bool go_on = !o.on_token || o.on_token(tok, logits);
    bool stop = std::find(o.stop_tokens.begin(), o.stop_tokens.end(), tok) != o.stop_tokens.end();
    rt.forward(s, std::span<const int32_t>(&out.back(), 1), logits);
    if (!go_on || stop) break;
  }
  return out;
}

}  // namespace qgpu::engine
