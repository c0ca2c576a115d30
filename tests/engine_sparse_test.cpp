// skip_zero_rows on tiny random checkpoints made mostly zeros: the CSR matmul is the
// reference's arithmetic and the parts it skips (zero rows, dead DeltaNet heads, a zero
// MLP) contribute exact zeros, so the logits and the whole state equal the reference path's
// bit for bit. The compiled machine itself: machine_model_test.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <random>

#include "engine/forward.h"
#include "engine/forward_internal.h"
#include "engine/tiny_model.h"
#include "test_util.h"

namespace qgpu::engine {
namespace {

using test_util::TempDir;

// Rows [begin, end) of a weight.
struct Rows {
  int64_t begin, end;
};

// Replaces w by a copy in which every third row and the `zero` rows are zero and every other
// row keeps `per_row` of its weights (positions at random); per_row 0: all of w is zero.
void sparsify(Model& m, Linear& w, int64_t per_row, std::mt19937& rng, std::vector<Rows> zero = {}) {
  std::vector<float> v = to_f32(w.w), kept(v.size(), 0.0f);
  std::vector<int64_t> cols(w.in());
  for (int64_t i = 0; i < w.in(); ++i) cols[i] = i;
  for (int64_t o = 0; o < w.out(); ++o) {
    bool dead = o % 3 == 2;
    for (Rows r : zero) dead = dead || (o >= r.begin && o < r.end);
    if (dead) continue;
    std::shuffle(cols.begin(), cols.end(), rng);
    for (int64_t k = 0; k < per_row; ++k) kept[o * w.in() + cols[k]] = v[o * w.in() + cols[k]];
  }
  m.owned.push_back(make_tensor(w.w.name, w.w.dtype, w.w.shape, kept));
  w.w = m.owned.back().view();
}

// Every Linear at most 1/16 nonzero in its nonzero rows (all go to the CSR kernel); with
// dead parts: layer 0's key head 0 has zero q and k rows (its value heads are dead) and
// layer 2 has a zero DeltaNet mixer (in_proj_qkv and out_proj zero, z, a and b not: a
// skipped mixer) and a zero down_proj (a skipped MLP). o_proj stays nonzero: a skipped
// attention layer writes no KV cache, which would leave nothing to compare there.
void make_sparse(Model& m) {
  std::mt19937 rng(3);
  auto few = [](const Linear& w) { return std::max<int64_t>(1, w.in() / 20); };
  for (LayerWeights& l : m.layers) {
    DeltaNetWeights& d = l.linear_attn;
    AttentionWeights& a = l.self_attn;
    const bool dead_mixer = &l == &m.layers[2];
    for (Linear* w : {&d.in_proj_z, &d.in_proj_b, &d.in_proj_a, &a.q_proj, &a.k_proj, &a.v_proj, &a.o_proj,
                      &l.gate_proj, &l.up_proj})
      if (w->w.data) sparsify(m, *w, few(*w), rng);
    if (d.out_proj.w.data) sparsify(m, d.out_proj, dead_mixer ? 0 : few(d.out_proj), rng);
    if (d.in_proj_qkv.w.data) {
      const int64_t dk = m.config.linear_key_head_dim, k0 = m.config.key_dim();
      std::vector<Rows> head0 = {{0, dk}, {k0, k0 + dk}};
      sparsify(m, d.in_proj_qkv, dead_mixer ? 0 : few(d.in_proj_qkv), rng,
               &l == &m.layers[0] ? head0 : std::vector<Rows>{});
    }
    sparsify(m, l.down_proj, &l == &m.layers[2] ? 0 : few(l.down_proj), rng);
  }
  sparsify(m, m.lm_head, few(m.lm_head), rng);
}

struct Outcome {
  std::vector<float> logits;  // a prefill's, every position, then three decodes'
  State state;
};

const std::vector<int32_t> kTokens = {5, 17, 300, 42, 42, 7, 250, 1, 99, 370, 3, 12, 60};

Outcome run(const Model& m, RuntimeOptions o) {
  Runtime rt(m, o);
  Outcome r{{}, make_state(m.config)};
  rt.forward(r.state, kTokens, r.logits, /*all_logits=*/true);
  std::vector<float> step;
  for (int32_t tok : {9, 8, 7}) {
    rt.forward(r.state, std::span<const int32_t>(&tok, 1), step);
    r.logits.insert(r.logits.end(), step.begin(), step.end());
  }
  return r;
}

void expect_same_bits(const std::vector<float>& want, const std::vector<float>& got, const std::string& what) {
  test_util::expect_same_bits(want, got, what, "sparse");
}

void expect_same_run(const Outcome& want, const Outcome& got, const std::string& what) {
  expect_same_bits(want.logits, got.logits, what + " logits");
  EXPECT_EQ(want.state.n_past, got.state.n_past);
  for (size_t il = 0; il < want.state.layers.size(); ++il) {
    const LayerState &a = want.state.layers[il], &b = got.state.layers[il];
    std::string layer = what + " layer " + std::to_string(il);
    expect_same_bits(a.conv, b.conv, layer + " conv");
    expect_same_bits(a.recurrent, b.recurrent, layer + " recurrent");
    expect_same_bits(a.keys, b.keys, layer + " keys");
    expect_same_bits(a.values, b.values, layer + " values");
  }
}

TEST(EngineSparse, SparsePathEqualsReferenceBitForBit) {
  TempDir dir;
  write_tiny_model(dir / "m", {.layers = "LFLF", .intermediate_size = 96});
  for (DType t : {DType::f32, DType::bf16, DType::f16}) {
    Model m = load_model(dir / "m", t);
    make_sparse(m);
    Outcome ref = run(m, {.threads = 2, .matmul = MatmulPath::reference});
    expect_same_run(ref, run(m, {.threads = 2, .skip_zero_rows = true}), dtype_name(t));
    // The parts above were found, so the skips ran.
    const WeightStructure& found = *m.structure;
    EXPECT_EQ(found.mixer_zero, (std::vector<uint8_t>{0, 0, 1, 0}));
    EXPECT_EQ(found.mlp_zero, (std::vector<uint8_t>{0, 0, 1, 0}));
    EXPECT_EQ(found.dead_heads[0][0], 1);
    // Prefill in batches of 5 and the threads the CSR kernel splits its rows over.
    expect_same_run(ref, run(m, {.threads = 3, .max_batch = 5, .skip_zero_rows = true}),
                    std::string(dtype_name(t)) + " batches of 5");
  }
}

TEST(EngineSparse, DenseWeightsKeepTheirPathBesideSparseOnes) {
  // Only the MLPs sparse: with the reference path, CSR for those and the reference for
  // the rest is still the reference, bit for bit.
  TempDir dir;
  write_tiny_model(dir / "m", {.layers = "LLF"});
  Model m = load_model(dir / "m", DType::bf16);
  std::mt19937 rng(4);
  for (LayerWeights& l : m.layers)
    for (Linear* w : {&l.gate_proj, &l.up_proj, &l.down_proj}) sparsify(m, *w, 2, rng);
  Outcome ref = run(m, {.threads = 2, .matmul = MatmulPath::reference});
  expect_same_run(ref, run(m, {.threads = 2, .matmul = MatmulPath::reference, .skip_zero_rows = true}),
                  "bf16 sparse MLPs");
}

// write_rows (how exports stream matrices held sparse) writes make_tensor's bytes of the
// dense matrix: rows with entries, rows of zeros, -0, NaN, values that round in bf16/f16,
// chunks of one row (a row over 1 MB) and of many, and a last chunk cut short.
TEST(EngineSparse, WriteRowsIsTheDenseTensorsBytes) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> value(-70000.0f, 70000.0f);
  for (const auto& dims : {std::pair<int64_t, int64_t>{1000, 37}, {3, 300000}, {2, 1}}) {
    const int64_t rows = dims.first, cols = dims.second;  // (clang 14 cannot capture a binding)
    std::vector<float> dense(static_cast<size_t>(rows * cols), 0.0f);
    for (int64_t r = 0; r < rows; ++r)
      if (r % 3 != 1)
        for (int k = 0; k < 5; ++k) dense[static_cast<size_t>(r * cols + static_cast<int64_t>(rng() % cols))] = value(rng);
    dense[0] = -0.0f;
    dense[dense.size() - 1] = std::numeric_limits<float>::quiet_NaN();
    for (DType t : {DType::f32, DType::bf16, DType::f16}) {
      const TensorData want = make_tensor("w", t, {rows, cols}, dense);
      std::ostringstream out;
      int64_t asked = 0;
      write_rows(out, t, rows, cols, [&](int64_t r, float* f) {
        EXPECT_EQ(r, asked++);
        bool any = false;
        for (int64_t c = 0; c < cols; ++c) {
          EXPECT_EQ(f[c], 0.0f);
          const float x = dense[static_cast<size_t>(r * cols + c)];
          if (x != 0.0f || std::signbit(x) || std::isnan(x)) f[c] = x, any = true;
        }
        return any;
      });
      const std::string got = out.str();
      ASSERT_EQ(got.size(), want.bytes.size()) << rows << "x" << cols << " " << dtype_name(t);
      EXPECT_EQ(std::memcmp(got.data(), want.bytes.data(), got.size()), 0) << rows << "x" << cols << " " << dtype_name(t);
      EXPECT_EQ(asked, rows);
    }
  }
}

}  // namespace
}  // namespace qgpu::engine
