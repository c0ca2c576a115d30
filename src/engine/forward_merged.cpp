// A merged checkpoint (`qgpu build`, docs/design.md §3 "Merging into a base") as the
// forward runs it: its base layers' and head's structure declared from config.json's "qgpu"
// object (not read from 31 GB of weights), and the base's used weights held dense for
// text (BaseCopies): mapped from a corner file in the user's cache, written on the first
// text run of a checkpoint, or copied into memory.
//
// The corner file: "qgpuBCF1", u64 header bytes, the header (text: the key, one line a
// weight file (path, size, mtime), then one line a corner (name, dtype, rows, columns,
// offset)), zeros to a 4 KiB boundary, then each corner's rows (its first d columns, dense),
// each corner starting on a 4 KiB boundary. The file is used only when its header is the
// one this checkpoint's files give, byte for byte, its size is the header's, and sampled rows
// (the first, middle and last of each corner) equal the checkpoint's; otherwise it is
// reported, removed and written again.
#include <fmt/format.h>
#include <sys/stat.h>

#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <thread>

#include "base/cache_dir.h"
#include "base/error.h"
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

// Calls fn(file) for every file the model maps (a weight's bytes lie in one of them, or in
// memory, where MappedFile's calls do nothing).
template <typename Fn>
void for_each_file(const Model& m, Fn fn) {
  for (const SafetensorsDir& d : m.safetensors)
    for (const SafetensorsFile& f : d.shards) fn(f.file);
  for (const GgufFile& g : m.gguf) fn(g.file);
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

// The first `rows` rows of w over its first d columns into out (rows * d elements), read
// from the file w lies in (else from memory).
void read_corner(const Model& m, const Linear& w, int64_t r0, int64_t rows, int64_t d, uint8_t* out) {
  const size_t es = dtype_size(w.w.dtype), row = static_cast<size_t>(d) * es, stride = static_cast<size_t>(w.in()) * es;
  const auto* from = static_cast<const uint8_t*>(w.w.data) + r0 * stride;
  bool read = false;
  for_each_file(m, [&](const MappedFile& f) { read = read || f.copy_strided(from, static_cast<size_t>(rows), stride, row, out); });
  for (int64_t r = 0; !read && r < rows; ++r) std::memcpy(out + r * row, from + r * stride, row);
}

// Calls fn(w, rows) for every reader of a merged checkpoint's base layers with the rows the
// base has (gate and up: its MLP units; past them, +0 padding), then fn(head, base tokens).
template <typename Fn>
void for_each_base_reader(const Model& m, Fn fn) {
  const Config& c = m.config;
  const int64_t units = c.qgpu->base_intermediate > 0 ? c.qgpu->base_intermediate : c.intermediate_size;
  for (int il = c.qgpu->layers; il < c.num_hidden_layers; ++il) {
    const LayerWeights& l = m.layers[il];
    if (l.linear) {
      for (const Linear* w : {&l.linear_attn.in_proj_qkv, &l.linear_attn.in_proj_z, &l.linear_attn.in_proj_b,
                              &l.linear_attn.in_proj_a})
        fn(*w, w->out());
    } else {
      for (const Linear* w : {&l.self_attn.q_proj, &l.self_attn.k_proj, &l.self_attn.v_proj}) fn(*w, w->out());
    }
    fn(l.gate_proj, units);
    fn(l.up_proj, units);
  }
  fn(m.lm_head, int64_t{c.qgpu->token_offset});
}

}  // namespace

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

namespace {

namespace fs = std::filesystem;

constexpr char kCornerMagic[8] = {'q', 'g', 'p', 'u', 'B', 'C', 'F', '1'};
constexpr uint64_t kCornerAlign = 4096;

uint64_t align_up(uint64_t n) { return (n + kCornerAlign - 1) / kCornerAlign * kCornerAlign; }

// One base reader's corner in the file: its first `rows` rows over d columns at `offset`.
struct Corner {
  const Linear* w;
  int64_t rows;
  uint64_t offset, bytes;
};

// The corner file this checkpoint gives: its header bytes, its corners and its size.
struct CornerLayout {
  std::string header;  // magic, length and text, zero-padded to kCornerAlign
  std::vector<Corner> corners;
  uint64_t size = 0;
};

// "path size mtime" of the file at path (its identity while it is not rewritten).
std::string file_line(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) fail("cannot read '{}': {}", path, std::strerror(errno));
  return fmt::format("{} {} {}", path, st.st_size, int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec);
}

