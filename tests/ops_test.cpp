// The fast matmul against the reference, for every dtype, odd sizes and batch shapes: they
// may differ only by summation order, so the bound is relative to sum |x_i w_i|.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <iostream>
#include <limits>
#include <random>

#include "engine/ops.h"

namespace qgpu::engine {
namespace {

struct Case {
  DType dtype;
  int64_t out, in, T;
};

// The kernels this CPU has: the reference loop, AVX2 (with FMA and F16C), AVX-512 BF16.
std::vector<MatmulKernel> kernels_here() {
  std::vector<MatmulKernel> k = {MatmulKernel::reference};
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && cpu_has_f16c()) k.push_back(MatmulKernel::avx2);
  if (cpu_has_avx512_bf16()) k.push_back(MatmulKernel::avx512);
  return k;
}

const char* kernel_name(MatmulKernel k) {
  return k == MatmulKernel::avx512 ? "avx512" : k == MatmulKernel::avx2 ? "avx2" : "reference";
}

void check_matmul(const Case& c, MatmulKernel k) {
  std::mt19937 rng(static_cast<unsigned>(c.out * 131 + c.in * 7 + c.T));
  std::normal_distribution<float> d(0.0f, 1.0f);
  std::vector<float> w(c.out * c.in), x(c.T * c.in);
  for (float& v : w) v = d(rng);
  for (float& v : x) v = d(rng);
  TensorData wt = make_tensor("w", c.dtype, {c.out, c.in}, w);
  Linear lin{wt.view()};
  std::vector<uint8_t> xq(c.T * c.in * 4);
  std::vector<float> y_ref(c.T * c.out), y_fast(c.T * c.out);
  ThreadPool pool(2);
  matmul_reference(lin, x.data(), y_ref.data(), c.T, xq.data());
  matmul_fast(lin, x.data(), y_fast.data(), c.T, xq.data(), pool, k);
  for (int64_t t = 0; t < c.T; ++t)
    for (int64_t o = 0; o < c.out; ++o) {
      double mag = 0;
      for (int64_t i = 0; i < c.in; ++i) mag += std::fabs(x[t * c.in + i] * w[o * c.in + i]);
      double diff = std::fabs(y_ref[t * c.out + o] - y_fast[t * c.out + o]);
      ASSERT_LE(diff, 1e-5 * mag + 1e-6)
          << kernel_name(k) << " " << dtype_name(c.dtype) << " out " << c.out << " in " << c.in << " T " << c.T
          << ": first mismatch at token " << t << " row " << o << ": reference "
          << y_ref[t * c.out + o] << ", fast " << y_fast[t * c.out + o];
    }
}

TEST(Ops, FastMatmulEqualsReferenceForEveryDtypeAndShape) {
  std::cout << "[ matmul ] kernels on this CPU:";
  for (MatmulKernel k : kernels_here()) std::cout << " " << kernel_name(k);
  std::cout << "; matmul_fast runs " << kernel_name(matmul_kernel()) << "\n";
  for (MatmulKernel k : kernels_here())
    for (DType t : {DType::f32, DType::bf16, DType::f16})
      for (int64_t in : {1, 7, 8, 9, 15, 16, 31, 32, 33, 100, 257})
        for (int64_t out : {1, 3, 4, 17, 70})
          for (int64_t T : {1, 2, 3, 4, 9}) check_matmul({t, out, in, T}, k);
}

TEST(Ops, FastMatmulIsBitIdenticalAcrossBatchSizes) {
  // A token's result must not depend on its neighbours (prefill == decode).
  std::mt19937 rng(5);
  std::normal_distribution<float> d(0.0f, 1.0f);
  for (DType t : {DType::f32, DType::bf16, DType::f16}) {
    int64_t out = 37, in = 77, T = 6;
    std::vector<float> w(out * in), x(T * in);
    for (float& v : w) v = d(rng);
    for (float& v : x) v = d(rng);
    TensorData wt = make_tensor("w", t, {out, in}, w);
    std::vector<uint8_t> xq(T * in * 4);
    std::vector<float> all(T * out), one(out);
    ThreadPool pool(2);
    for (MatmulKernel kernel : kernels_here()) {
      matmul_fast(Linear{wt.view()}, x.data(), all.data(), T, xq.data(), pool, kernel);
      for (int64_t k = 0; k < T; ++k) {
        matmul_fast(Linear{wt.view()}, x.data() + k * in, one.data(), 1, xq.data(), pool, kernel);
        for (int64_t o = 0; o < out; ++o) ASSERT_EQ(one[o], all[k * out + o]) << kernel_name(kernel) << " " << dtype_name(t);
      }
    }
  }
}

TEST(Ops, MatmulRoundsActivationsToTheWeightType) {
  // x = 1 + 2^-10 is not a bf16 value (bf16 keeps 7 mantissa bits): rounded to 1.
  float x = 1.0f + 1.0f / 1024;
  TensorData w = make_tensor("w", DType::bf16, {1, 1}, {1.0f});
  std::vector<uint8_t> xq(4);
  float y = 0;
  matmul_reference(Linear{w.view()}, &x, &y, 1, xq.data());
  EXPECT_EQ(y, 1.0f);
  TensorData w32 = make_tensor("w", DType::f32, {1, 1}, {1.0f});
  matmul_reference(Linear{w32.view()}, &x, &y, 1, xq.data());
  EXPECT_EQ(y, x);
}

TEST(Ops, NormsAndActivations) {
  std::vector<float> x = {3, 4}, w = {1, 2}, y(2);
  rms_norm(x.data(), w.data(), y.data(), 2, 0.0f);  // rms = sqrt(12.5)
  EXPECT_NEAR(y[0], 3 / std::sqrt(12.5f), 1e-6);
  EXPECT_NEAR(y[1], 8 / std::sqrt(12.5f), 1e-6);
  l2_norm(x.data(), 2, 0.0f);
  EXPECT_NEAR(x[0], 0.6f, 1e-7);
  EXPECT_NEAR(x[1], 0.8f, 1e-7);
  EXPECT_EQ(softplus(30.0f), 30.0f);
  EXPECT_NEAR(softplus(0.0f), std::log(2.0f), 1e-7);
  EXPECT_NEAR(silu(1.0f), 1.0f / (1.0f + std::exp(-1.0f)), 1e-7);
}

// silu's shortcuts (x above 20: x; below -100: -0; +-0: x) give the formula's bits: every
// 97th float, and the floats around the edges.
TEST(Ops, SiluIsTheFormulaOnEveryFloat) {
  auto formula = [](float x) { return x / (1.0f + std::exp(-x)); };
  auto same = [&](float x) {
    const float a = silu(x), b = formula(x);
    return std::isnan(a) ? std::isnan(b) : std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b);
  };
  for (uint64_t u = 0; u < (uint64_t{1} << 32); u += 97) ASSERT_TRUE(same(std::bit_cast<float>(static_cast<uint32_t>(u)))) << u;
  for (float edge : {20.0f, -100.0f, 0.0f, -0.0f, -std::numeric_limits<float>::max(), -std::numeric_limits<float>::infinity()}) {
    float x = edge;
    for (int k = 0; k < 1000; ++k, x = std::nextafter(x, 0.0f)) ASSERT_TRUE(same(x)) << x;
    x = edge;
    for (int k = 0; k < 1000; ++k, x = std::nextafter(x, -std::numeric_limits<float>::infinity())) ASSERT_TRUE(same(x)) << x;
  }
}

