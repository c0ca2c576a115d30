#include "host/gpu_model.h"

#include <chrono>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>

#include "base/error.h"
#include "engine/ops.h"
#include "lift/machine_model.h"

namespace qgpu::host {

using engine::CsrEntry;
using engine::CsrWeight;
using engine::Linear;

GpuModel gpu_only_model(engine::DType dtype) {
  const auto start = std::chrono::steady_clock::now();
  GpuModel g{lift::build_machine().model(dtype)};
  g.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return g;
}

namespace {

// The GPU-only model's weight `gpu` placed in a merged weight of in_cols inputs: rows from
// row_off, columns from col_off (the GPU's dims and tokens sit after the base's).
std::shared_ptr<const CsrWeight> placed(const Linear& gpu, int64_t in_cols, int64_t row_off, int64_t col_off) {
  const CsrWeight& g = *gpu.sparse;
  std::vector<CsrEntry> entries;
  entries.reserve(static_cast<size_t>(g.nnz()));
  for (size_t k = 0; k < g.rows.size(); ++k)
    for (int64_t i = g.row_start[k]; i < g.row_start[k + 1]; ++i)
      entries.push_back({static_cast<int32_t>(g.rows[k] + row_off), static_cast<int32_t>(g.col[i] + col_off), g.value[i]});
  return std::make_shared<const CsrWeight>(engine::make_csr(in_cols, entries));
}

// The rows checked of a weight with `rows` rows: all, or 16 (first, last, 14 spread by a
// hash of the name, so an edit anywhere is found by some load... of some tensor).
std::vector<int64_t> checked_rows(const std::string& name, int64_t first, int64_t rows, bool all) {
  std::vector<int64_t> out;
  if (all || rows - first <= 16) {
    for (int64_t r = first; r < rows; ++r) out.push_back(r);
    return out;
  }
  const uint64_t h = std::hash<std::string>{}(name);
  out = {first, rows - 1};
  const int64_t span = rows - first;
  for (int i = 0; i < 14; ++i) out.push_back(first + static_cast<int64_t>((h + static_cast<uint64_t>(i) * 0x9e3779b97f4a7c15ull) % static_cast<uint64_t>(span)));
  return out;
}

// The file's rows of w (dense) against the construction's (c, over w's inputs): equal as
// numbers (+0 and -0 alike), or one Error naming the tensor and row.
int64_t check_rows(const Linear& w, std::shared_ptr<const CsrWeight> c, int64_t first, bool all, const std::string& path) {
  CHECK(!w.is_sparse());
  const Linear construction{engine::TensorView{w.w.name, w.w.dtype, w.w.shape, nullptr}, std::move(c)};
  std::vector<float> got(static_cast<size_t>(w.in())), want(got.size());
  int64_t n = 0;
  for (int64_t r : checked_rows(w.w.name, first, w.out(), all)) {
    w.row(r, got.data());
    construction.row(r, want.data());
    for (int64_t i = 0; i < w.in(); ++i)
      if (!(got[i] == want[i]))
        fail("{}: tensor {} row {} column {} is {} but the GPU's construction (fingerprint {}) puts {} there: the "
             "checkpoint was edited after `qgpu build`; rebuild it",
             path, w.w.name, r, i, got[i], lift::construction_fingerprint(), want[i]);
    ++n;
  }
  return n;
}

// Calls fn(file weight, the construction's weight placed over it, first row checked) for
// every matrix the GPU owns in merged checkpoint m: its layers' and the head's GPU rows.
// The GPU's embedding rows are read from the file (a row a token).
void for_each_gpu_matrix(engine::Model& m, const std::function<void(Linear&, std::shared_ptr<const CsrWeight>, int64_t)>& fn) {
  const engine::GpuPlacement& g = *m.config.qgpu;
  const int64_t d = g.hidden_offset;
  const engine::Model gpu = lift::build_machine(m.config.hidden_size).model(m.dtype);
  if (static_cast<int>(gpu.layers.size()) != g.layers)
    fail("config.json's \"qgpu\" says the GPU has {} layers; this qgpu's construction has {}", g.layers, gpu.layers.size());
  for (int il = 0; il < g.layers; ++il) {
    engine::LayerWeights& l = m.layers[static_cast<size_t>(il)];
    const engine::LayerWeights& s = gpu.layers[static_cast<size_t>(il)];
    if (l.linear != s.linear) fail("layer {} of the merged checkpoint is not the GPU's layer {} (its kind differs)", il, il);
    auto reader = [&](Linear& w, const Linear& c) { fn(w, placed(c, w.in(), 0, d), 0); };
    auto writer = [&](Linear& w, const Linear& c) { fn(w, placed(c, w.in(), d, 0), 0); };
    if (l.linear) {
      for (auto [w, c] : {std::pair{&l.linear_attn.in_proj_qkv, &s.linear_attn.in_proj_qkv},
                          {&l.linear_attn.in_proj_z, &s.linear_attn.in_proj_z}, {&l.linear_attn.in_proj_b, &s.linear_attn.in_proj_b},
                          {&l.linear_attn.in_proj_a, &s.linear_attn.in_proj_a}})
        reader(*w, *c);
      writer(l.linear_attn.out_proj, s.linear_attn.out_proj);
    } else {
      for (auto [w, c] : {std::pair{&l.self_attn.q_proj, &s.self_attn.q_proj}, {&l.self_attn.k_proj, &s.self_attn.k_proj},
                          {&l.self_attn.v_proj, &s.self_attn.v_proj}})
        reader(*w, *c);
      writer(l.self_attn.o_proj, s.self_attn.o_proj);
    }
    reader(l.gate_proj, s.gate_proj);
    reader(l.up_proj, s.up_proj);
    writer(l.down_proj, s.down_proj);
  }
  fn(m.lm_head, placed(gpu.lm_head, m.lm_head.in(), g.token_offset, d), g.token_offset);
}

bool merged_safetensors(const engine::Model& m) {
  return m.config.qgpu && m.config.qgpu->hidden_offset > 0 && !m.safetensors.empty();
}

}  // namespace

engine::Model load_checkpoint(const std::string& path, std::optional<engine::DType> dtype) {
  const engine::Config c = std::filesystem::is_directory(path) ? engine::load_config(path) : engine::Config{};
  const bool trusted = c.qgpu && c.qgpu->hidden_offset > 0 &&
                       c.qgpu->construction == lift::construction_fingerprint();
  // A trusted merge in another dtype: loaded as stored, its GPU replaced by the construction
  // in that dtype, and only the rest converted (not the GPU's gigabytes of file zeros).
  engine::Model m = engine::load_model(path, trusted ? std::nullopt : dtype);
  if (!merged_safetensors(m)) return m;
  if (!trusted) {
    fmt::print(stderr, "qgpu: {} was merged by another qgpu (construction {}; this one's is {}): its GPU is read from the file\n",
               path, m.config.qgpu->construction, lift::construction_fingerprint());
    return m;
  }
  std::vector<Linear*> gpu;
  for_each_gpu_matrix(m, [&](Linear& w, std::shared_ptr<const CsrWeight> c, int64_t first) {
    if (w.is_sparse()) return;
    check_rows(w, c, first, false, path);
    if (first == 0) {
      w = Linear{engine::TensorView{w.w.name, w.w.dtype, w.w.shape, nullptr}, std::move(c)};
    } else {
      m.head_gpu_rows = std::move(c);  // the head: the base's rows stay dense (forward.cpp)
    }
  });
  if (!dtype || *dtype == m.dtype) return m;
  // The GPU again, placed from the construction in `dtype` (the file's rows were checked
  // against it in the file's dtype); the base's weights, the embedding and the head converted.
  m.dtype = *dtype;
  for_each_gpu_matrix(m, [&](Linear& w, std::shared_ptr<const CsrWeight> c, int64_t first) {
    if (first == 0)
      w = Linear{engine::TensorView{w.w.name, m.dtype, w.w.shape, nullptr}, std::move(c)};
    else
      m.head_gpu_rows = std::move(c);
  });
  auto convert = [&](Linear& w) {
    if (!w.is_sparse() && w.w.data) w = engine::bind_linear(m, w.w, w.w.shape);
  };
  for (engine::LayerWeights& l : m.layers)
    for (Linear* w : {&l.linear_attn.in_proj_qkv, &l.linear_attn.in_proj_z, &l.linear_attn.in_proj_b, &l.linear_attn.in_proj_a,
                      &l.linear_attn.out_proj, &l.self_attn.q_proj, &l.self_attn.k_proj, &l.self_attn.v_proj,
                      &l.self_attn.o_proj, &l.gate_proj, &l.up_proj, &l.down_proj})
      convert(*w);
  convert(m.embed_tokens);
  if (m.config.tie_word_embeddings)
    m.lm_head = m.embed_tokens;
  else
    convert(m.lm_head);
  return m;
}

int64_t verify_merged_gpu(engine::Model& m, const std::string& path) {
  if (!merged_safetensors(m)) fail("{}: not a merged checkpoint (config.json has no \"qgpu\" object with a GPU placement)", path);
  int64_t rows = 0;
  for_each_gpu_matrix(m, [&](Linear& w, std::shared_ptr<const CsrWeight> c, int64_t first) {
    rows += check_rows(w, std::move(c), first, true, path);
  });
  return rows;
}

}  // namespace qgpu::host
