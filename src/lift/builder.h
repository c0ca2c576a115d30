// Writes a Qwen3.5 checkpoint whose weights are computed, not trained: every tensor of the
// config exists, zero-filled, with the identity settings of qwen35.md §3.8 (zero-centred
// norms 0, gated norm 1, A_log for decay exactly 1); the construction then sets entries by
// HF tensor name. Only the entries set are held (the machine's 2 G weights have about
// 4 M nonzeros); write() streams each matrix a chunk of rows at a time (engine::write_rows),
// so memory stays about a megabyte beyond the entries. Written as a HF directory (config.json, safetensors,
// tokenizer.json).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/config.h"
#include "engine/model.h"
#include "engine/tensor.h"

namespace qgpu::lift {

// A_log of every DeltaNet head: exp(-30) * softplus(0) = 6.5e-14, so the decay
// exp(g) rounds to exactly 1 in f32 (and -30 is exact in bf16 and f16).
inline constexpr float kALogNoDecay = -30.0f;

// Flat index -> value, by open addressing: the construction sets about 3 M entries in
// random order, and a node-based map spent more time allocating, rehashing and freeing
// than the construction took (the GPU-only model is built at every start). A slot is a
// 32-bit key and its value side by side, so a probe touches one cache line: separate key
// and value arrays missed twice a get (four times under ASan, with the shadow).
class EntryMap {
 public:
  struct Entry {
    int32_t key;  // -1: empty
    float value;
  };
  static constexpr int64_t kMaxKey = INT32_MAX - 1;  // a tensor's flat index must fit
  float& get(int64_t key, float fill);               // the entry, made `fill` if absent
  size_t size() const { return size_; }
  std::vector<Entry> sorted() const;  // by key
  template <typename Fn>
  void for_each(Fn fn) const {  // fn(key, value), in no particular order
    for (const Entry& e : slots_)
      if (e.key >= 0) fn(int64_t{e.key}, e.value);
  }

 private:
  static size_t home(int32_t key, size_t mask);
  void grow();
  std::vector<Entry> slots_;
  size_t size_ = 0;
};

struct Builder {
  struct Tensor {
    std::vector<int64_t> shape;
    float fill = 0.0f;                         // every entry not set
    EntryMap set;                              // flat index -> value
    int64_t numel() const;
    std::vector<float> dense() const;
  };
  engine::Config config;
  std::map<std::string, Tensor> tensors;
  Tensor& tensor(const std::string& name);  // CHECKs the name; the last one found is cached

  explicit Builder(engine::Config c);
  // The tensor's element [row][col] (2-D) or [row] (1-D; col 0). CHECKs the name and range.
  float& at(const std::string& name, int64_t row, int64_t col = 0);
  float& conv(int il, int64_t channel, int tap);  // linear_attn.conv1d.weight[channel][0][tap]
  std::string layer(int il) const;                // "model.layers.{il}."

  // Writes DIR/config.json, the safetensors (matrices as dtype, 1-D tensors f32) and
  // tokenizer.json (text); each matrix is written a chunk of rows at a time, never dense.
  void write(const std::string& dir, engine::DType dtype, const std::string& tokenizer_json) const;
  // The model in memory, never dense: every matrix (matmul weights, the embedding) a sparse
  // Linear of its nonzeros rounded to dtype, the other tensors as write() stores them; it
  // computes what load_model(DIR) computes after write(DIR, dtype), bit for bit.
  engine::Model model(engine::DType dtype) const;

  Builder(const Builder&) = delete;  // tensor()'s cache points into `tensors`
  Builder& operator=(const Builder&) = delete;
  Builder(Builder&&) = default;      // a moved map keeps its nodes
  Builder& operator=(Builder&&) = default;

 private:
  std::pair<const std::string, Tensor>* last_ = nullptr;  // tensor()'s cache
};

}  // namespace qgpu::lift
