// The sparse (CSR) matmul: for weights that are almost all zeros, such as the compiled
// machine's, where a nonzero row holds a few dozen nonzeros out of hundreds or thousands of
// columns. It is the reference's arithmetic with the zero terms left out, so it needs no
// equivalence bound of its own: tests/ops_sparse_test.cpp compares it with
// matmul_reference bit for bit. Plain scalar loops: a row's sum is one dependency chain in
// the reference's order, so four rows are summed side by side to keep four chains in
// flight (measured: ~0.4 ns per nonzero per token instead of ~0.65 one row at a time).
// By column, runs of consecutive rows take SSE2 (four rows' own chains at once), or
// AVX-512F (sixteen) where the CPU has it.
#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "base/error.h"
#include "engine/ops.h"

namespace qgpu::engine {

namespace {

// Rounds the columns a CSR weight reads to its dtype, as f32, into xr ([T][in]); other
// columns are never read and stay unset. round_to gives the bits encode_floats
// stores, widened as TensorView::at widens them.
void round_used_columns(DType t, const CsrWeight& csr, const float* x, float* xr, int64_t T,
                        int64_t n_in) {
  for (int64_t tt = 0; tt < T; ++tt)
    for (int32_t c : csr.used_cols) xr[tt * n_in + c] = round_to(t, x[tt * n_in + c]);
}

// Stored rows r .. r+R-1 for one token t: R rows' sums side by side, so R independent
// chains hide the latency of each add, over the length the rows share; the rest of each row
// then finishes alone. Every row still sums its nonzeros in ascending column order.
template <int R>
void csr_rows_of_token(const CsrWeight& csr, const float* xt, float* yt, int64_t r) {
  int64_t k[R], shared = INT64_MAX;
  float acc[R] = {};
  for (int j = 0; j < R; ++j) {
    k[j] = csr.row_start[r + j];
    shared = std::min(shared, csr.row_start[r + j + 1] - k[j]);
  }
  for (int64_t i = 0; i < shared; ++i)
    for (int j = 0; j < R; ++j) acc[j] += xt[csr.col[k[j] + i]] * csr.value[k[j] + i];
  for (int j = 0; j < R; ++j) {
    for (int64_t i = k[j] + shared; i < csr.row_start[r + j + 1]; ++i)
      acc[j] += xt[csr.col[i]] * csr.value[i];
    yt[csr.rows[r + j]] = acc[j];
  }
}

// Stored rows [r0, r1) of one token's output; xt: its activations, already rounded.
void csr_rows_token(const CsrWeight& csr, const float* xt, float* yt, int64_t r0, int64_t r1) {
  int64_t r = r0;
  for (; r + 4 <= r1; r += 4) csr_rows_of_token<4>(csr, xt, yt, r);
  for (; r < r1; ++r) csr_rows_of_token<1>(csr, xt, yt, r);
}

// Stored rows [r0, r1) of Y for all T tokens; xr: activations already rounded.
void csr_rows(const CsrWeight& csr, const float* xr, float* y, int64_t T, int64_t n_in,
              int64_t n_out, int64_t r0, int64_t r1) {
  for (int64_t t = 0; t < T; ++t) csr_rows_token(csr, xr + t * n_in, y + t * n_out, r0, r1);
}

// One token's nonzero inputs that some row reads, found by a scan of its activations that
// skips runs of 8 that are all +0 (the compiled machine's are one-hot codes: a few hundred
// of thousands), each rounded to the weight's dtype and kept in `in` when not +-0 (a zero
// input's terms are +-0 and add nothing), in ascending column order. Returns their terms.
int64_t gather_inputs(const CsrWeight& csr, DType t, const float* xt, CsrInputs& in) {
  const int64_t n_in = std::ssize(csr.col_index);
  if (std::ssize(in.at) < std::ssize(csr.used_cols)) {
    in.at.resize(csr.used_cols.size());
    in.value.resize(csr.used_cols.size());
  }
  int64_t terms = 0, n = 0;
  auto take = [&](int64_t c) {
    const int32_t u = csr.col_index[c];
    if (u < 0) return;
    const float x = t == DType::f32 ? xt[c] : round_to(t, xt[c]);
    if (x == 0.0f) return;
    in.at[n] = u;
    in.value[n++] = x;
    terms += csr.col_work[u];
  };
  const int64_t used = std::ssize(csr.used_cols);
  if (in.scanned == xt ? used <= in.n_nonzero : used * 8 <= n_in) {
    // Fewer columns read than there are inputs to look at (an MLP's `up` reads one): visit
    // those columns instead, in the same ascending order.
    for (const int32_t c : csr.used_cols) take(c);
    in.n = n;
    return terms;
  }
  if (in.scanned == xt) {  // scan_nonzero listed them: take skips +-0 anyway
    for (int64_t k = 0; k < in.n_nonzero; ++k) take(in.nonzero[k]);
    in.n = n;
    return terms;
  }
  int64_t c = 0;
  for (; c + 8 <= n_in; c += 8) {
    uint32_t any = 0;
    for (int j = 0; j < 8; ++j) any |= std::bit_cast<uint32_t>(xt[c + j]) << 1;  // not +-0
    if (any == 0) continue;
    for (int j = 0; j < 8; ++j) take(c + j);
  }
  for (; c < n_in; ++c) take(c);
  in.n = n;
  return terms;
}

}  // namespace

void scan_nonzero(const float* x, int64_t n, CsrInputs& in) {
  if (std::ssize(in.nonzero) < n) in.nonzero.resize(static_cast<size_t>(n));
  int64_t k = 0, c = 0;
  for (; c + 8 <= n; c += 8) {
    uint32_t any = 0;
    for (int j = 0; j < 8; ++j) any |= std::bit_cast<uint32_t>(x[c + j]) << 1;  // not +-0
    if (any == 0) continue;
    for (int j = 0; j < 8; ++j)
      if (std::bit_cast<uint32_t>(x[c + j]) << 1) in.nonzero[k++] = static_cast<int32_t>(c + j);
  }
  for (; c < n; ++c)
    if (std::bit_cast<uint32_t>(x[c]) << 1) in.nonzero[k++] = static_cast<int32_t>(c);
  in.n_nonzero = k;
  in.scanned = x;
}

void rms_norm_scan(const float* x, const float* w, float* y, int64_t n, float eps, DType act, CsrInputs& in) {
  if (std::ssize(in.nonzero) < n) in.nonzero.resize(static_cast<size_t>(n));
  double sum = 0;  // in index order, as rms_norm's (ops.cpp): +0 terms change nothing
  int64_t k = 0, c = 0;
  auto take = [&](int64_t i) {  // without a branch on the entry: the list grows when it is not +-0
    sum += static_cast<double>(x[i]) * x[i];
    in.nonzero[k] = static_cast<int32_t>(i);
    k += (std::bit_cast<uint32_t>(x[i]) << 1) != 0;
  };
  const __m128i zero = _mm_setzero_si128();
  for (; c + 8 <= n; c += 8) {
    const __m128i v = _mm_or_si128(_mm_castps_si128(_mm_loadu_ps(x + c)), _mm_castps_si128(_mm_loadu_ps(x + c + 4)));
    if (_mm_movemask_epi8(_mm_cmpeq_epi32(_mm_slli_epi32(v, 1), zero)) == 0xffff) continue;  // all +-0
    for (int j = 0; j < 8; ++j) take(c + j);
  }
  for (; c < n; ++c) take(c);
  const float scale = 1.0f / std::sqrt(static_cast<float>(sum / static_cast<double>(n)) + eps);
  const __m128 s4 = _mm_set1_ps(scale);
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) _mm_storeu_ps(y + i, _mm_mul_ps(_mm_mul_ps(_mm_loadu_ps(x + i), s4), _mm_loadu_ps(w + i)));
  for (; i < n; ++i) y[i] = x[i] * scale * w[i];
  round_act(act, y, n);
  in.n_nonzero = k;
  in.scanned = y;
}

