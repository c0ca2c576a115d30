// Reference operations: straight loops in f32, written to be read next to qwen35.md §3
// (swiglu also takes 4 units at a time in SSE2 where silu's shortcuts make it a select).
#include "engine/ops.h"

#include <emmintrin.h>

#include <bit>
#include <cmath>
#include <limits>
#include <cstring>

namespace qgpu::engine {

namespace {

// The sum of x[i]^2 in double, in index order. Runs of 8 entries that are all +0 are
// skipped (sum + 0 == sum: the sum starts at +0 and only grows), so a mostly-zero vector
// (the compiled machine's residual) costs its nonzero runs, not its width.
double sum_of_squares(const float* x, int64_t n) {
  double sum = 0;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint32_t any = 0;
    for (int j = 0; j < 8; ++j) any |= std::bit_cast<uint32_t>(x[i + j]);
    if (any == 0) continue;
    for (int j = 0; j < 8; ++j) sum += static_cast<double>(x[i + j]) * x[i + j];
  }
  for (; i < n; ++i) sum += static_cast<double>(x[i]) * x[i];
  return sum;
}

// 1 / sqrt(mean(x^2) + eps), the sum in double.
float rms_scale(const float* x, int64_t n, float eps) {
  return 1.0f / std::sqrt(static_cast<float>(sum_of_squares(x, n) / static_cast<double>(n)) + eps);
}

}  // namespace

void rms_norm(const float* x, const float* w, float* y, int64_t n, float eps) {
  float scale = rms_scale(x, n, eps);
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] * scale * w[i];
}

void gated_rms_norm(const float* x, const float* w, const float* z, float* y, int64_t n,
                    float eps, DType act) {
  float scale = rms_scale(x, n, eps);
  for (int64_t i = 0; i < n; ++i) {
    float normed = round_act(act, x[i] * scale);        // hidden_states.to(input_dtype)
    float weighted = round_act(act, normed * w[i]);     // self.weight * (dtype * dtype)
    y[i] = round_act(act, weighted * silu(z[i]));       // * silu(gate.float()), .to(input_dtype)
  }
}

void l2_norm(float* x, int64_t n, float eps) {
  const double sum = sum_of_squares(x, n);
  float scale = 1.0f / std::sqrt(static_cast<float>(sum) + eps);
  for (int64_t i = 0; i < n; ++i) x[i] *= scale;
}

namespace {

// round_bf16 on 4 lanes (SSE2).
inline __m128 round_bf16_x4(__m128 x) {
  const __m128i u = _mm_castps_si128(x);
  const __m128i odd = _mm_and_si128(_mm_srli_epi32(u, 16), _mm_set1_epi32(1));
  const __m128i high = _mm_set1_epi32(static_cast<int32_t>(0xffff0000u));
  const __m128i rounded = _mm_and_si128(_mm_add_epi32(_mm_add_epi32(u, _mm_set1_epi32(0x7fff)), odd), high);
  const __m128i quiet = _mm_or_si128(_mm_and_si128(u, high), _mm_set1_epi32(0x00400000));
  const __m128i nan = _mm_cmpgt_epi32(_mm_and_si128(u, _mm_set1_epi32(0x7fffffff)), _mm_set1_epi32(0x7f800000));
  return _mm_castsi128_ps(_mm_or_si128(_mm_and_si128(nan, quiet), _mm_andnot_si128(nan, rounded)));
}

}  // namespace

void swiglu(float* g, const float* u, int64_t n, DType act) {
  int64_t i = 0;
  if (act != DType::f16) {
    const __m128i c20 = _mm_set1_epi32(0x41a00000), inf1 = _mm_set1_epi32(0x7f800001), c100 = _mm_set1_epi32(0x42c80000),
                  inf = _mm_set1_epi32(0x7f800000), abs = _mm_set1_epi32(0x7fffffff), zero = _mm_setzero_si128();
    const __m128 minus_zero = _mm_set1_ps(-0.0f);
    for (; i + 4 <= n; i += 4) {
      // silu's shortcuts on the bits: 20 < x <= +inf and +-0 give x; -FLT_MAX <= x < -100 gives -0.
      const __m128 x = _mm_loadu_ps(g + i);
      const __m128i s = _mm_castps_si128(x), m = _mm_and_si128(s, abs);
      const __m128i keep = _mm_or_si128(_mm_and_si128(_mm_cmpgt_epi32(s, c20), _mm_cmplt_epi32(s, inf1)), _mm_cmpeq_epi32(m, zero));
      const __m128i minus = _mm_and_si128(_mm_and_si128(_mm_cmplt_epi32(s, zero), _mm_cmpgt_epi32(m, c100)), _mm_cmplt_epi32(m, inf));
      if (_mm_movemask_epi8(_mm_or_si128(keep, minus)) != 0xffff) {
        for (int j = 0; j < 4; ++j) g[i + j] = round_act(act, round_act(act, silu(g[i + j])) * u[i + j]);
        continue;
      }
      const __m128 r = _mm_or_ps(_mm_and_ps(_mm_castsi128_ps(keep), x), _mm_andnot_ps(_mm_castsi128_ps(keep), minus_zero));
      if (act == DType::f32) {
        _mm_storeu_ps(g + i, _mm_mul_ps(r, _mm_loadu_ps(u + i)));
      } else {
        _mm_storeu_ps(g + i, round_bf16_x4(_mm_mul_ps(round_bf16_x4(r), _mm_loadu_ps(u + i))));
      }
    }
  }
  for (; i < n; ++i) g[i] = round_act(act, round_act(act, silu(g[i])) * u[i]);
}

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }
float softplus(float x) { return x > 20.0f ? x : std::log1p(std::exp(x)); }

void rope_neox(float* x, int rot, int64_t pos, double theta, DType act) {
  int half = rot / 2;
  for (int i = 0; i < half; ++i) {
    // inv_freq in f32 as transformers: 1 / theta^(2i/rot); the angle pos * inv_freq in f32;
    // cos and sin then cast to the activation dtype (cos.to(dtype=x.dtype)).
    float inv_freq = 1.0f / static_cast<float>(std::pow(theta, 2.0 * i / rot));
    float angle = static_cast<float>(pos) * inv_freq;
    float c = round_act(act, std::cos(angle)), s = round_act(act, std::sin(angle));
    float a = x[i], b = x[i + half];
    // q * cos + rotate_half(q) * sin, each product and the sum a tensor op in act.
    x[i] = round_act(act, round_act(act, a * c) - round_act(act, b * s));
    x[i + half] = round_act(act, round_act(act, b * c) + round_act(act, a * s));
  }
}

void matmul_rows_reference(const Linear& w, const void* xq, float* y, int64_t T, int64_t o0, int64_t o1,
                           int64_t used) {
  int64_t n_in = w.in(), n_out = w.out();
  if (used <= 0) used = n_in;
  TensorView xv{"x", w.w.dtype, {T, n_in}, xq};
  for (int64_t t = 0; t < T; ++t)
    for (int64_t o = o0; o < o1; ++o) {
      float acc = 0;
      for (int64_t i = 0; i < used; ++i) acc += xv.at(t * n_in + i) * w.w.at(o * n_in + i);
      y[t * n_out + o] = acc;
    }
}

void matmul_reference(const Linear& w, const float* x, float* y, int64_t T, void* xq) {
  encode_floats(w.w.dtype, x, static_cast<size_t>(T * w.in()), xq);  // the activations in W's dtype
  matmul_rows_reference(w, xq, y, T, 0, w.out());
}

}  // namespace qgpu::engine
