// The fast matmul: output rows split across the thread pool; inside a thread, tiles of
// 4 weight rows x 4 tokens (decode: 4 rows x 1 token) accumulate in AVX-512 registers,
// bf16 with vdpbf16ps, f16 and f32 with FMA. Activations were rounded to the weight dtype
// first (encode_floats), exactly as in the reference, so the two differ only in
// summation order. CPUs without AVX-512 BF16 run the AVX2 kernel below (8-lane FMA), and
// those without AVX2, FMA and F16C the reference row loop.
// GCC 12 at -O2 flags its own _mm512_undefined_* helpers as uninitialized when the
// reductions inline (a false positive in avx512fintrin.h); nothing of ours is.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <cpuid.h>
#include <immintrin.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "base/error.h"
#include "engine/ops.h"

namespace qgpu::engine {

namespace {



// Loads elements [i, i + 16) (f32 lanes) of a row in dtype D, zero past n.
template <DType D>
__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16,fma,f16c")))
inline __m512 load16(const void* row, int64_t i, int64_t n) {
  if (n - i >= 16) {
    if constexpr (D == DType::f32) return _mm512_loadu_ps(static_cast<const float*>(row) + i);
    __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(static_cast<const uint16_t*>(row) + i));
    if constexpr (D == DType::f16) return _mm512_cvtph_ps(h);
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
  }
  __mmask16 m = __mmask16((1u << (n - i)) - 1);
  if constexpr (D == DType::f32) {
    return _mm512_maskz_loadu_ps(m, static_cast<const float*>(row) + i);
  } else {
    __m256i h = _mm256_maskz_loadu_epi16(m, static_cast<const uint16_t*>(row) + i);
    if constexpr (D == DType::f16) return _mm512_cvtph_ps(h);
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
  }
}

// acc[r][t] += W[r] . X[t] over the first n elements of rows `stride` apart, R rows by TT tokens.
template <DType D, int R, int TT>
__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16,fma,f16c")))
void tile_avx512(const void* const* w, const void* const* x, int64_t n, int64_t stride, float* out, int64_t out_stride) {
  __m512 acc[R][TT];
  for (int r = 0; r < R; ++r)
    for (int t = 0; t < TT; ++t) acc[r][t] = _mm512_setzero_ps();
  if constexpr (D == DType::bf16) {
    // Whole 32-element chunks unmasked, prefetching the next tile's rows (4 rows on) so the
    // hardware prefetcher, which stops at 4 KiB pages, never starts a page cold; then a
    // masked tail.
    const int64_t n_full = n & ~int64_t{31};
    for (int64_t i = 0; i < n_full; i += 32) {
      for (int r = 0; r < R; ++r)
        _mm_prefetch(static_cast<const char*>(w[r]) + 2 * (i + R * stride), _MM_HINT_T0);
      __m512i wv[R], xv[TT];
      for (int r = 0; r < R; ++r) wv[r] = _mm512_loadu_si512(static_cast<const uint16_t*>(w[r]) + i);
      for (int t = 0; t < TT; ++t) xv[t] = _mm512_loadu_si512(static_cast<const uint16_t*>(x[t]) + i);
      for (int r = 0; r < R; ++r)
        for (int t = 0; t < TT; ++t)
          acc[r][t] = _mm512_dpbf16_ps(acc[r][t], (__m512bh)xv[t], (__m512bh)wv[r]);
    }
    if (n_full < n) {
      __mmask32 m = __mmask32((1ull << (n - n_full)) - 1);
      __m512i wv[R], xv[TT];
      for (int r = 0; r < R; ++r) wv[r] = _mm512_maskz_loadu_epi16(m, static_cast<const uint16_t*>(w[r]) + n_full);
      for (int t = 0; t < TT; ++t) xv[t] = _mm512_maskz_loadu_epi16(m, static_cast<const uint16_t*>(x[t]) + n_full);
      for (int r = 0; r < R; ++r)
        for (int t = 0; t < TT; ++t)
          acc[r][t] = _mm512_dpbf16_ps(acc[r][t], (__m512bh)xv[t], (__m512bh)wv[r]);
    }
  } else {
    const int64_t es = static_cast<int64_t>(dtype_size(D));
    for (int64_t i = 0; i < n; i += 16) {
      if (es == 4 || i % 32 == 0)  // one prefetch per 64-byte line
        for (int r = 0; r < R; ++r)
          _mm_prefetch(static_cast<const char*>(w[r]) + es * (i + R * stride), _MM_HINT_T0);
      __m512 wv[R], xv[TT];
      for (int r = 0; r < R; ++r) wv[r] = load16<D>(w[r], i, n);
      for (int t = 0; t < TT; ++t) xv[t] = load16<D>(x[t], i, n);
      for (int r = 0; r < R; ++r)
        for (int t = 0; t < TT; ++t) acc[r][t] = _mm512_fmadd_ps(wv[r], xv[t], acc[r][t]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int t = 0; t < TT; ++t) out[t * out_stride + r] = _mm512_reduce_add_ps(acc[r][t]);
}

// The same with AVX2, FMA and F16C, for CPUs without AVX-512 BF16 (most desktop x86, AMD
// before Zen 4), where the reference loop (a dtype switch per element) took 44% of a merge
// test. bf16 and f16 are widened to f32 on load (exact), so every product is the
// reference's and only the order of the sum differs: element i goes to lane i % 8 of an
// 8-lane accumulator (FMA), and the lanes are added in one fixed order, so a token's result
// never depends on the tile or the batch around it. Tiles of 4 rows x 2 tokens: 8
// accumulators, two inputs and a row fit the 16 ymm registers.
template <DType D>
__attribute__((target("avx2,fma,f16c"))) inline __m256 load8(const void* row, int64_t i, int64_t n) {
  constexpr int64_t es = D == DType::f32 ? 4 : 2;
  if (n - i < 8) {  // the tail, zero past n
    alignas(32) uint8_t tail[32] = {};
    std::memcpy(tail, static_cast<const uint8_t*>(row) + i * es, static_cast<size_t>((n - i) * es));
    return load8<D>(tail, 0, 8);
  }
  if constexpr (D == DType::f32) return _mm256_loadu_ps(static_cast<const float*>(row) + i);
  __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(static_cast<const uint16_t*>(row) + i));
  if constexpr (D == DType::f16) return _mm256_cvtph_ps(h);
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}

__attribute__((target("avx2,fma,f16c"))) inline float sum8(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));  // lanes i + (i + 4)
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));                                         // + (i + 2)
  return _mm_cvtss_f32(_mm_add_ss(s, _mm_shuffle_ps(s, s, 1)));                  // + (i + 1)
}

