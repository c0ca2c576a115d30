// The CSR matmul against the reference, for every dtype and odd shapes: it is the
// reference's sum with the zero terms left out, so the two must agree bit for bit (memcmp:
// +0 and -0 are told apart too; both give +0 for a zero row, since a sum from +0 never
// becomes -0 in round-to-nearest).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "engine/ops.h"

namespace qgpu::engine {
namespace {

struct Case {
  DType dtype;
  int64_t out, in, T;
  double density;  // of the rows that are neither all zero nor dense
  double zero_inputs = 0;  // the share of inputs that are +0 or -0 (token 0 and 3: none)
  double runs = 0;         // the share of columns that also get a run of consecutive rows
};

// Random weights of c's density, with row 0 all zero and row 1 (when there is one) dense;
// every seventh row is zero too, and some zeros are -0.
std::vector<float> sparse_weights(const Case& c, std::mt19937& rng) {
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<float> w(c.out * c.in, 0.0f);
  for (int64_t o = 0; o < c.out; ++o) {
    if (o == 0 || o % 7 == 6) continue;
    for (int64_t i = 0; i < c.in; ++i)
      if (o == 1 || u(rng) < c.density) w[o * c.in + i] = d(rng);
      else if (u(rng) < 0.1) w[o * c.in + i] = -0.0f;
  }
  // Runs down a column (the column order adds them 4 rows at a time), of any length from
  // 1 to 3 kCsrRun, some with -0 inside.
  std::uniform_int_distribution<int64_t> len(1, 3 * kCsrRun), at(1, std::max<int64_t>(1, c.out - 1));
  for (int64_t i = 0; i < c.in && c.out > 1; ++i) {
    if (u(rng) >= c.runs) continue;
    const int64_t first = at(rng), n = len(rng);
    for (int64_t o = first; o < std::min(c.out, first + n); ++o) w[o * c.in + i] = u(rng) < 0.05 ? -0.0f : d(rng);
  }
  return w;
}

void check_csr(const Case& c, ThreadPool& pool) {
  std::mt19937 rng(static_cast<unsigned>(c.out * 131 + c.in * 7 + c.T));
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> x(c.T * c.in);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int64_t k = 0; k < c.T * c.in; ++k) {
    const int64_t t = k / c.in;
    x[k] = t % 3 != 0 && u(rng) < c.zero_inputs ? (u(rng) < 0.5 ? 0.0f : -0.0f) : d(rng);
  }
  TensorData wt = make_tensor("w", c.dtype, {c.out, c.in}, sparse_weights(c, rng));
  Linear lin{wt.view()};
  CsrWeight csr = make_csr(lin);
  std::vector<uint8_t> xq(c.T * c.in * 4);
  std::vector<float> y_ref(c.T * c.out), y_csr(c.T * c.out, 1.0f);  // 1: must be overwritten
  matmul_reference(lin, x.data(), y_ref.data(), c.T, xq.data());
  matmul_csr(lin, csr, x.data(), y_csr.data(), c.T, xq.data(), pool);
  if (std::memcmp(y_ref.data(), y_csr.data(), y_ref.size() * sizeof(float)) == 0) return;
  for (size_t k = 0; k < y_ref.size(); ++k)
    ASSERT_EQ(std::memcmp(&y_ref[k], &y_csr[k], sizeof(float)), 0)
        << dtype_name(c.dtype) << " out " << c.out << " in " << c.in << " T " << c.T
        << ": first mismatch at token " << k / c.out << " row " << k % c.out << ": reference "
        << y_ref[k] << ", csr " << y_csr[k];
}

TEST(OpsSparse, CsrMatmulEqualsReferenceBitForBit) {
  ThreadPool pool(2);
  for (DType t : {DType::f32, DType::bf16, DType::f16})
    for (int64_t in : {1, 3, 33, 257, 1000})
      for (int64_t out : {1, 2, 5, 17, 70})
        for (int64_t T : {1, 3, 4, 9})
          for (double density : {0.0, 0.02, 0.3}) check_csr({t, out, in, T, density}, pool);
}

TEST(OpsSparse, CsrMatmulOnMostlyZeroInputsEqualsReference) {
  // Inputs mostly +0 and -0 (the compiled machine's one-hot codes): tokens summed by
  // column, beside tokens dense enough for the rows, in one call.
  ThreadPool pool(1);
  for (DType t : {DType::f32, DType::bf16, DType::f16})
    for (int64_t in : {3, 257, 1000})
      for (int64_t out : {1, 17, 70})
        for (double density : {0.02, 0.3}) check_csr({t, out, in, 5, density, 0.95}, pool);
}

TEST(OpsSparse, CsrMatmulOfColumnRunsEqualsReference) {
  // Columns holding runs of consecutive rows (as the compiled machine's do), on mostly-zero
  // inputs, so that the column order takes the runs; and on dense ones, the rows.
  ThreadPool pool(1);
  for (DType t : {DType::f32, DType::bf16, DType::f16})
    for (int64_t in : {3, 257, 1000})
      for (int64_t out : {2, 17, 70, 301})
        for (double zero_inputs : {0.0, 0.95, 0.995}) check_csr({t, out, in, 5, 0.01, zero_inputs, 0.6}, pool);
}

TEST(OpsSparse, CsrMatmulOnThreadsEqualsReference) {
  // nnz * T past kParallelWork: 16 tokens are split over the pool (dense inputs by row,
  // mostly-zero ones by column); 2 tokens, fewer than the threads, split the rows.
  ThreadPool pool(3);
  for (DType t : {DType::f32, DType::bf16}) {
    check_csr({t, 301, 900, 16, 0.2}, pool);
    check_csr({t, 301, 900, 16, 0.2, 0.95, 0.6}, pool);
    check_csr({t, 1000, 2000, 2, 0.2}, pool);
  }
}

TEST(OpsSparse, CsrKeepsOnlyNonzeros) {
  TensorData w = make_tensor("w", DType::bf16, {4, 5},
                             {0, 0, 0, 0, 0,  0, 2, -0.0f, 0, 3,  0, 0, 0, 0, 0,  1, 0, 0, 0, 0});
  CsrWeight csr = make_csr(Linear{w.view()});
  EXPECT_EQ(csr.rows, (std::vector<int32_t>{1, 3}));
  EXPECT_EQ(csr.row_start, (std::vector<int64_t>{0, 2, 3}));
  EXPECT_EQ(csr.col, (std::vector<int32_t>{1, 4, 0}));
  EXPECT_EQ(csr.value, (std::vector<float>{2, 3, 1}));
  EXPECT_EQ(csr.used_cols, (std::vector<int32_t>{0, 1, 4}));
  EXPECT_EQ(csr.col_start, (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(csr.by_col_row, (std::vector<int32_t>{3, 1, 1}));
  EXPECT_EQ(csr.by_col_value, (std::vector<float>{1, 2, 3}));
  NonzeroCount n = count_nonzeros(Linear{w.view()});
  EXPECT_EQ(n.entries, 3);
  EXPECT_EQ(n.rows, 2);
}

TEST(OpsSparse, CsrMatmulRoundsActivationsToTheWeightType) {
  // As MatmulRoundsActivationsToTheWeightType: 1 + 2^-10 is 1 in bf16, itself in f32.
  float x[2] = {5.0f, 1.0f + 1.0f / 1024}, y = 0;
  std::vector<uint8_t> xq(8);
  ThreadPool pool(1);
  for (DType t : {DType::bf16, DType::f32}) {
    TensorData w = make_tensor("w", t, {1, 2}, {0.0f, 1.0f});
    Linear lin{w.view()};
    matmul_csr(lin, make_csr(lin), x, &y, 1, xq.data(), pool);
    EXPECT_EQ(y, t == DType::bf16 ? 1.0f : x[1]) << dtype_name(t);
  }
}

// Mostly +0, with runs of every length, -0, NaN, inf, values that f16 rounds to zero, and
// an odd length, so chunks of 64 bytes end inside and outside the nonzeros.
std::vector<float> mostly_zero(int64_t n, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::normal_distribution<float> d(0.0f, 4.0f);
  std::vector<float> v(n, 0.0f);
  const float odd[] = {-0.0f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(), 1e-9f, -1e-9f};
  for (int64_t i = 0; i < n; ++i) {
    const double r = u(rng);
    if (r < 0.03) v[i] = d(rng);
    else if (r < 0.04) v[i] = odd[static_cast<int>(u(rng) * 5) % 5];
  }
  return v;
}

bool same_bytes(const TensorView& a, const TensorView& b) {
  return a.dtype == b.dtype && a.shape == b.shape && std::memcmp(a.data, b.data, a.nbytes()) == 0;
}

// convert_tensor writes only the chunks that hold a nonzero into zeroed memory: the bytes
// equal make_tensor's (the dense conversion), -0 and NaN included, for every pair of dtypes.
TEST(OpsSparse, ConvertTensorEqualsTheDenseConversion) {
  std::mt19937 rng(11);
  for (DType from : {DType::f32, DType::bf16, DType::f16})
    for (DType to : {DType::f32, DType::bf16, DType::f16})
      for (int64_t n : {1, 15, 16, 33, 1000, 4099}) {
        TensorData src = make_tensor("w", from, {n}, mostly_zero(n, rng));
        ConvertedTensor c = convert_tensor(src.view(), to);
        TensorData want = make_tensor("w", to, {n}, to_f32(src.view()));
        EXPECT_TRUE(same_bytes(c.view, want.view())) << dtype_name(from) << " -> " << dtype_name(to) << " n " << n;
      }
}

// for_each_nonzero visits the same elements, in order, with and without the chunk map, and
// make_csr and count_nonzeros of a converted weight equal those of its dense copy.
TEST(OpsSparse, ScansOfAConvertedWeightEqualThoseOfItsDenseCopy) {
  std::mt19937 rng(12);
  for (DType to : {DType::f32, DType::bf16, DType::f16}) {
    const int64_t out = 37, in = 301;
    TensorData src = make_tensor("w", DType::f32, {out, in}, mostly_zero(out * in, rng));
    ConvertedTensor c = convert_tensor(src.view(), to);
    ASSERT_NE(c.view.nonzero_chunks, nullptr);
    TensorData dense = make_tensor("w", to, {out, in}, to_f32(c.view));
    std::vector<std::pair<int64_t, float>> seen[2];
    for (int k = 0; k < 2; ++k)
      for_each_nonzero(k == 0 ? c.view : dense.view(), 5, out * in - 3, [&](int64_t i, float x) { seen[k].push_back({i, x}); });
    ASSERT_EQ(seen[0].size(), seen[1].size()) << dtype_name(to);
    for (size_t i = 0; i < seen[0].size(); ++i) {
      EXPECT_EQ(seen[0][i].first, seen[1][i].first);
      EXPECT_EQ(std::memcmp(&seen[0][i].second, &seen[1][i].second, 4), 0);
    }
    const CsrWeight a = make_csr(Linear{c.view}), b = make_csr(Linear{dense.view()});
    EXPECT_EQ(a.rows, b.rows);
    EXPECT_EQ(a.col, b.col);
    EXPECT_EQ(std::memcmp(a.value.data(), b.value.data(), a.value.size() * 4), 0);
    EXPECT_EQ(a.col_index, b.col_index);
    EXPECT_EQ(count_nonzeros(Linear{c.view}).entries, count_nonzeros(Linear{dense.view()}).entries);
  }
}

}  // namespace
}  // namespace qgpu::engine