namespace {

// One token by column: yt (all +0) gains, column by column in ascending order, each
// nonzero input's terms; a column adds at most one term to a row, so its runs' rows can
// be added 4 (SSE2) or 16 (AVX-512F) at a time (a product, then a sum: the scalar's two
// roundings, no fused multiply-add) and its singles after them.
void csr_columns_token_sse2(const CsrWeight& csr, const CsrInputs& in, float* yt) {
  for (int64_t k = 0; k < in.n; ++k) {
    const int32_t u = in.at[k];
    const float x = in.value[k];
    const __m128 x4 = _mm_set1_ps(x);
    for (int64_t r = csr.col_run_start[u]; r < csr.col_run_start[u + 1]; ++r) {
      float* y = yt + csr.run_row[r];
      const float* v = csr.by_col_value.data() + csr.run_at[r];
      const int32_t n = csr.run_len[r];
      int32_t j = 0;
      for (; j + 4 <= n; j += 4) _mm_storeu_ps(y + j, _mm_add_ps(_mm_loadu_ps(y + j), _mm_mul_ps(x4, _mm_loadu_ps(v + j))));
      for (; j < n; ++j) y[j] += x * v[j];
    }
    for (int64_t i = csr.col_single_start[u]; i < csr.col_single_start[u + 1]; ++i)
      yt[csr.single_row[i]] += x * csr.single_value[i];
  }
}

// The same with AVX-512F, a run's tail under a mask; -ffp-contract=off (CMakeLists.txt)
// keeps the compiler from fusing a product and its sum into an FMA.
__attribute__((target("avx512f"))) void csr_columns_token_avx512(const CsrWeight& csr, const CsrInputs& in,
                                                                 float* yt) {
  for (int64_t k = 0; k < in.n; ++k) {
    const int32_t u = in.at[k];
    const float x = in.value[k];
    const __m512 x16 = _mm512_set1_ps(x);
    for (int64_t r = csr.col_run_start[u]; r < csr.col_run_start[u + 1]; ++r) {
      float* y = yt + csr.run_row[r];
      const float* v = csr.by_col_value.data() + csr.run_at[r];
      const int32_t n = csr.run_len[r];
      int32_t j = 0;
      for (; j + 16 <= n; j += 16)
        _mm512_storeu_ps(y + j, _mm512_add_ps(_mm512_loadu_ps(y + j), _mm512_mul_ps(x16, _mm512_loadu_ps(v + j))));
      if (j < n) {
        const __mmask16 m = static_cast<__mmask16>((1u << (n - j)) - 1);
        _mm512_mask_storeu_ps(y + j, m, _mm512_add_ps(_mm512_maskz_loadu_ps(m, y + j),
                                                      _mm512_mul_ps(x16, _mm512_maskz_loadu_ps(m, v + j))));
      }
    }
    for (int64_t i = csr.col_single_start[u]; i < csr.col_single_start[u + 1]; ++i)
      yt[csr.single_row[i]] += x * csr.single_value[i];
  }
}

void csr_columns_token(const CsrWeight& csr, const CsrInputs& in, float* yt) {
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  if (avx512) return csr_columns_token_avx512(csr, in, yt);
  csr_columns_token_sse2(csr, in, yt);
}

// One token: by column when its nonzero inputs' work there (col_work: a scattered add
// costs about twice a row term) is under half of the nonzeros, else by row. xr: [n_in]
// scratch for the rounded inputs (null for f32 weights: the row order reads xt itself).
void csr_token(const CsrWeight& csr, DType t, const float* xt, float* xr, float* yt, CsrInputs& in) {
  if (2 * gather_inputs(csr, t, xt, in) < csr.nnz()) {
    csr_columns_token(csr, in, yt);
    return;
  }
  if (xr) round_used_columns(t, csr, xt, xr, 1, std::ssize(csr.col_index));
  csr_rows_token(csr, xr ? xr : xt, yt, 0, std::ssize(csr.rows));
}

// The first stored row whose nonzeros start at or after nonzero k.
int64_t row_at_nonzero(const CsrWeight& csr, int64_t k) {
  return std::lower_bound(csr.row_start.begin(), csr.row_start.end(), k) - csr.row_start.begin();
}

}  // namespace