template <DType D, int R, int TT>
__attribute__((target("avx2,fma,f16c")))
void tile_avx2(const void* const* w, const void* const* x, int64_t n, float* out, int64_t out_stride) {
  __m256 acc[R][TT];
  for (int r = 0; r < R; ++r)
    for (int t = 0; t < TT; ++t) acc[r][t] = _mm256_setzero_ps();
  for (int64_t i = 0; i < n; i += 8) {
    __m256 xv[TT];
    for (int t = 0; t < TT; ++t) xv[t] = load8<D>(x[t], i, n);
    for (int r = 0; r < R; ++r) {
      const __m256 wv = load8<D>(w[r], i, n);
      for (int t = 0; t < TT; ++t) acc[r][t] = _mm256_fmadd_ps(wv, xv[t], acc[r][t]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int t = 0; t < TT; ++t) out[t * out_stride + r] = sum8(acc[r][t]);
}

// The two kernels' tiles behind one name: rows_tiled takes either. `stride` (the distance
// to the next tile's rows) is for AVX-512's prefetch. kRows x kTokens is a full tile for
// several tokens (prefill): AVX-512 keeps 6 rows x 4 tokens = 24 of its 32 registers
// accumulating (each input vector loaded once for 6 rows: prefill 1.07-1.10x the 4 x 4
// tile's on this VM's Zen 5 in bf16, CPU time; 8 x 3 and 8 x 2 were 0.88x and 0.80x, the
// eight rows' prefetch and L1 share costing more than the loads saved); one token (decode)
// takes kRows1 rows at a time.
struct Avx512 {
  static constexpr int kRows = 6, kTokens = 4, kRows1 = 4;
  template <DType D, int R, int TT>
  static void tile(const void* const* w, const void* const* x, int64_t n, int64_t stride, float* out, int64_t out_stride) {
    tile_avx512<D, R, TT>(w, x, n, stride, out, out_stride);
  }
};
struct Avx2 {
  static constexpr int kRows = 4, kTokens = 2, kRows1 = 4;
  template <DType D, int R, int TT>
  static void tile(const void* const* w, const void* const* x, int64_t n, int64_t, float* out, int64_t out_stride) {
    tile_avx2<D, R, TT>(w, x, n, out, out_stride);
  }
};

// Rows [o0, o1) of Y for all T tokens, over the first `used` inputs: tiles of kRows rows x
// kTokens tokens (with several tokens), then kRows rows x 1 token, then kRows1 rows, then
// single rows. Every output is its row's and token's dot product in the kernel's one order,
// whatever tile computed it, so a token's result never depends on the batch around it.
template <class K, DType D, int R>
int64_t row_tiles(const Linear& w, const void* xq, float* y, int64_t T, int64_t o, int64_t o1, int64_t used, int64_t tt) {
  const int64_t n = w.in(), n_out = w.out(), es = static_cast<int64_t>(dtype_size(D));
  auto xrow = [&](int64_t t) { return static_cast<const uint8_t*>(xq) + t * n * es; };
  for (; o + R <= o1; o += R) {
    const void* wr[R];
    for (int r = 0; r < R; ++r) wr[r] = static_cast<const uint8_t*>(w.w.data) + (o + r) * n * es;
    int64_t t = 0;
    if constexpr (R == K::kRows)
      for (; t + K::kTokens <= tt; t += K::kTokens) {
        const void* xr[K::kTokens];
        for (int k = 0; k < K::kTokens; ++k) xr[k] = xrow(t + k);
        K::template tile<D, R, K::kTokens>(wr, xr, used, n, y + t * n_out + o, n_out);
      }
    for (; t < T; ++t) {
      const void* xr[1] = {xrow(t)};
      K::template tile<D, R, 1>(wr, xr, used, n, y + t * n_out + o, n_out);
    }
  }
  return o;
}

template <class K, DType D>
void rows_tiled(const Linear& w, const void* xq, float* y, int64_t T, int64_t o0, int64_t o1, int64_t used) {
  int64_t o = o0;
  if (T >= K::kTokens) o = row_tiles<K, D, K::kRows>(w, xq, y, T, o, o1, used, T);
  o = row_tiles<K, D, K::kRows1>(w, xq, y, T, o, o1, used, 0);
  row_tiles<K, D, 1>(w, xq, y, T, o, o1, used, 0);
}

template <class K>
void rows_of(const Linear& w, const void* xq, float* y, int64_t T, int64_t o0, int64_t o1, int64_t used) {
  switch (w.w.dtype) {
    case DType::f32: return rows_tiled<K, DType::f32>(w, xq, y, T, o0, o1, used);
    case DType::bf16: return rows_tiled<K, DType::bf16>(w, xq, y, T, o0, o1, used);
    case DType::f16: return rows_tiled<K, DType::f16>(w, xq, y, T, o0, o1, used);
  }
}

void rows(const Linear& w, const void* xq, float* y, int64_t T, int64_t o0, int64_t o1, int64_t used,
          MatmulKernel k) {
  if (used <= 0) used = w.in();
  switch (k) {
    case MatmulKernel::avx512: return rows_of<Avx512>(w, xq, y, T, o0, o1, used);
    case MatmulKernel::avx2: return rows_of<Avx2>(w, xq, y, T, o0, o1, used);
    case MatmulKernel::reference: return matmul_rows_reference(w, xq, y, T, o0, o1, used);
  }
}

void rows(const Linear& w, const void* xq, float* y, int64_t T, int64_t o0, int64_t o1, int64_t used = 0) {
  rows(w, xq, y, T, o0, o1, used, matmul_kernel());
}

}  // namespace

// F16C (cpuid leaf 1, ecx bit 29): every AVX2 CPU has it, but it is its own flag.
bool cpu_has_f16c() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C) != 0;
}

