// The CSR matmul against the reference, for every dtype and odd shapes: it is the
// reference's sum with the zero terms left out, so the two must agree bit for bit (memcmp:
// +0 and -0 are told apart too; both give +0 for a zero row, since a sum from +0 never
// becomes -0 in round-to-nearest).
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "engine/ops.h"

namespace qgpu::engine {
namespace {

struct Case {
  DType dtype;
  int64_t out, in, T;
  double density;  // of the rows that are neither all zero nor dense
  double zero_inputs = 0;  // the share of inputs that are +0 or -0 (token 0 and 3: none)
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

TEST(OpsSparse, CsrMatmulOnThreadsEqualsReference) {
  // nnz * T past kParallelWork: the rows are split over the pool by nonzeros.
  ThreadPool pool(3);
  for (DType t : {DType::f32, DType::bf16}) check_csr({t, 301, 900, 16, 0.2}, pool);
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

}  // namespace
}  // namespace qgpu::engine
