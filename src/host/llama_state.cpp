// QLS1: "QLS1", u32 n_layer, u32 n_past, then per layer u32 n_conv, n_recurrent, n_k, n_v and
// the four f32 arrays in llama.cpp's element order (tests/llamacpp/llama_state.mjs).
#include "host/llama_state.h"

#include <cstring>
#include <vector>

#include "base/error.h"
#include "base/mapped_file.h"

namespace qgpu::host {

namespace {

constexpr const char* kRemedy = "rerun tests/llamacpp/llama_state.mjs with the GGUF of this model";

struct Cursor {
  const MappedFile& f;
  size_t at = 0;

  void need(size_t n, const char* what) const {
    if (n > f.size() - at)
      fail("{}: truncated at byte {} reading {} ({} bytes, {} left); {}", f.path(), at, what, n, f.size() - at,
           kRemedy);
  }
  uint32_t u32(const char* what) {
    need(4, what);
    uint32_t v;
    std::memcpy(&v, f.data() + at, 4);
    at += 4;
    return v;
  }
  std::vector<float> f32s(uint32_t n, const char* what) {
    need(static_cast<size_t>(n) * 4, what);
    std::vector<float> v(n);
    if (n > 0) std::memcpy(v.data(), f.data() + at, static_cast<size_t>(n) * 4);
    at += static_cast<size_t>(n) * 4;
    return v;
  }
};

// Grouped (HF) value head of tiled (GGUF) head p: p = v * Hk + k holds k * r + v.
int grouped_head(const engine::Config& c, int p, bool v_heads_tiled) {
  if (v_heads_tiled) return p;
  int hk = c.linear_num_key_heads, r = c.linear_num_value_heads / hk;
  return (p % hk) * r + p / hk;
}

void expect_count(const std::string& path, int il, const char* what, uint32_t got, size_t want) {
  if (got != want)
    fail("{}: layer {} has {} {} floats, the model needs {}; the state is of another model; {}", path, il, got,
         what, want, kRemedy);
}

}  // namespace

engine::State read_llama_state(const engine::Config& c, const std::string& path, bool v_heads_tiled) {
  MappedFile f(path);
  Cursor in{f};
  in.need(4, "the magic");
  if (std::memcmp(f.data(), "QLS1", 4) != 0)
    fail("{}: not a QLS1 file (llama.cpp's raw sequence state is parsed by llama_state.mjs); {}", path, kRemedy);
  in.at = 4;
  uint32_t n_layer = in.u32("the layer count");
  uint32_t n_past = in.u32("the token count");
  if (n_layer != static_cast<uint32_t>(c.num_hidden_layers))
    fail("{}: {} layers, the model has {}; {}", path, n_layer, c.num_hidden_layers, kRemedy);

  engine::State s = engine::make_state(c);
  s.n_past = n_past;
  const int K1 = c.linear_conv_kernel_dim - 1, C = c.conv_dim(), dk = c.linear_key_head_dim,
            dv = c.linear_value_head_dim, hv = c.linear_num_value_heads, hd = dv;
  const size_t kv_row = static_cast<size_t>(c.num_key_value_heads) * c.head_dim;
  for (int il = 0; il < c.num_hidden_layers; ++il) {
    uint32_t n_conv = in.u32("a conv count"), n_rec = in.u32("a recurrent count");
    uint32_t n_k = in.u32("a key count"), n_v = in.u32("a value count");
    std::vector<float> conv = in.f32s(n_conv, "a conv state"), rec = in.f32s(n_rec, "a recurrent state");
    std::vector<float> keys = in.f32s(n_k, "keys"), values = in.f32s(n_v, "values");
    engine::LayerState& l = s.layers[il];
    if (!c.is_linear(il)) {
      expect_count(path, il, "conv", n_conv, 0);
      expect_count(path, il, "recurrent", n_rec, 0);
      expect_count(path, il, "key", n_k, n_past * kv_row);
      expect_count(path, il, "value", n_v, n_past * kv_row);
      l.keys = std::move(keys);
      l.values = std::move(values);
      continue;
    }
    expect_count(path, il, "conv", n_conv, static_cast<size_t>(K1) * C);
    expect_count(path, il, "recurrent", n_rec, static_cast<size_t>(hv) * dk * dv);
    expect_count(path, il, "key", n_k, 0);
    expect_count(path, il, "value", n_v, 0);
    // conv: llama [ch][t] -> ours [t][ch]; a V channel of tiled head p moves to its head's slot.
    const int v0 = 2 * c.key_dim();
    for (int ch = 0; ch < C; ++ch) {
      int to = ch;
      if (ch >= v0) to = v0 + grouped_head(c, (ch - v0) / hd, v_heads_tiled) * hd + (ch - v0) % hd;
      for (int t = 0; t < K1; ++t) l.conv[static_cast<size_t>(t) * C + to] = conv[static_cast<size_t>(ch) * K1 + t];
    }
    // recurrent: llama head p holds [j][i] (v-major) = our S[i][j] of head grouped_head(p).
    const size_t n = static_cast<size_t>(dk) * dv;
    for (int p = 0; p < hv; ++p) {
      const float* src = rec.data() + p * n;
      float* dst = l.recurrent.data() + grouped_head(c, p, v_heads_tiled) * n;
      for (int i = 0; i < dk; ++i)
        for (int j = 0; j < dv; ++j) dst[static_cast<size_t>(i) * dv + j] = src[static_cast<size_t>(j) * dk + i];
    }
  }
  if (in.at != f.size())
    fail("{}: {} bytes after the last layer; the file is damaged; {}", path, f.size() - in.at, kRemedy);
  return s;
}

}  // namespace qgpu::host