bool cpu_has_avx512_bf16() {
  static const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bf16");
  return has;
}

namespace {

// The best kernel this CPU has, or the one $QGPU_MATMUL_KERNEL names (avx512, avx2 or
// reference: how a bench measures the AVX2 path on an AVX-512 machine).
MatmulKernel chosen_kernel() {
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && cpu_has_f16c();
  const MatmulKernel best = cpu_has_avx512_bf16() ? MatmulKernel::avx512 : avx2 ? MatmulKernel::avx2 : MatmulKernel::reference;
  const char* v = std::getenv("QGPU_MATMUL_KERNEL");
  if (!v || !*v) return best;
  const std::string name = v;
  if (name == "reference") return MatmulKernel::reference;
  if (name == "avx2" && avx2) return MatmulKernel::avx2;
  if (name == "avx512" && best == MatmulKernel::avx512) return MatmulKernel::avx512;
  fail("$QGPU_MATMUL_KERNEL is '{}': expected {}reference (this CPU's best is {})", name,
       best == MatmulKernel::avx512 ? "avx512, avx2 or " : avx2 ? "avx2 or " : "",
       best == MatmulKernel::avx512 ? "avx512" : avx2 ? "avx2" : "reference");
}

}  // namespace

MatmulKernel matmul_kernel() {
  static const MatmulKernel k = chosen_kernel();
  return k;
}