// The inline bf16 rounding the forward uses (round_act) is tensor.cpp's f32_to_bf16 and
// back, bit for bit: every 89th float (NaNs included), and the floats around the
// rounding ties, the largest finite bf16 and infinity, scalar and in place.
TEST(Ops, InlineBf16RoundingIsRoundTo) {
  auto same = [](float x) {
    const uint32_t want = std::bit_cast<uint32_t>(round_to(DType::bf16, x));
    float v = x;
    round_act(DType::bf16, &v, 1);
    return std::bit_cast<uint32_t>(round_bf16(x)) == want && std::bit_cast<uint32_t>(round_act(DType::bf16, x)) == want &&
           std::bit_cast<uint32_t>(v) == want;
  };
  for (uint64_t u = 0; u < (uint64_t{1} << 32); u += 89) ASSERT_TRUE(same(std::bit_cast<float>(static_cast<uint32_t>(u)))) << u;
  for (uint32_t edge : {0x3f808000u, 0x3f818000u, 0x7f7f8000u, 0x7f7fffffu, 0x7f800000u, 0x7f800001u, 0xff800000u, 0x00008000u}) {
    for (uint32_t k = 0; k < 64; ++k) {
      ASSERT_TRUE(same(std::bit_cast<float>(edge + k))) << std::hex << edge + k;
      ASSERT_TRUE(same(std::bit_cast<float>(edge - k))) << std::hex << edge - k;
    }
  }
}

// swiglu's 8-wide shortcut is the scalar product, bit for bit, in every act dtype: blocks
// of units firing (256, 384), silent (-128 and below), at +-0, near the shortcuts' edges,
// at -FLT_MAX, +-inf and NaN, mixed, with up 1 and random.
TEST(Ops, SwigluIsTheScalarProduct) {
  std::mt19937 rng(11);
  const float max = std::numeric_limits<float>::max(), inf = std::numeric_limits<float>::infinity();
  const std::vector<float> pool = {256.0f, 384.0f, -128.0f, -384.0f, -1e30f, 0.0f, -0.0f, 20.0f,
                                   std::nextafter(20.0f, inf), -100.0f, std::nextafter(-100.0f, -inf), -max, max, inf, -inf,
                                   std::numeric_limits<float>::quiet_NaN(), 1.5f, -3.25f, 1e-40f, -7.0f};
  std::uniform_int_distribution<size_t> pick(0, pool.size() - 1);
  std::normal_distribution<float> d(0.0f, 50.0f);
  for (DType act : {DType::f32, DType::bf16, DType::f16})
    for (int trial = 0; trial < 2000; ++trial) {
      const int64_t n = 1 + trial % 37;
      std::vector<float> g(n), u(n), got;
      const bool quiet = trial % 3 == 0;  // blocks of shortcut values only
      for (int64_t i = 0; i < n; ++i) {
        g[i] = quiet ? pool[pick(rng) % 7] : (trial % 2 ? pool[pick(rng)] : d(rng));
        u[i] = trial % 4 == 1 ? 1.0f : d(rng);
      }
      got = g;
      swiglu(got.data(), u.data(), n, act);
      for (int64_t i = 0; i < n; ++i) {
        const float want = round_act(act, round_act(act, silu(g[i])) * u[i]);
        ASSERT_TRUE(std::isnan(want) ? std::isnan(got[i]) : std::bit_cast<uint32_t>(got[i]) == std::bit_cast<uint32_t>(want))
            << dtype_name(act) << " g " << g[i] << " u " << u[i] << ": " << got[i] << " vs " << want;
      }
    }
}