CornerLayout corner_layout(const Model& m) {
  const int64_t d = m.config.qgpu->hidden_offset;
  CornerLayout l;
  std::string text = "qgpu base corners 1\n";
  for_each_file(m, [&](const MappedFile& f) { text += "file " + file_line(f.path()) + "\n"; });
  uint64_t at = 0;
  for_each_base_reader(m, [&](const Linear& w, int64_t rows) {
    if (w.is_sparse()) return;
    for (const Corner& c : l.corners)
      if (c.w->w.data == w.w.data) return;  // tied: once
    const uint64_t bytes = static_cast<uint64_t>(rows * d) * dtype_size(w.w.dtype);
    text += fmt::format("corner {} {} {} {} {}\n", w.w.name, dtype_name(w.w.dtype), rows, d, at);
    l.corners.push_back({&w, rows, at, bytes});
    at += align_up(bytes);
  });
  const uint64_t n = text.size();
  l.header.assign(kCornerMagic, sizeof kCornerMagic);
  l.header.append(reinterpret_cast<const char*>(&n), 8);
  l.header += text;
  l.header.resize(align_up(l.header.size()), '\0');
  for (Corner& c : l.corners) c.offset += l.header.size();
  l.size = l.header.size() + at;
  return l;
}

// The cache's corner files, their budget and the smallest set of corners worth a file
// ($QGPU_BASE_CORNERS_MIN_MB, default 64: a tiny model's copy costs nothing).
struct CornerDir {
  std::string path;
  uint64_t max_bytes = 0, min_bytes = 0;
};

uint64_t env_megabytes(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback << 20;
  char* end = nullptr;
  const unsigned long long mb = std::strtoull(v, &end, 10);
  if (*end != '\0' || v[0] == '-') fail("${} is '{}': expected a whole number of megabytes", name, v);
  return static_cast<uint64_t>(mb) << 20;
}

std::optional<CornerDir> corner_dir() {
  std::optional<std::string> root = user_cache_dir();
  if (!root) return std::nullopt;
  return CornerDir{(fs::path(*root) / "base-corners").string(), env_megabytes("QGPU_BASE_CORNERS_MAX_MB", uint64_t{8192}),
                   env_megabytes("QGPU_BASE_CORNERS_MIN_MB", 64)};
}