void matmul_fast(const Linear& w, const float* x, float* y, int64_t T, void* xq, ThreadPool& pool, MatmulKernel k) {
  encode_floats(w.w.dtype, x, static_cast<size_t>(T * w.in()), xq);  // the activations in W's dtype
  int64_t blocks = (w.out() + 15) / 16;  // 16-row blocks keep 4-row tiles whole
  int64_t work = w.out() * w.in() * T;
  int threads = work < kParallelWork ? 1 : 0;
  pool.parallel_for(blocks, [&](int64_t b0, int64_t b1) {
    rows(w, xq, y, T, b0 * 16, std::min(b1 * 16, w.out()), 0, k);
  }, threads);
}

void matmul_fast_strided(const Linear& w, const float* x, int64_t x_stride, float* y, int64_t y_stride, int64_t T,
                         void* xq, ThreadPool& pool) {
  const int64_t n = w.in(), bytes = n * static_cast<int64_t>(dtype_size(w.w.dtype));
  auto* q = static_cast<uint8_t*>(xq);
  for (int64_t t = 0; t < T; ++t) encode_floats(w.w.dtype, x + t * x_stride, static_cast<size_t>(n), q + t * bytes);
  const int64_t blocks = (w.out() + 15) / 16;
  const int threads = w.out() * n * T < kParallelWork ? 1 : 0;
  // Tokens together where their outputs lie as rows() writes them (w.out() apart), else one by one.
  const bool together = y_stride == w.out() || T == 1;
  for (int64_t t = 0; t < (together ? 1 : T); ++t)
    pool.parallel_for(blocks, [&](int64_t b0, int64_t b1) {
      rows(w, q + t * bytes, y + t * y_stride, together ? T : 1, b0 * 16, std::min(b1 * 16, w.out()));
    }, threads);
}

std::vector<RowBlock> nonzero_row_blocks(const Linear& w) {
  std::vector<RowBlock> blocks;
  const int64_t n = w.in(), es = static_cast<int64_t>(dtype_size(w.w.dtype));
  const auto* bytes = static_cast<const uint8_t*>(w.w.data);
  for (int64_t o = 0; o < w.out(); ++o) {
    const uint8_t* row = bytes + o * n * es;
    bool zero = true;
    for (int64_t i = 0; i < n * es && zero; ++i) zero = row[i] == 0 || (row[i] == 0x80 && (i + 1) % es == 0);
    if (zero) continue;  // +0 or -0 everywhere
    if (!blocks.empty() && blocks.back().end == o && o - blocks.back().begin < 16)
      blocks.back().end = o + 1;
    else
      blocks.push_back({o, o + 1});
  }
  return blocks;
}

void matmul_fast_rows(const Linear& w, const float* x, float* y, int64_t T, void* xq,
                      ThreadPool& pool, const std::vector<RowBlock>& blocks, bool zero_others) {
  if (zero_others) std::memset(y, 0, static_cast<size_t>(T * w.out()) * sizeof(float));
  if (blocks.empty()) return;
  encode_floats(w.w.dtype, x, static_cast<size_t>(T * w.in()), xq);  // the activations in W's dtype
  int64_t work = 0;
  for (const RowBlock& b : blocks) work += (b.end - b.begin) * (b.cols > 0 ? b.cols : w.in()) * T;
  int threads = work < kParallelWork ? 1 : 0;
  pool.parallel_for(static_cast<int64_t>(blocks.size()), [&](int64_t b0, int64_t b1) {
    for (int64_t b = b0; b < b1; ++b) rows(w, xq, y, T, blocks[b].begin, blocks[b].end, blocks[b].cols);
  }, threads);
}

}  // namespace qgpu::engine
