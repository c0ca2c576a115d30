// The decoder stack, straight-line: embed, then per layer
//   a = RMSNorm(x) ; x += Mixer(a) ; a = RMSNorm(x) ; x += MLP(a)
// and the head on the final norm. Mixers live in forward_deltanet.cpp and
// forward_attention.cpp. Nothing here allocates after the Runtime is built, except the
// attention KV cache and score buffer, which grow with the sequence.
//
// Under Rounding::transformers each tensor that transformers holds in the model dtype is
// rounded where it is made (round_act, or linear() for a matmul's output); "HF:" comments
// quote the line of modeling_qwen3_5.py that rounds. Under llama_cpp act_ is f32 and those
// calls return at once.
#include "engine/forward.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>

#include "base/error.h"
#include "engine/forward_internal.h"

namespace qgpu::engine {
namespace {

std::unique_ptr<Runtime::Scratch> make_scratch(const Config& c, int64_t T) {
  auto s = std::make_unique<Runtime::Scratch>();
  int64_t H = c.hidden_size, I = c.intermediate_size;
  int64_t qg = int64_t{c.num_attention_heads} * c.head_dim * 2;
  int64_t kv = int64_t{c.num_key_value_heads} * c.head_dim;
  int64_t w1 = std::max({int64_t{c.conv_dim()}, qg, I});
  int64_t w2 = std::max({int64_t{c.value_dim()}, kv, I});
  int64_t w3 = std::max({int64_t{c.value_dim()}, kv, qg / 2});
  int64_t widest_in = std::max({H, I, int64_t{c.value_dim()}, qg / 2});
  s->x.resize(T * H);
  s->a.resize(T * H);
  s->out.resize(T * H);
  s->big1.resize(T * w1);
  s->big2.resize(T * w2);
  s->big3.resize(T * w3);
  s->v.resize(T * kv);
  s->small1.resize(T * std::max(1, c.linear_num_value_heads));
  s->small2.resize(T * std::max(1, c.linear_num_value_heads));
  s->conv_out.resize(static_cast<size_t>(T * c.conv_dim()));
  s->head_tmp.resize(static_cast<size_t>(c.value_dim()));
  s->xq.resize(static_cast<size_t>(T * widest_in * 4));
  return s;
}

// x += y, the sum held in act (HF: hidden_states = residual + hidden_states).
void add(float* x, const float* y, int64_t n, DType act) {
  for (int64_t i = 0; i < n; ++i) x[i] += y[i];
  round_act(act, x, n);
}

// RMSNorm of each of T rows of width n; the output in act (HF Qwen3_5RMSNorm: f32 inside,
// `output * (1.0 + self.weight.float())` then `.type_as(x)`).
void rms_norm_rows(const float* x, const float* w, float* y, int64_t T, int64_t n, float eps,
                   DType act) {
  for (int64_t t = 0; t < T; ++t) rms_norm(x + t * n, w, y + t * n, n, eps);
  round_act(act, y, T * n);
}

// Every per-channel parameter rounded to t, as transformers holds a model loaded in t.
void round_params(DType t, LayerWeights& l) {
  auto round_all = [t](std::vector<float>& v) { round_act(t, v.data(), std::ssize(v)); };
  for (float& w : l.input_layernorm) w = norm_multiplier_in(t, w);
  for (float& w : l.post_attention_layernorm) w = norm_multiplier_in(t, w);
  for (float& w : l.self_attn.q_norm) w = norm_multiplier_in(t, w);
  for (float& w : l.self_attn.k_norm) w = norm_multiplier_in(t, w);
  round_all(l.linear_attn.conv1d);
  round_all(l.linear_attn.dt_bias);
  round_all(l.linear_attn.norm);
  for (float& a : l.linear_attn.a) a = decay_rate_in(t, a);
}

// Calls fn on every Linear of the model: each layer's mixer and MLP, then the head.
template <typename Fn>
void for_each_linear(const Model& m, Fn fn) {
  for (const LayerWeights& l : m.layers) {
    const DeltaNetWeights& d = l.linear_attn;
    const AttentionWeights& a = l.self_attn;
    for (const Linear* w : {&d.in_proj_qkv, &d.in_proj_z, &d.in_proj_b, &d.in_proj_a, &d.out_proj,
                            &a.q_proj, &a.k_proj, &a.v_proj, &a.o_proj, &l.gate_proj, &l.up_proj, &l.down_proj})
      if (w->w.data || w->is_sparse()) fn(*w);
  }
  fn(m.lm_head);
}

// A weight is multiplied from a CSR copy when its nonzero rows are at most 1/16 nonzero.
// The alternative is the AVX-512 kernel over those rows (matmul_fast_rows), and the CSR
// kernel's ~0.4 ns per nonzero per token beats it in decode for every dtype up to that
// density (measured with rows of in/16 nonzeros: bf16 0.6-0.9x its time, f32 0.2-0.4x);
// at 1/8, bf16 decode is 1.1-1.7x slower. The compiled machine's rows are 1/26 or sparser.
constexpr int64_t kCsrMaxDensity = 16;

// Every Linear of the model, read once: a CSR copy of those sparse enough, the nonzero row
// blocks of the others that have zero rows (a merged checkpoint's base layers and head:
// declared from its config, declare_merged_structure).
void find_structure(const Model& m, WeightStructure& s) {
  if (is_merged(m.config)) declare_merged_structure(m, s);
  for_each_linear(m, [&](const Linear& w) {
    if (w.is_sparse() || s.hybrid.count(w.w.data)) return;  // sparse: made so, nothing to find
    if (s.csr.count(w.w.data) || s.sparse.count(w.w.data)) return;  // tied: seen
    NonzeroCount n = count_nonzeros(w);
    if (n.entries * kCsrMaxDensity <= n.rows * w.in())
      s.csr.emplace(w.w.data, make_csr(w));
    else if (n.rows < w.out())
      s.sparse.emplace(w.w.data, nonzero_row_blocks(w));
  });
}

// Whether rows [begin, end) of w are all zero, from what find_structure found.
bool rows_zero(const WeightStructure& s, const Linear& w, int64_t begin, int64_t end) {
  const CsrWeight* csr = w.is_sparse() ? w.sparse.get() : nullptr;
  if (auto it = s.csr.find(w.w.data); !csr && it != s.csr.end()) csr = &it->second;
  if (csr) {
    const std::vector<int32_t>& rows = csr->rows;
    auto first = std::lower_bound(rows.begin(), rows.end(), begin);
    return first == rows.end() || *first >= end;
  }
  auto it = s.sparse.find(w.w.data);
  if (it == s.sparse.end()) return false;  // no zero rows at all
  for (const RowBlock& b : it->second)
    if (b.begin < end && b.end > begin) return false;
  return true;
}

// Whole heads, attention layers and MLPs that are provably zero (from the row scan).
void find_dead_parts(const Model& m, WeightStructure& s) {
  const Config& c = m.config;
  const int L = c.num_hidden_layers;
  s.dead_heads.assign(L, {});
  s.live_channels.assign(L, {});
  s.mixer_zero.assign(L, 0);
  s.mlp_zero.assign(L, 0);
  s.mlp_units.assign(L, c.intermediate_size);
  for (int il = 0; il < L; ++il) {
    const LayerWeights& l = m.layers[il];
    s.mlp_zero[il] = rows_zero(s, l.down_proj, 0, l.down_proj.out());
    const int64_t I = c.intermediate_size;
    int64_t lo = 0, hi = I;  // the least u with rows [u, I) of gate and up zero
    while (lo < hi) {
      const int64_t mid = (lo + hi) / 2;
      if (rows_zero(s, l.gate_proj, mid, I) && rows_zero(s, l.up_proj, mid, I)) hi = mid;
      else lo = mid + 1;
    }
    s.mlp_units[il] = lo;
    if (!l.linear) {
      s.mixer_zero[il] = rows_zero(s, l.self_attn.o_proj, 0, l.self_attn.o_proj.out());
      continue;
    }
    const int64_t dk = c.linear_key_head_dim;
    const Linear& qkv = l.linear_attn.in_proj_qkv;
    s.dead_heads[il].assign(c.linear_num_value_heads, 0);
    for (int j = 0; j < c.linear_num_value_heads; ++j) {
      int64_t kh = m.key_head_of(j);
      s.dead_heads[il][j] = rows_zero(s, qkv, kh * dk, (kh + 1) * dk) &&
                            rows_zero(s, qkv, c.key_dim() + kh * dk, c.key_dim() + (kh + 1) * dk);
    }
    if (!qkv.is_sparse() && !s.csr.count(qkv.w.data)) continue;
    const int64_t K = c.linear_conv_kernel_dim;
    const std::vector<float>& conv = l.linear_attn.conv1d;
    std::vector<int32_t>& live = s.live_channels[il].emplace();
    for (int64_t ch = 0; ch < c.conv_dim(); ++ch) {
      bool finite = true;
      for (int64_t j = 0; j < K; ++j)  // finite in f32 and once rounded to bf16 or f16's range
        finite = finite && std::isfinite(conv[ch * K + j]) && std::abs(conv[ch * K + j]) <= 65504.0f;
      if (!finite || !rows_zero(s, qkv, ch, ch + 1)) live.push_back(static_cast<int32_t>(ch));
    }
    // No channel lives, so every head is dead and reads 0: with out_proj zero too the
    // output is +0, and by induction from the zero state nothing in the state changes.
    s.mixer_zero[il] = live.empty() && rows_zero(s, l.linear_attn.out_proj, 0, l.linear_attn.out_proj.out());
  }
}

// A merged checkpoint's GPU layers leave the base's residual dims alone when every writer
// (out_proj, o_proj, down_proj) of theirs is zero in rows [0, d), or its sublayer is zero.
void find_gpu_placement(const Model& m, WeightStructure& s) {
  const Config& c = m.config;
  if (!c.qgpu || c.qgpu->hidden_offset == 0) return;
  const int64_t d = c.qgpu->hidden_offset;
  bool keeps = true;
  for (int il = 0; il < c.qgpu->layers; ++il) {
    const LayerWeights& l = m.layers[il];
    const Linear& mixer_out = l.linear ? l.linear_attn.out_proj : l.self_attn.o_proj;
    keeps = keeps && (s.mixer_zero[il] || rows_zero(s, mixer_out, 0, d)) && (s.mlp_zero[il] || rows_zero(s, l.down_proj, 0, d));
  }
  s.gpu_keeps_base_zero = keeps;
  if (auto h = s.hybrid.find(m.lm_head.w.data); h != s.hybrid.end()) s.head_gpu = &h->second.csr;
}

// The file pages of weights now multiplied from a CSR copy (the scan read them once; the
// Runtime never reads them again): the compiled machine's are gigabytes of zeros that would
// otherwise stay mapped. A matmul on the reference path maps them from the file again.
void release_copied(const Model& m, const WeightStructure& s) {
  auto release = [&](const void* p, size_t n) { release_file_pages(m, p, n); };
  for_each_linear(m, [&](const Linear& w) {
    if (s.csr.count(w.w.data)) release(w.w.data, w.w.nbytes());
    if (auto h = s.hybrid.find(w.w.data); h != s.hybrid.end() && !h->second.dense.empty()) {
      const size_t row = static_cast<size_t>(w.in()) * dtype_size(w.w.dtype);
      const size_t from = static_cast<size_t>(h->second.dense.back().end) * row;
      release(static_cast<const uint8_t*>(w.w.data) + from, w.w.nbytes() - from);
    }
  });
}

// The Model's WeightStructure, found on the first call (under a lock: Runtimes of one
// Model may be built on several threads).
std::shared_ptr<const WeightStructure> structure_of(const Model& m) {
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  if (!m.structure) {
    auto s = std::make_shared<WeightStructure>();
    find_structure(m, *s);
    find_dead_parts(m, *s);
    find_gpu_placement(m, *s);
    release_copied(m, *s);
    m.structure = std::move(s);
  }
  return m.structure;
}

// The Model's BaseCopies, made on the first call (under a lock, as structure_of).
std::shared_ptr<const BaseCopies> base_copies_of(const Model& m) {
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  if (!m.base_copies) {
    auto b = std::make_shared<BaseCopies>();
    make_base_copies(m, *b);
    if (!b->notice.empty()) fmt::print(stderr, "[qgpu] {}\n", b->notice);
    m.base_copies = std::move(b);
  }
  return m.base_copies;
}

// The scratch buffers for max_batch tokens and, with skip_zero_rows, what the scan of every
// weight found.
std::unique_ptr<Runtime::Scratch> make_runtime_scratch(const Model& m, const RuntimeOptions& o) {
  CHECK(o.max_batch >= 1);
  std::unique_ptr<Runtime::Scratch> s = make_scratch(m.config, o.max_batch);
  static const auto none = std::make_shared<const WeightStructure>();
  static const auto no_copies = std::make_shared<const BaseCopies>();
  s->found = o.skip_zero_rows ? structure_of(m) : none;
  // A launch (gpu_sequence) never reads the base's weights: it skips them.
  const bool text = !(o.gpu_sequence && s->found->gpu_keeps_base_zero && s->found->head_gpu);
  s->copies = o.skip_zero_rows && is_merged(m.config) && text && o.matmul != MatmulPath::reference ? base_copies_of(m) : no_copies;
  return s;
}

// Multiply-adds per token of the matmuls as this Runtime runs them: a dense weight's
// out * in, a CSR weight's nonzeros, a row-skipping weight's kept rows * in.
int64_t matmul_work_per_token(const Model& m, const WeightStructure& s) {
  int64_t work = 0;
  for_each_linear(m, [&](const Linear& w) {
    auto csr = s.csr.find(w.w.data);
    auto sparse = s.sparse.find(w.w.data);
    auto hybrid = s.hybrid.find(w.w.data);
    if (w.is_sparse()) {
      work += w.sparse->nnz();
    } else if (hybrid != s.hybrid.end()) {
      work += hybrid->second.csr.nnz();
      for (const RowBlock& b : hybrid->second.dense) work += (b.end - b.begin) * (b.cols > 0 ? b.cols : w.in());
    } else if (csr != s.csr.end()) {
      work += csr->second.nnz();
    } else if (sparse != s.sparse.end()) {
      for (const RowBlock& b : sparse->second) work += (b.end - b.begin) * (b.cols > 0 ? b.cols : w.in());
    } else {
      work += w.out() * w.in();
    }
  });
  return work;
}

// Below this many matmul multiply-adds per token (8.4 M), threads == 0 means one thread.
// Measured on this 2-core VM, decode with 2 threads against 1 on tiny models (LLLF, hidden
// H, MLP 3H, 64-wide heads, vocab 8H): up to 1.2 M the same (no loop reaches
// kParallelWork), 2.6-4.7 M 6-16% slower, 7.3 M f32 7% faster and bf16 5% slower,
// 10.5 M f32 16% faster and bf16 even, from 18.7 M on 1.8x faster.
constexpr int64_t kSmallModelWork = int64_t{1} << 23;

// options.threads, or for 0 all cores, except one for a model too small to share.
int thread_count(const RuntimeOptions& o, const Model& m, const Runtime::Scratch& s) {
  if (o.threads > 0) return o.threads;
  return matmul_work_per_token(m, *s.found) < kSmallModelWork ? 1 : default_thread_count();
}

// What the base's skipped layers would do to the residual x (n floats) of a sequence of GPU
// tokens: each adds +0, which turns a -0 into +0 and leaves every other value as it is (and
// in the dtype: no rounding). Exact while x is finite; a GPU residual of inf or NaN (never
// built by the construction) would have made the base's layers NaN, so it is an error here
// rather than different numbers. pos: the batch's first position, for the error.
void skipped_base_layers(float* x, int64_t n, int64_t pos) {
  bool finite = true;
  for (int64_t i = 0; i < n; ++i) {
    x[i] += 0.0f;
    finite &= x[i] - x[i] == 0.0f;
  }
  if (!finite)
    fail("a launch's residual holds inf or NaN at or after position {}: the merged checkpoint's GPU layers are not "
         "qgpu's construction (`qgpu verify` compares them)",
         pos);
}

// x: [T][H] = embed_tokens[token] (already in the model dtype). With gpu_only (a launch
// inside a merged checkpoint, the base skipped) the base's dims of every GPU token's
// embedding must be zero (the merge writes +0 there).
void embed(const Model& m, std::span<const int32_t> tokens, float* x, bool gpu_only) {
  const int64_t H = m.config.hidden_size;
  for (size_t t = 0; t < tokens.size(); ++t) m.embed_tokens.row(tokens[t], x + t * H);
  if (!gpu_only) return;
  for (size_t t = 0; t < tokens.size(); ++t)
    for (int64_t i = 0; i < m.config.qgpu->hidden_offset; ++i)
      if (x[t * H + i] != 0.0f)
        fail("{} row {} (a GPU token) is {} at column {}, one of the base's dims: the checkpoint was edited after "
             "`qgpu build`; rebuild it",
             m.embed_tokens.w.name, tokens[t], x[t * H + i], i);
}

// The head's product of n normed positions a into logits. With gpu_only, the GPU's rows
// alone: the base's give +0 (their inputs are), which the product's memset writes.
void head(const Model& m, bool gpu_only, const float* a, float* logits, int64_t n, Runtime::Scratch& s,
          const Exec& ex) {
  if (!gpu_only) return linear(m.lm_head, a, logits, n, s, ex);
  matmul_csr(m.lm_head, *s.found->head_gpu, a, logits, n, s.xq.data(), ex.pool, &s.csr_inputs);
  round_act(ex.act, logits, n * m.lm_head.out());
}

}  // namespace

float norm_multiplier_in(DType t, float multiplier) {
  return 1.0f + round_to(t, multiplier - 1.0f);
}

float decay_rate_in(DType t, float a) { return -std::exp(round_to(t, std::log(-a))); }

void linear(const Linear& w, const float* x, float* y, int64_t T, Runtime::Scratch& s,
            const Exec& ex) {
  CHECK(static_cast<size_t>(T * w.in() * 4) <= s.xq.size());
  const WeightStructure& f = *s.found;
  auto csr = f.csr.find(w.w.data);
  auto sparse = f.sparse.find(w.w.data);
  auto hybrid = f.hybrid.find(w.w.data);
  auto narrow = s.copies->narrow.find(w.w.data);
  const bool copied = narrow != s.copies->narrow.end() && ex.path != MatmulPath::reference;
  if (w.is_sparse()) {  // held sparse: the reference's sum, on either path
    matmul_csr(w, *w.sparse, x, y, T, s.xq.data(), ex.pool, &s.csr_inputs);
  } else if (hybrid != f.hybrid.end() && ex.path != MatmulPath::reference) {
    // The CSR rows (and +0 everywhere else), then the base's rows over their used inputs.
    matmul_csr(w, hybrid->second.csr, x, y, T, s.xq.data(), ex.pool, &s.csr_inputs);
    if (copied)
      matmul_fast_strided(narrow->second, x, w.in(), y, w.out(), T, s.xq.data(), ex.pool);
    else
      matmul_fast_rows(w, x, y, T, s.xq.data(), ex.pool, hybrid->second.dense, /*zero_others=*/false);
  } else if (copied) {
    // The used corner; rows past it (padded MLP units) are +0.
    const Linear& n = narrow->second;
    if (n.out() < w.out()) std::memset(y, 0, static_cast<size_t>(T * w.out()) * sizeof(float));
    matmul_fast_strided(n, x, w.in(), y, w.out(), T, s.xq.data(), ex.pool);
  } else if (csr != f.csr.end())  // the reference's sum, so on either path
    matmul_csr(w, csr->second, x, y, T, s.xq.data(), ex.pool, &s.csr_inputs);
  else if (ex.path == MatmulPath::reference)
    matmul_reference(w, x, y, T, s.xq.data());
  else if (sparse != f.sparse.end())
    matmul_fast_rows(w, x, y, T, s.xq.data(), ex.pool, sparse->second);
  else
    matmul_fast(w, x, y, T, s.xq.data(), ex.pool);
  round_act(ex.act, y, T * w.out());
}

Runtime::Runtime(const Model& model, RuntimeOptions options)
    : model_(model),
      options_(std::move(options)),
      act_(options_.rounding == Rounding::transformers ? model.dtype : DType::f32),
      layers_(model.layers),
      norm_(model.norm),
      scratch_(make_runtime_scratch(model_, options_)),
      pool_(thread_count(options_, model_, *scratch_)) {
  skip_base_ = options_.gpu_sequence && options_.skip_zero_rows && scratch_->found->gpu_keeps_base_zero &&
               scratch_->found->head_gpu;
  if (act_ != DType::f32) {
    for (LayerWeights& l : layers_) round_params(act_, l);
    for (float& w : norm_) w = norm_multiplier_in(act_, w);
  }
}

Runtime::~Runtime() = default;

void Runtime::forward(State& s, std::span<const int32_t> tokens, std::vector<float>& logits,
                      bool all_logits) {
  const Config& c = model_.config;
  if (tokens.empty()) fail("forward: no tokens to run");
  for (size_t i = 0; i < tokens.size(); ++i)
    if (tokens[i] < 0 || tokens[i] >= c.vocab_size)
      fail("token {} (position {}) is outside the vocabulary [0, {})", tokens[i], i, c.vocab_size);
  if (options_.gpu_sequence && c.qgpu)
    for (size_t i = 0; i < tokens.size(); ++i)
      if (tokens[i] < c.qgpu->token_offset)
        fail("token {} (position {}) is the base's text, in a sequence of the GPU's tokens alone (a launch: "
             "RuntimeOptions::gpu_sequence); run text in its own sequence",
             tokens[i], i);
  int64_t V = c.vocab_size, T = static_cast<int64_t>(tokens.size());
  logits.resize(static_cast<size_t>((all_logits ? T : 1) * V));
  for (int64_t t0 = 0; t0 < T; t0 += options_.max_batch) {
    int64_t n = std::min(options_.max_batch, T - t0);
    bool last_chunk = t0 + n == T;
    float* dst = all_logits ? logits.data() + t0 * V : (last_chunk ? logits.data() : nullptr);
    forward_batch(s, tokens.subspan(t0, n), dst, all_logits);
  }
}

void Runtime::forward_batch(State& s, std::span<const int32_t> tokens, float* logits,
                            bool all_logits) {
  const Model& m = model_;
  const Config& c = m.config;
  Scratch& sc = *scratch_;
  const WeightStructure& found = *sc.found;
  const int64_t T = static_cast<int64_t>(tokens.size()), H = c.hidden_size;
  const float eps = static_cast<float>(c.rms_norm_eps);
  const Exec ex{options_.matmul, act_, pool_, options_.skip_zero_rows};
  auto trace = [&](const char* name, int il, float* v, int64_t width, int64_t rows = -1) {
    if (!options_.probe) return;
    if (rows < 0) rows = T;
    for (int64_t t = T - rows; t < T; ++t)
      options_.probe(name, il, s.n_past + t, std::span<float>(v + (t - (T - rows)) * width, static_cast<size_t>(width)));
  };

  embed(m, tokens, sc.x.data(), skip_base_);
  trace("embed", -1, sc.x.data(), H);
  // A launch inside a merged checkpoint: the GPU's layers alone (gpu_sequence).
  const int layers = skip_base_ ? c.qgpu->layers : c.num_hidden_layers;

  for (int il = 0; il < layers; ++il) {
    const LayerWeights& l = layers_[il];
    const bool skip = options_.skip_zero_rows;
    if (skip && found.mixer_zero[il]) {
      std::fill_n(sc.out.data(), T * H, 0.0f);  // the output is +0 and the state stays: no norm either
    } else {
      if (T == 1 && skip)  // with the list of a's nonzeros, for its projections
        rms_norm_scan(sc.x.data(), l.input_layernorm.data(), sc.a.data(), H, eps, act_, sc.csr_inputs);
      else
        rms_norm_rows(sc.x.data(), l.input_layernorm.data(), sc.a.data(), T, H, eps, act_);
      if (l.linear)
        deltanet_layer(m, l, s.layers[il], sc.a.data(), sc.out.data(), T, sc, ex,
                       skip ? std::span<const uint8_t>(found.dead_heads[il]) : std::span<const uint8_t>(),
                       skip && found.live_channels[il] ? &*found.live_channels[il] : nullptr, &options_.probe, il, s.n_past);
      else
        attention_layer(m, l, s.layers[il], s.n_past, sc.a.data(), sc.out.data(), T, sc, ex);
    }
    sc.csr_inputs.scanned = nullptr;  // a changes next
    trace("mixer_out", il, sc.out.data(), H);
    add(sc.x.data(), sc.out.data(), T * H, act_);
    trace("attn_residual", il, sc.x.data(), H);

    // MLP: down(SiLU(gate a) * up a); a: [T][H], gate/up: [T][I]
    int64_t I = c.intermediate_size;
    if (skip && found.mlp_zero[il]) {
      std::fill_n(sc.out.data(), T * H, 0.0f);  // down_proj = 0
    } else {
      if (T == 1 && skip)  // and the list, for gate and up
        rms_norm_scan(sc.x.data(), l.post_attention_layernorm.data(), sc.a.data(), H, eps, act_, sc.csr_inputs);
      else
        rms_norm_rows(sc.x.data(), l.post_attention_layernorm.data(), sc.a.data(), T, H, eps, act_);
      linear(l.gate_proj, sc.a.data(), sc.big1.data(), T, sc, ex);
      linear(l.up_proj, sc.a.data(), sc.big2.data(), T, sc, ex);
      sc.csr_inputs.scanned = nullptr;
      // HF: self.act_fn(self.gate_proj(x)) * self.up_proj(x), each a tensor in the dtype.
      if (skip) {
        for (int64_t t = 0; t < T; ++t) swiglu(sc.big1.data() + t * I, sc.big2.data() + t * I, found.mlp_units[il], act_);
      } else {
        swiglu(sc.big1.data(), sc.big2.data(), T * I, act_);
      }
      trace("mlp_act", il, sc.big1.data(), I);
      linear(l.down_proj, sc.big1.data(), sc.out.data(), T, sc, ex);
    }
    trace("ffn_out", il, sc.out.data(), H);
    add(sc.x.data(), sc.out.data(), T * H, act_);
    trace("layer_out", il, sc.x.data(), H);
  }
  if (skip_base_ && layers < c.num_hidden_layers) skipped_base_layers(sc.x.data(), T * H, s.n_past);
  if (!logits) {
    s.n_past += T;
    return;
  }
  // Head: all positions, or only the last. Logits in the dtype (HF: no upcast without labels).
  int64_t first = all_logits ? 0 : T - 1, n = T - first;
  rms_norm_rows(&sc.x[first * H], norm_.data(), sc.a.data(), n, H, eps, act_);
  trace("result_norm", -1, sc.a.data(), H, n);
  head(m, skip_base_, sc.a.data(), logits, n, sc, ex);
  s.n_past += T;
}

}  // namespace qgpu::engine