NonzeroCount count_nonzeros(const Linear& w) {
  NonzeroCount n;
  for (int64_t o = 0; o < w.out(); ++o) {
    int64_t in_row = 0;
    for_each_nonzero(w.w, o * w.in(), (o + 1) * w.in(), [&](int64_t, float) { ++in_row; });
    n.entries += in_row;
    n.rows += in_row > 0;
  }
  return n;
}

CsrWeight make_csr(const Linear& w, int64_t first_row) {
  const int64_t n_in = w.in();
  CsrWeight csr;
  csr.row_start.push_back(0);
  for (int64_t o = first_row; o < w.out(); ++o) {
    for_each_nonzero(w.w, o * n_in, (o + 1) * n_in, [&](int64_t k, float v) {  // not +0 or -0
      const int64_t i = k - o * n_in;
      csr.col.push_back(static_cast<int32_t>(i));
      csr.value.push_back(v);
    });
    if (csr.nnz() == csr.row_start.back()) continue;  // a zero row: not stored
    csr.rows.push_back(static_cast<int32_t>(o));
    csr.row_start.push_back(csr.nnz());
  }
  index_csr(csr, n_in);
  return csr;
}

CsrWeight make_csr(int64_t n_in, std::span<const CsrEntry> entries) {
  CsrWeight csr;
  csr.row_start.push_back(0);
  for (size_t i = 0; i < entries.size(); ++i) {
    const CsrEntry& e = entries[i];
    CHECK(e.col >= 0 && e.col < n_in);
    CHECK(i == 0 || e.row > entries[i - 1].row || (e.row == entries[i - 1].row && e.col > entries[i - 1].col));
    if (csr.rows.empty() || csr.rows.back() != e.row) {
      if (!csr.rows.empty()) csr.row_start.push_back(csr.nnz());
      csr.rows.push_back(e.row);
    }
    csr.col.push_back(e.col);
    csr.value.push_back(e.value);
  }
  if (!csr.rows.empty()) csr.row_start.push_back(csr.nnz());
  index_csr(csr, n_in);
  return csr;
}