// The norms skip runs of +0 in their sum: the same bits as the sum over every entry, on
// vectors mostly +0 (with -0 and odd lengths).
TEST(Ops, NormsOfMostlyZeroVectorsSumEveryEntry) {
  std::mt19937 rng(7);
  std::normal_distribution<float> d(0.0f, 3.0f);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (int64_t n : {1, 7, 8, 9, 64, 1000, 7104}) {
    std::vector<float> x(n), w(n), y(n), want(n);
    for (float& v : x) v = u(rng) < 0.9f ? (u(rng) < 0.2f ? -0.0f : 0.0f) : d(rng);
    for (float& v : w) v = u(rng) < 0.1f ? -0.75f : 1.5f;  // some negative: -0 products
    double sum = 0;
    for (float v : x) sum += static_cast<double>(v) * v;
    const float scale = 1.0f / std::sqrt(static_cast<float>(sum / static_cast<double>(n)) + 1e-6f);
    for (int64_t i = 0; i < n; ++i) want[i] = x[i] * scale * w[i];
    rms_norm(x.data(), w.data(), y.data(), n, 1e-6f);
    EXPECT_EQ(0, std::memcmp(y.data(), want.data(), sizeof(float) * n)) << n;
    // The fused norm and scan of the forward's decode: the same bits (then rounded to the
    // act dtype), and a list of exactly x's entries that are not +-0, ascending.
    for (DType act : {DType::f32, DType::bf16, DType::f16}) {
      std::vector<float> fused(n, 7.0f), rounded = want;
      round_act(act, rounded.data(), n);
      CsrInputs in;
      rms_norm_scan(x.data(), w.data(), fused.data(), n, 1e-6f, act, in);
      EXPECT_EQ(0, std::memcmp(fused.data(), rounded.data(), sizeof(float) * n)) << n << " " << dtype_name(act);
      std::vector<int32_t> listed(in.nonzero.begin(), in.nonzero.begin() + in.n_nonzero), nonzero;
      for (int64_t i = 0; i < n; ++i)
        if (x[i] != 0.0f) nonzero.push_back(static_cast<int32_t>(i));
      EXPECT_EQ(listed, nonzero) << n;
      EXPECT_EQ(in.scanned, fused.data());
    }
    const float l2 = 1.0f / std::sqrt(static_cast<float>(sum) + 1e-6f);
    for (int64_t i = 0; i < n; ++i) want[i] = x[i] * l2;
    l2_norm(x.data(), n, 1e-6f);
    EXPECT_EQ(0, std::memcmp(x.data(), want.data(), sizeof(float) * n)) << n;
  }
}

TEST(Ops, RopeRotatesPairsHalfApart) {
  // rot 4: pairs (0,2) and (1,3); position 1, theta 1 -> angle 1 for pair 0, 1 for pair 1.
  std::vector<float> x = {1, 0, 0, 1, 7};
  rope_neox(x.data(), 4, 1, 1.0);
  EXPECT_NEAR(x[0], std::cos(1.0f), 1e-6);
  EXPECT_NEAR(x[2], std::sin(1.0f), 1e-6);
  EXPECT_NEAR(x[1], -std::sin(1.0f), 1e-6);
  EXPECT_NEAR(x[3], std::cos(1.0f), 1e-6);
  EXPECT_EQ(x[4], 7);  // past the rotary dims: untouched
}

TEST(Ops, DtypeRoundTrips) {
  EXPECT_EQ(bf16_to_f32(f32_to_bf16(1.0f)), 1.0f);
  EXPECT_EQ(round_to(DType::bf16, 1.0f + 1.0f / 256), 1.0f);          // tie -> even
  EXPECT_EQ(round_to(DType::bf16, 1.0f + 3.0f / 256), 1.0f + 4.0f / 256);
  EXPECT_EQ(round_to(DType::f16, 2049.0f), 2048.0f);
  EXPECT_EQ(round_to(DType::f16, 70000.0f), INFINITY);
  EXPECT_EQ(f16_to_f32(f32_to_f16(5.96e-8f)), 5.9604645e-8f);         // smallest subnormal
  for (float v : {0.1f, -3.75f, 1e-3f, 65504.0f}) EXPECT_EQ(round_to(DType::f16, round_to(DType::f16, v)), round_to(DType::f16, v));
}

}  // namespace
}  // namespace qgpu::engine
