// Shared between forward.cpp and the mixers (forward_deltanet.cpp, forward_attention.cpp):
// the scratch buffers, allocated once per Runtime and sized for max_batch tokens.
#pragma once

#include <vector>

#include "engine/forward.h"

namespace qgpu::engine {

struct Runtime::Scratch {
  std::vector<float> x;         // [T][H] residual
  std::vector<float> a;         // [T][H] normed input of a sublayer
  std::vector<float> out;       // [T][H] sublayer output
  std::vector<float> big1;      // [T][max(conv_dim, nH*2D, I)]
  std::vector<float> big2;      // [T][max(Hv*dv, nKV*D, I)]
  std::vector<float> big3;      // [T][max(Hv*dv, nKV*D, nH*D)]
  std::vector<float> v;         // [T][nKV*D]
  std::vector<float> small1;    // [T][Hv]
  std::vector<float> small2;    // [T][Hv]
  std::vector<float> conv_out;  // [conv_dim] one token after conv + SiLU
  std::vector<float> head_tmp;  // [Hv][dv] per-head scratch (δ)
  std::vector<float> scores;    // attention scores, grows with the sequence
  std::vector<uint8_t> xq;      // activations rounded to the weight dtype
};

// One matmul through the chosen path.
void linear(const Linear& w, const float* x, float* y, int64_t T, Runtime::Scratch& s,
            MatmulPath path, ThreadPool& pool);

void deltanet_layer(const Model& m, const LayerWeights& l, LayerState& st, const float* a,
                    float* out, int64_t T, Runtime::Scratch& s, MatmulPath path, ThreadPool& pool);
void attention_layer(const Model& m, const LayerWeights& l, LayerState& st, int64_t n_past,
                     const float* a, float* out, int64_t T, Runtime::Scratch& s, MatmulPath path,
                     ThreadPool& pool);

}  // namespace qgpu::engine
