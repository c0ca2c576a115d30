// A merged checkpoint (`qgpu build`, docs/design.md §3 "Merging into a base") as the
// forward runs it: its base layers' and head's structure declared from config.json's "qgpu"
// object (not read from 31 GB of weights), and the base's used weights held dense for
// text (BaseCopies): mapped from a corner file in the user's cache, written on the first
// text run of a checkpoint, or copied into memory.
// (engine/base_corners.h).
#include <cstring>
#include <exception>
#include <thread>

#include "base/error.h"
#include "engine/base_corners.h"
#include "engine/forward_internal.h"

namespace qgpu::engine {
namespace {

// Rows [begin, end) in blocks of at most 16, each over the first `cols` inputs (0: all).
std::vector<RowBlock> row_blocks(int64_t begin, int64_t end, int64_t cols) {
  std::vector<RowBlock> out;
  for (int64_t r = begin; r < end; r += 16) out.push_back({r, std::min(end, r + 16), cols});
  return out;
}

// Fails unless w's row r is +0 at and past column `from` (or, with before, before it).
void expect_zero_cols(const Config& c, const Linear& w, const char* what, int64_t r, int64_t from, bool before) {
  const int64_t n = w.in();
  for_each_nonzero(w.w, r * n + (before ? 0 : from), r * n + (before ? from : n), [&](int64_t k, float) {
    fail("config.json's \"qgpu\" (GPU dims from {}, the base's MLP units {}) says {} {} is +0 there, but it has a "
         "nonzero at row {}, column {}: the checkpoint was edited after `qgpu build`; rebuild it",
         c.qgpu->hidden_offset, c.qgpu->base_intermediate > 0 ? c.qgpu->base_intermediate : c.intermediate_size, what,
         w.w.name, r, k - r * n);
  });
}


// The first `rows` rows of w over its first d columns, copied into dense memory in w's dtype
// (read from the file where w lies in one: faulting a row's pages into the mapping would
// cost more than the copy and keep what it no longer needs).
Linear narrow_copy(const Model& m, const Linear& w, int64_t rows, int64_t d, std::deque<ZeroedBytes>& keep) {
  const size_t es = dtype_size(w.w.dtype), row = static_cast<size_t>(d) * es, stride = static_cast<size_t>(w.in()) * es;
  ZeroedBytes& to = keep.emplace_back(static_cast<size_t>(rows) * row);
  const auto* from = static_cast<const uint8_t*>(w.w.data);
  // Rows [r0, r1), in pieces across the cores (the time is the kernel's: faulting in the
  // copy's fresh pages and the file's).
  auto copy = [&](int64_t r0, int64_t r1) {
    bool read = false;
    for_each_file(m, [&](const MappedFile& f) {
      read = read || f.copy_strided(from + r0 * stride, static_cast<size_t>(r1 - r0), stride, row, to.data() + r0 * row);
    });
    for (int64_t r = r0; !read && r < r1; ++r) std::memcpy(to.data() + r * row, from + r * stride, row);
  };
  const int64_t pieces = std::min<int64_t>(default_thread_count(), (rows + 1023) / 1024);
  std::vector<std::thread> threads;
  std::vector<std::exception_ptr> errors(static_cast<size_t>(pieces));
  for (int64_t p = 1; p < pieces; ++p)
    threads.emplace_back([&, p] {
      try {
        copy(rows * p / pieces, rows * (p + 1) / pieces);
      } catch (...) {
        errors[static_cast<size_t>(p)] = std::current_exception();
      }
    });
  try {
    copy(0, rows / pieces);
  } catch (...) {
    errors[0] = std::current_exception();
  }
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  return Linear{TensorView{w.w.name, w.w.dtype, {rows, d}, to.data()}};
}



}  // namespace

// The first `rows` rows of w over its first d columns into out (rows * d elements), read
// from the file w lies in (else from memory).
void read_corner(const Model& m, const Linear& w, int64_t r0, int64_t rows, int64_t d, uint8_t* out) {
  const size_t es = dtype_size(w.w.dtype), row = static_cast<size_t>(d) * es, stride = static_cast<size_t>(w.in()) * es;
  const auto* from = static_cast<const uint8_t*>(w.w.data) + r0 * stride;
  bool read = false;
  for_each_file(m, [&](const MappedFile& f) { read = read || f.copy_strided(from, static_cast<size_t>(rows), stride, row, out); });
  for (int64_t r = 0; !read && r < rows; ++r) std::memcpy(out + r * row, from + r * stride, row);
}

bool is_merged(const Config& c) { return c.qgpu && c.qgpu->hidden_offset > 0; }

void release_file_pages(const Model& m, const void* p, size_t n) {
  for_each_file(m, [&](const MappedFile& f) { f.release(p, n); });
}

// A merged checkpoint's base layers and head, from where config.json's qgpu object puts the
// GPU instead of by reading them (12.5 GB for Qwen3.5-2B's merge, whose 2,496 GPU dims are +0
// in every base weight): readers multiply their first d inputs (gate and up the base's MLP
// units), writers their first d rows (down_proj over the base's units); the head's base rows
// read d inputs, its GPU rows are a CSR copy. The first and last row (and padded unit) of
// each are checked: a file edited after the build is an error, not wrong numbers.
void declare_merged_structure(const Model& m, WeightStructure& s) {
  const Config& c = m.config;
  const int64_t d = c.qgpu->hidden_offset, vb = c.qgpu->token_offset;
  const int64_t units = c.qgpu->base_intermediate > 0 ? c.qgpu->base_intermediate : c.intermediate_size;
  for_each_base_reader(m, [&](const Linear& w, int64_t rows) {
    const bool head = &w == &m.lm_head;
    for (int64_t r : {int64_t{0}, rows - 1}) expect_zero_cols(c, w, head ? "head" : "reader", r, d, false);
    for (int64_t r : {rows, w.out() - 1})  // units past the base's: +0 rows
      if (!head && r >= rows && r < w.out()) expect_zero_cols(c, w, "the padded MLP units of", r, 0, false);
    if (head)
      s.hybrid.emplace(w.w.data, WeightStructure::Hybrid{row_blocks(0, vb, d),
                                                         m.head_gpu_rows ? *m.head_gpu_rows : make_csr(w, vb)});
    else
      s.sparse.emplace(w.w.data, row_blocks(0, rows, d));
  });
  auto writer = [&](const Linear& w, int64_t cols) {
    for (int64_t r : {d, w.out() - 1}) expect_zero_cols(c, w, "writer", r, w.in(), true);
    if (cols < w.in())
      for (int64_t r : {int64_t{0}, d - 1}) expect_zero_cols(c, w, "writer (padded MLP units)", r, cols, false);
    s.sparse.emplace(w.w.data, row_blocks(0, d, cols < w.in() ? cols : 0));
  };
  for (int il = c.qgpu->layers; il < c.num_hidden_layers; ++il) {
    const LayerWeights& l = m.layers[il];
    const Linear& out = l.linear ? l.linear_attn.out_proj : l.self_attn.o_proj;
    writer(out, out.in());
    writer(l.down_proj, units);
  }
}

// The BaseCopies of a merged checkpoint: every base reader's first rows and d columns, and
// the head's base rows, mapped from the corner file or copied; the file pages they were read
// from released.
void make_base_copies(const Model& m, BaseCopies& b) {
  if (map_base_corners(m, b)) return;
  const int64_t d = m.config.qgpu->hidden_offset;
  for_each_base_reader(m, [&](const Linear& w, int64_t rows) {
    if (w.is_sparse() || b.narrow.count(w.w.data)) return;
    b.narrow.emplace(w.w.data, narrow_copy(m, w, rows, d, b.bytes));
    release_file_pages(m, w.w.data, w.w.nbytes());
  });
}

}  // namespace qgpu::engine