void index_csr(CsrWeight& csr, int64_t n_in) {
  std::vector<uint8_t> used(static_cast<size_t>(n_in), 0);
  for (int32_t c : csr.col) used[c] = 1;
  std::vector<int32_t>& at_col = csr.col_index;  // index into used_cols
  at_col.assign(static_cast<size_t>(n_in), -1);
  for (int64_t i = 0; i < n_in; ++i)
    if (used[i]) {
      at_col[i] = static_cast<int32_t>(csr.used_cols.size());
      csr.used_cols.push_back(static_cast<int32_t>(i));
    }
  // By column: count, then place each row's entries (rows ascending, so each column's too).
  csr.col_start.assign(csr.used_cols.size() + 1, 0);
  for (int32_t c : csr.col) ++csr.col_start[at_col[c] + 1];
  for (size_t u = 0; u < csr.used_cols.size(); ++u) csr.col_start[u + 1] += csr.col_start[u];
  csr.by_col_row.resize(csr.col.size());
  csr.by_col_value.resize(csr.col.size());
  std::vector<int64_t> next(csr.col_start.begin(), csr.col_start.end() - 1);
  for (size_t r = 0; r < csr.rows.size(); ++r)
    for (int64_t i = csr.row_start[r]; i < csr.row_start[r + 1]; ++i) {
      int64_t k = next[at_col[csr.col[i]]]++;
      csr.by_col_row[k] = csr.rows[r];
      csr.by_col_value[k] = csr.value[i];
    }
  // Each column's runs of consecutive rows, and its singles.
  csr.col_run_start.push_back(0);
  csr.col_single_start.push_back(0);
  for (size_t u = 0; u < csr.used_cols.size(); ++u) {
    int64_t work = 0;
    for (int64_t i = csr.col_start[u], e; i < csr.col_start[u + 1]; i = e) {
      for (e = i + 1; e < csr.col_start[u + 1] && csr.by_col_row[e] == csr.by_col_row[e - 1] + 1;) ++e;
      if (e - i >= kCsrRun) {
        csr.run_row.push_back(csr.by_col_row[i]);
        csr.run_len.push_back(static_cast<int32_t>(e - i));
        csr.run_at.push_back(i);
        work += (e - i) / 4 + 2;
        continue;
      }
      for (int64_t k = i; k < e; ++k) {
        csr.single_row.push_back(csr.by_col_row[k]);
        csr.single_value.push_back(csr.by_col_value[k]);
      }
      work += e - i;
    }
    csr.col_run_start.push_back(std::ssize(csr.run_row));
    csr.col_single_start.push_back(std::ssize(csr.single_row));
    csr.col_work.push_back(work);
  }
}

void matmul_csr(const Linear& w, const CsrWeight& csr, const float* x, float* y, int64_t T,
                void* xq, ThreadPool& pool, CsrInputs* inputs) {
  const int64_t n_in = w.in(), n_out = w.out();
  std::memset(y, 0, static_cast<size_t>(T * n_out) * sizeof(float));  // zero rows: +0
  const int64_t nnz = csr.nnz();
  float* xr = w.w.dtype == DType::f32 ? nullptr : static_cast<float*>(xq);
  // Tokens [t0, t1), each by column or by row as its inputs decide (csr_token).
  auto tokens = [&](int64_t t0, int64_t t1, CsrInputs& in) {
    for (int64_t t = t0; t < t1; ++t)
      csr_token(csr, w.w.dtype, x + t * n_in, xr ? xr + t * n_in : nullptr, y + t * n_out, in);
  };
  if (nnz * T < kParallelWork || pool.size() == 1) {
    CsrInputs local;
    tokens(0, T, inputs ? *inputs : local);
    return;
  }
  if (T >= pool.size()) {
    // A prompt: the tokens split across the pool, each still by column where its inputs are
    // sparse (a launch's program image is one-hot codes: by row it would read every nonzero
    // of every matrix at every token).
    pool.parallel_for(T, [&](int64_t t0, int64_t t1) {
      CsrInputs local;
      tokens(t0, t1, local);
    });
    return;
  }
  const float* xa = x;  // f32 weights: the activations as they are
  if (xr) {
    round_used_columns(w.w.dtype, csr, x, xr, T, n_in);
    xa = xr;
  }
  // Fewer tokens than threads: one piece of rows per thread, each with an equal share of
  // the nonzeros.
  const int64_t pieces = pool.size();
  pool.parallel_for(pieces, [&](int64_t p0, int64_t p1) {
    csr_rows(csr, xa, y, T, n_in, n_out, row_at_nonzero(csr, nnz * p0 / pieces),
             row_at_nonzero(csr, nnz * p1 / pieces));
  });
}

}  // namespace qgpu::engine
