// The forward pass's operations, each in a plain f32 reference form; the matmul also has a
// fast form (SIMD, threads), chosen in one place (MatmulPath) and tested equal to the
// reference within rounding (tests/ops_test.cpp), and a sparse form (CSR) for weights that
// are mostly zeros, which is the reference's sum without its zero terms and tested equal
// to it bit for bit (tests/ops_sparse_test.cpp).
//
// A matmul whose weights are bf16 or f16 first rounds its input activations to that type and
// accumulates in f32 (llama.cpp's rounding). Ops that take `act` also round their outputs to
// it where transformers rounds them (Rounding::transformers, forward.h); act == f32 rounds
// nothing there.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "base/thread_pool.h"
#include "engine/model.h"
#include "engine/tensor.h"

namespace qgpu::engine {

// round_to(bf16, x) inline, branch-free so that loops over it vectorise: to nearest even,
// NaN kept quiet (f32_to_bf16's rule). The forward rounds every activation it holds in bf16.
inline float round_bf16(float x) {
  const uint32_t u = std::bit_cast<uint32_t>(x);
  const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
  const uint32_t quiet = (u & 0xffff0000u) | 0x00400000u;
  return std::bit_cast<float>((u & 0x7fffffffu) > 0x7f800000u ? quiet : rounded);
}
// x rounded to act, the dtype activations are held in (f32: x itself, at the cost of a branch).
inline float round_act(DType act, float x) {
  return act == DType::f32 ? x : act == DType::bf16 ? round_bf16(x) : round_to(act, x);
}
// x[0..n) rounded to act in place (f32: returns at once).
inline void round_act(DType act, float* x, int64_t n) {
  if (act == DType::f32) return;
  if (act == DType::bf16) {
    for (int64_t i = 0; i < n; ++i) x[i] = round_bf16(x[i]);
    return;
  }
  for (int64_t i = 0; i < n; ++i) x[i] = round_to(act, x[i]);
}

// y = x * rsqrt(mean(x^2) + eps) * w, over n elements (w: multiplier; sum in double).
void rms_norm(const float* x, const float* w, float* y, int64_t n, float eps);
// The DeltaNet gated norm y = RMSNorm(x) * w * SiLU(z), in transformers' order
// (Qwen3_5RMSNormGated): normalise in f32, round; times w, round; times SiLU(z) in f32, round.
// y may alias x.
void gated_rms_norm(const float* x, const float* w, const float* z, float* y, int64_t n,
                    float eps, DType act);
// x <- x * rsqrt(sum(x^2) + eps) (the DeltaNet q/k L2 norm; eps 1e-6 as transformers).
void l2_norm(float* x, int64_t n, float eps);
// x / (1 + e^-x) in f32, without the exp where its value is known: above 20, e^-x < 2^-28
// and 1 + e^-x rounds to 1, so the quotient is x; below -100 (finite), e^-x overflows to
// inf and the quotient is -0; at +-0 it is +-0 / 2 = x. The compiled machine's units sit at
// 128 and more or -128 and less, and its unused channels at +0. Inline: the forward calls
// it on every channel. Checked against the formula on every float (tests/ops_test.cpp
// samples them).
inline float silu(float x) {
  if (x > 20.0f || x == 0.0f) return x;
  if (x < -100.0f && x >= -std::numeric_limits<float>::max()) return -0.0f;
  return x / (1.0f + std::exp(-x));
}
// The SwiGLU product in place: g[i] = round_act(round_act(silu(g[i])) * u[i]), bit for bit,
// 4 entries at a time (SSE2) without silu's branches where all 4 take a shortcut (above 20,
// +-0, below -100: the compiled machine's units, all but a handful at every token); f16
// activations take the scalar loop.
void swiglu(float* g, const float* u, int64_t n, DType act);
float sigmoid(float x);
float softplus(float x);  // log(1 + e^x), = x above 20 as torch and ggml
// Partial NeoX RoPE on the first rot dims of x (rotate-half pairs i, i + rot/2). With act,
// as transformers in that dtype: cos and sin rounded, and every product and sum.
void rope_neox(float* x, int rot, int64_t pos, double theta, DType act = DType::f32);

// Multiply-adds below which a loop runs on the calling thread alone: waking the pool costs
// tens of microseconds on this VM, more than ~0.5 M multiply-adds take.
inline constexpr int64_t kParallelWork = int64_t{1} << 19;

enum class MatmulPath { reference, fast };

// Y[t][o] = sum_i round(X[t][i]) * W[o][i] for t < T; X: [T][in], Y: [T][out] (f32).
// `xq` is scratch of at least T*in elements of W's dtype (bytes: T*in*dtype_size).
void matmul_reference(const Linear& w, const float* x, float* y, int64_t T, void* xq);
// Rows [o0, o1) of the reference product from activations already rounded (xq); the fast
// path's fallback on CPUs without AVX-512 BF16 or AVX2.
void matmul_rows_reference(const Linear& w, const void* xq, float* y, int64_t T, int64_t o0, int64_t o1,
                           int64_t used = 0);  // used > 0: only the first `used` inputs
// The kernel matmul_fast runs on this CPU: AVX-512 BF16, else AVX2 + FMA + F16C, else the
// reference loop, unless $QGPU_MATMUL_KERNEL names another this CPU has (avx512, avx2,
// reference; anything else is an Error). Each differs from the reference only in the order
// of the sum.
enum class MatmulKernel { reference, avx2, avx512 };
MatmulKernel matmul_kernel();
// k: another kernel this CPU has (the tests run each).
void matmul_fast(const Linear& w, const float* x, float* y, int64_t T, void* xq, ThreadPool& pool,
                 MatmulKernel k = matmul_kernel());
// matmul_fast's product, with token t's inputs the first w.in() of x + t * x_stride and its
// outputs written to y + t * y_stride (the w.out() there; the rest left as they are): a
// merged checkpoint's base weights, held as the used corner of a wider weight (forward.cpp).
void matmul_fast_strided(const Linear& w, const float* x, int64_t x_stride, float* y, int64_t y_stride, int64_t T,
                         void* xq, ThreadPool& pool);
// A run of output rows [begin, end) of a weight, at most 16 long (one parallel work item);
// with cols > 0 only the row's first cols inputs are multiplied (the rest are known +0: a
// merged checkpoint's base weights past the base's dims).
struct RowBlock {
  int64_t begin = 0, end = 0;
  int64_t cols = 0;
};
// The rows of w that hold a nonzero weight, as blocks of at most 16; decided once at load
// for weights that are mostly structure (the compiled machine). Reads the whole weight.
std::vector<RowBlock> nonzero_row_blocks(const Linear& w);
// matmul_fast over only these rows; every other output is +0, exactly what the full
// product gives for a zero row and finite activations (each row's arithmetic is unchanged).
// For weights with zero rows that are too dense for matmul_csr.
// zero_others false: the other outputs are left as they are (another kernel wrote them).
void matmul_fast_rows(const Linear& w, const float* x, float* y, int64_t T, void* xq,
                      ThreadPool& pool, const std::vector<RowBlock>& blocks, bool zero_others = true);
// A weight's nonzeros row by row (compressed sparse rows), for weights that are mostly
// zeros (the compiled machine's one-hot codes). Only nonzero rows are stored: stored row r
// is output rows[r], its nonzeros entries [row_start[r], row_start[r + 1]) of col
// (ascending) and value (the stored weight, exact in f32).
inline constexpr int kCsrRun = 8;
struct CsrWeight {
  std::vector<int32_t> rows;       // ascending
  std::vector<int64_t> row_start;  // [rows.size() + 1]
  std::vector<int32_t> col;
  std::vector<float> value;
  std::vector<int32_t> used_cols;  // every column some row reads, ascending
  std::vector<int32_t> col_index;  // [in]: column c is used_cols[col_index[c]], or -1 if unused
  // The same nonzeros by column, for inputs that are mostly zeros: column used_cols[u]'s
  // entries are [col_start[u], col_start[u + 1]) of by_col_row (the output row, ascending)
  // and by_col_value.
  std::vector<int64_t> col_start;  // [used_cols.size() + 1]
  std::vector<int32_t> by_col_row;
  std::vector<float> by_col_value;
  // The same entries again, split for the column order's loop: runs of kCsrRun or more
  // consecutive output rows (the compiled machine's columns are mostly such runs: a rule's
  // literal feeds the units of its stage, a record field the tokens that carry it), added
  // 4 rows at a time, and the singles. Column u's runs are [col_run_start[u],
  // col_run_start[u + 1]) of run_row (first output row), run_len and run_at (its first
  // entry in by_col_value); its singles [col_single_start[u], col_single_start[u + 1]) of
  // single_row and single_value. col_work[u]: u's cost in the column loop, in scattered
  // adds (a single 1, a run a quarter of its length and 2), what csr_token weighs.
  std::vector<int64_t> col_run_start, run_at;
  std::vector<int32_t> run_row, run_len;
  std::vector<int64_t> col_single_start;
  std::vector<int32_t> single_row;
  std::vector<float> single_value;
  std::vector<int64_t> col_work;
  int64_t nnz() const { return static_cast<int64_t>(col.size()); }
};
// Entries of w that are not +0 or -0 (NaN counts as nonzero), and rows holding one.
// Reads the whole weight.
struct NonzeroCount {
  int64_t entries = 0, rows = 0;
};
NonzeroCount count_nonzeros(const Linear& w);
CsrWeight make_csr(const Linear& w, int64_t first_row = 0);  // rows [first_row, out) only
// A CSR weight from its nonzeros, sorted by row then column (CHECKed; no +-0 values unless
// the caller wants them kept, as an embedding's rows do): how weights made in memory (the
// compiled machine, src/lift) are held without ever being dense.
struct CsrEntry {
  int32_t row, col;
  float value;
};
CsrWeight make_csr(int64_t n_in, std::span<const CsrEntry> entries);
// Fills the column views (used_cols .. col_work) from rows, row_start, col and value.
void index_csr(CsrWeight& csr, int64_t n_in);
// matmul_csr's scratch: one token's nonzero inputs, in ascending column order.
struct CsrInputs {
  std::vector<int32_t> at;   // [n] index into used_cols (grown, never shrunk)
  std::vector<float> value;  // [n] the input there, rounded to the weight's dtype
  int64_t n = 0;
  // When one token's activations feed several products (a sublayer's projections of its
  // normed input), scan_nonzero lists once where they are not +-0, and every product of
  // `scanned` reads the list instead of scanning; the caller resets it to null before the
  // activations change.
  const float* scanned = nullptr;
  std::vector<int32_t> nonzero;  // [n_nonzero] (grown, never shrunk)
  int64_t n_nonzero = 0;
};
// Lists x[0..n)'s entries that are not +-0 into in.nonzero and sets in.scanned = x.
void scan_nonzero(const float* x, int64_t n, CsrInputs& in);
// rms_norm and round_act(act, y, n), then in.scanned = y with in.nonzero listing where x is
// not +-0 (where y can be nonzero: the products skip the listed entries that are +-0), in one
// scan of x: runs of 8 that are all +-0 are neither summed nor listed. Bit for bit rms_norm's.
void rms_norm_scan(const float* x, const float* w, float* y, int64_t n, float eps, DType act, CsrInputs& in);
// matmul_reference's product from w's nonzeros alone, bit for bit while the activations
// are finite in w's dtype (f16 tops out at 65504; inf * 0 is NaN): the activations are
// rounded to w's dtype as there, and each output sums its row's nonzeros in ascending
// column order in f32 from +0, which is the reference's sum with the zero terms left out
// (acc + x * 0 == acc, as acc is never -0). Zero rows give +0. The pool takes a share of
// the tokens each (or, with fewer tokens than threads, of the rows) only when nnz * T
// reaches kParallelWork. A token whose nonzero inputs reach few of the
// nonzeros is summed by column instead (the compiled machine's inputs are one-hot codes:
// a few hundred of thousands of columns): the columns in ascending order, each adding its
// terms to the rows it feeds, so every row still sums in ascending column order; a zero
// input's terms are left out, as acc + (+-0) == acc. `xq`: as matmul_reference's;
// `inputs`: the Runtime's scratch (null: one is allocated for the call).
void matmul_csr(const Linear& w, const CsrWeight& csr, const float* x, float* y, int64_t T,
                void* xq, ThreadPool& pool, CsrInputs* inputs = nullptr);
// Whether this CPU runs the AVX-512 kernels (else matmul_fast uses AVX2 or portable loops).
bool cpu_has_avx512_bf16();
bool cpu_has_f16c();

}  // namespace qgpu::engine
