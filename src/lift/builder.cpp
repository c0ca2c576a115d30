// Zero-initialised tensors with the identity settings, held sparse; written through the
// engine's safetensors writer so the checkpoint is exactly what transformers and our
// loader read.
#include "lift/builder.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <ostream>

#include "base/error.h"
#include "base/mapped_file.h"
#include "engine/ops.h"
#include "engine/safetensors.h"

namespace qgpu::lift {

using engine::Config;

namespace {

void add(Builder& b, const std::string& name, std::vector<int64_t> shape, float fill = 0.0f) {
  Builder::Tensor t{std::move(shape), fill, {}};
  CHECK(t.numel() - 1 <= EntryMap::kMaxKey);  // its flat indices are the map's keys
  b.tensors[name] = std::move(t);
}

void add_layer(Builder& b, int il) {
  const Config& c = b.config;
  int64_t H = c.hidden_size, I = c.intermediate_size;
  std::string p = b.layer(il);
  add(b, p + "input_layernorm.weight", {H});
  add(b, p + "post_attention_layernorm.weight", {H});
  add(b, p + "mlp.gate_proj.weight", {I, H});
  add(b, p + "mlp.up_proj.weight", {I, H});
  add(b, p + "mlp.down_proj.weight", {H, I});
  if (c.is_linear(il)) {
    std::string a = p + "linear_attn.";
    int64_t Hv = c.linear_num_value_heads;
    add(b, a + "in_proj_qkv.weight", {c.conv_dim(), H});
    add(b, a + "in_proj_z.weight", {c.value_dim(), H});
    add(b, a + "in_proj_b.weight", {Hv, H});
    add(b, a + "in_proj_a.weight", {Hv, H});
    add(b, a + "conv1d.weight", {c.conv_dim(), 1, c.linear_conv_kernel_dim});
    add(b, a + "dt_bias", {Hv});
    add(b, a + "A_log", {Hv}, kALogNoDecay);
    add(b, a + "norm.weight", {c.linear_value_head_dim}, 1.0f);
    add(b, a + "out_proj.weight", {H, c.value_dim()});
  } else {
    std::string a = p + "self_attn.";
    int64_t D = c.head_dim, nH = c.num_attention_heads, nKV = c.num_key_value_heads;
    add(b, a + "q_proj.weight", {nH * D * 2, H});
    add(b, a + "k_proj.weight", {nKV * D, H});
    add(b, a + "v_proj.weight", {nKV * D, H});
    add(b, a + "o_proj.weight", {H, nH * D});
    add(b, a + "q_norm.weight", {D});
    add(b, a + "k_norm.weight", {D});
  }
}

engine::DType stored_as(const Builder::Tensor& t, engine::DType dtype) { return engine::export_dtype(t.shape, dtype); }

// A matrix's nonzeros once rounded to dtype, as a sparse Linear; +-0 left out (the dense
// path's scan skips them too), except in the embedding, whose rows are copied, not summed.
engine::Linear sparse_linear(const std::string& name, const Builder::Tensor& t, engine::DType dtype) {
  CHECK(t.shape.size() == 2 && t.fill == 0.0f);
  const bool keep_negative_zero = name.ends_with("embed_tokens.weight");
  const std::vector<EntryMap::Entry> set = t.set.sorted();
  std::vector<engine::CsrEntry> entries;
  entries.reserve(set.size());
  const int32_t cols = static_cast<int32_t>(t.shape[1]);
  for (const auto& [i, x] : set) {
    const float v = engine::round_to(dtype, x);
    if (v == 0.0f && !(keep_negative_zero && std::signbit(v))) continue;
    entries.push_back({i / cols, i % cols, v});
  }
  engine::Linear w{engine::TensorView{name, dtype, t.shape, nullptr}, nullptr};
  w.sparse = std::make_shared<const engine::CsrWeight>(engine::make_csr(cols, entries));
  return w;
}

}  // namespace

engine::Model Builder::model(engine::DType dtype) const {
  std::deque<engine::TensorData> dense;
  std::map<std::string, engine::Linear> sparse;
  for (const auto& [name, t] : tensors) {
    if (t.shape.size() == 2)
      sparse.emplace(name, sparse_linear(name, t, dtype));
    else
      dense.push_back(engine::make_tensor(name, stored_as(t, dtype), t.shape, t.dense()));
  }
  return engine::bind_model(config, dtype, std::move(dense), sparse, "the compiled machine");
}

int64_t Builder::Tensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::vector<float> Builder::Tensor::dense() const {
  std::vector<float> v(static_cast<size_t>(numel()), fill);
  set.for_each([&](int64_t i, float x) { v[static_cast<size_t>(i)] = x; });
  return v;
}

// Where probing for key starts in a table of mask + 1 slots (Fibonacci hashing).
size_t EntryMap::home(int32_t key, size_t mask) {
  return static_cast<size_t>(static_cast<uint32_t>(key)) * 0x9e3779b97f4a7c15ull >> 20 & mask;
}

float& EntryMap::get(int64_t key, float fill) {
  CHECK(key >= 0 && key <= kMaxKey);
  if (2 * (size_ + 1) > slots_.size()) grow();
  const size_t mask = slots_.size() - 1;
  const auto k = static_cast<int32_t>(key);
  for (size_t i = home(k, mask);; i = (i + 1) & mask) {
    Entry& e = slots_[i];
    if (e.key == k) return e.value;
    if (e.key < 0) {
      e = {k, fill}, ++size_;
      return e.value;
    }
  }
}

void EntryMap::grow() {
  std::vector<Entry> slots(std::max<size_t>(64, 2 * slots_.size()), Entry{-1, 0.0f});
  const size_t mask = slots.size() - 1;
  for (const Entry& e : slots_) {
    if (e.key < 0) continue;
    size_t i = home(e.key, mask);
    while (slots[i].key >= 0) i = (i + 1) & mask;
    slots[i] = e;
  }
  slots_.swap(slots);
}

// An LSD radix sort, 11 bits a pass: keys are flat indices of at most a few hundred million,
// so three passes, each linear (a comparison sort of the 3 M entries took 0.1 s).
std::vector<EntryMap::Entry> EntryMap::sorted() const {
  std::vector<Entry> v, tmp(size_);
  v.reserve(size_);
  int32_t top = 0;
  for (const Entry& e : slots_)
    if (e.key >= 0) v.push_back(e), top = std::max(top, e.key);
  constexpr int kBits = 11;
  for (int shift = 0; shift < 31 && (top >> shift) > 0; shift += kBits) {
    std::vector<size_t> start((size_t{1} << kBits) + 1, 0);
    for (const Entry& e : v) ++start[(e.key >> shift & ((1 << kBits) - 1)) + 1];
    for (size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
    for (const Entry& e : v) tmp[start[e.key >> shift & ((1 << kBits) - 1)]++] = e;
    v.swap(tmp);
  }
  return v;
}

Builder::Builder(Config c) : config(std::move(c)) {
  int64_t H = config.hidden_size, V = config.vocab_size;
  add(*this, "model.embed_tokens.weight", {V, H});
  for (int il = 0; il < config.num_hidden_layers; ++il) add_layer(*this, il);
  add(*this, "model.norm.weight", {H});
  if (!config.tie_word_embeddings) add(*this, "lm_head.weight", {V, H});
}

std::string Builder::layer(int il) const { return fmt::format("model.layers.{}.", il); }

Builder::Tensor& Builder::tensor(const std::string& name) {
  if (last_ && name == last_->first) return last_->second;
  auto it = tensors.find(name);
  CHECK(it != tensors.end());
  last_ = &*it;
  return it->second;
}

float& Builder::at(const std::string& name, int64_t row, int64_t col) {
  Tensor& t = tensor(name);
  int64_t cols = t.shape.size() >= 2 ? t.shape[1] : 1;
  CHECK(row >= 0 && row < t.shape[0] && col >= 0 && col < cols);
  return t.set.get(row * cols + col, t.fill);
}

float& Builder::conv(int il, int64_t channel, int tap) {
  Tensor& t = tensor(layer(il) + "linear_attn.conv1d.weight");
  int K = config.linear_conv_kernel_dim;
  CHECK(tap >= 0 && tap < K);
  CHECK(channel >= 0 && channel < config.conv_dim());
  return t.set.get(channel * K + tap, t.fill);
}

void Builder::write(const std::string& dir, engine::DType dtype, const std::string& tokenizer_json) const {
  std::filesystem::create_directories(dir);
  // Each tensor is made dense (and converted) only while the writer streams it.
  std::vector<engine::TensorView> views;
  for (const auto& [name, t] : tensors) {
    const engine::DType as = stored_as(t, dtype);
    engine::TensorView v{name, as, t.shape, nullptr};
    v.produce = [&t = t, as, name = name](std::ostream& out) {  // (clang 14 cannot capture a binding)
      if (t.shape.size() != 2 || t.fill != 0.0f) {
        engine::TensorData d = engine::make_tensor(name, as, t.shape, t.dense());
        out.write(reinterpret_cast<const char*>(d.bytes.data()), static_cast<std::streamsize>(d.bytes.size()));
        return;
      }
      const std::vector<EntryMap::Entry> set = t.set.sorted();  // a matrix: row by row
      const int64_t cols = t.shape[1];
      size_t next = 0;
      engine::write_rows(out, as, t.shape[0], cols, [&](int64_t r, float* f) {
        const size_t first = next;
        for (; next < set.size() && set[next].key < (r + 1) * cols; ++next) f[set[next].key - r * cols] = set[next].value;
        return next > first;
      });
    };
    views.push_back(std::move(v));
  }
  engine::write_safetensors_dir(dir, views);
  engine::Config c = config;
  c.dtype = engine::torch_dtype_name(dtype);
  write_file_atomic(dir + "/config.json", [&](std::ostream& o) { o << engine::config_to_json(c).dump(2) << "\n"; });
  write_file_atomic(dir + "/tokenizer.json", [&](std::ostream& o) { o << tokenizer_json; });
}

}  // namespace qgpu::lift