uint64_t fnv1a(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

// Empty when the mapped file is this layout's, with sampled rows equal to the checkpoint's;
// else what is wrong.
std::string check_corner_file(const Model& m, const CornerLayout& l, const MappedFile& f) {
  if (f.size() != l.size) return fmt::format("{} bytes where this checkpoint's corners are {}", f.size(), l.size);
  if (std::memcmp(f.data(), l.header.data(), l.header.size()) != 0)
    return "its header is not this checkpoint's (the checkpoint was rewritten, or the file damaged)";
  const int64_t d = m.config.qgpu->hidden_offset;
  std::vector<uint8_t> row;
  for (const Corner& c : l.corners)
    for (int64_t r : {int64_t{0}, c.rows / 2, c.rows - 1}) {
      const size_t n = static_cast<size_t>(d) * dtype_size(c.w->w.dtype);
      row.resize(n);
      read_corner(m, *c.w, r, 1, d, row.data());
      if (std::memcmp(row.data(), f.data() + c.offset + r * n, n) != 0)
        return fmt::format("row {} of {} differs from the checkpoint's (damaged)", r, c.w->w.name);
    }
  return "";
}

// Writes the corner file (atomically), then removes the least recently used others until the
// directory is within its budget.
void write_corner_file(const Model& m, const CornerLayout& l, const CornerDir& dir, const std::string& path) {
  const int64_t d = m.config.qgpu->hidden_offset;
  write_file_atomic(path, [&](std::ostream& out) {
    out.write(l.header.data(), static_cast<std::streamsize>(l.header.size()));
    std::vector<uint8_t> buf;
    for (const Corner& c : l.corners) {
      const int64_t row = d * static_cast<int64_t>(dtype_size(c.w->w.dtype)), chunk = std::max<int64_t>(1, (4 << 20) / row);
      for (int64_t r = 0; r < c.rows; r += chunk) {
        const int64_t n = std::min(chunk, c.rows - r);
        buf.resize(static_cast<size_t>(n * row));
        read_corner(m, *c.w, r, n, d, buf.data());
        out.write(reinterpret_cast<const char*>(buf.data()), static_cast<std::streamsize>(buf.size()));
      }
      release_file_pages(m, c.w->w.data, c.w->w.nbytes());
      out.write(std::string(align_up(c.bytes) - c.bytes, '\0').data(), static_cast<std::streamsize>(align_up(c.bytes) - c.bytes));
    }
  });
  std::error_code ec;
  std::vector<std::pair<fs::file_time_type, fs::path>> files;
  uint64_t total = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(dir.path, ec))
    if (e.path().extension() == ".corners" && e.is_regular_file(ec)) {
      files.emplace_back(e.last_write_time(ec), e.path());
      total += e.file_size(ec);
    }
  std::sort(files.begin(), files.end());
  for (const auto& [time, p] : files)
    if (total > dir.max_bytes && p != path) total -= std::min(total, static_cast<uint64_t>(fs::file_size(p, ec))), fs::remove(p, ec);
}

// The corners mapped from the cache's file (written first when missing or not this
// checkpoint's); false when there is no cache directory or the corners are too small to
// be worth a file.
bool map_corner_file(const Model& m, BaseCopies& b) {
  std::optional<CornerDir> dir = corner_dir();
  if (!dir) return false;
  const CornerLayout l = corner_layout(m);
  if (l.size < dir->min_bytes || l.size > dir->max_bytes) return false;
  const std::string path = (fs::path(dir->path) / fmt::format("{:016x}.corners", fnv1a(l.header))).string();
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) {
    b.corners = MappedFile(path);
    if (std::string wrong = check_corner_file(m, l, b.corners); !wrong.empty()) {
      b.corners = MappedFile();
      fs::remove(path, ec);
      b.notice = fmt::format("{} was not used: {}; removed and written again", path, wrong);
    } else {
      fs::last_write_time(path, fs::file_time_type::clock::now(), ec);  // used: evicted last
    }
  }
  if (!b.corners.data()) {
    fs::create_directories(dir->path, ec);
    if (ec) fail("cannot create the cache directory '{}': {} (set QGPU_CACHE_DIR to a writable one)", dir->path, ec.message());
    write_corner_file(m, l, *dir, path);
    b.notice += fmt::format("{}the base's used weights ({:.2f} GB) written to {}: later starts map them", b.notice.empty() ? "" : "; ",
                            l.size / 1e9, path);
    b.corners = MappedFile(path);
  }
  const int64_t d = m.config.qgpu->hidden_offset;
  for (const Corner& c : l.corners) {
    b.narrow.emplace(c.w->w.data, Linear{TensorView{c.w->w.name, c.w->w.dtype, {c.rows, d}, b.corners.data() + c.offset}});
    release_file_pages(m, c.w->w.data, c.w->w.nbytes());
  }
  return true;
}

}  // namespace

// The BaseCopies of a merged checkpoint: every base reader's first rows and d columns, and
// the head's base rows, mapped from the corner file or copied; the file pages they were read
// from released.
void make_base_copies(const Model& m, BaseCopies& b) {
  if (map_corner_file(m, b)) return;
  const int64_t d = m.config.qgpu->hidden_offset;
  for_each_base_reader(m, [&](const Linear& w, int64_t rows) {
    if (w.is_sparse() || b.narrow.count(w.w.data)) return;
    b.narrow.emplace(w.w.data, narrow_copy(m, w, rows, d, b.bytes));
    release_file_pages(m, w.w.data, w.w.nbytes());
  });
}

}  // namespace qgpu::engine
