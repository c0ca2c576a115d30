// The corner files (engine/base_corners.h): written from a merged checkpoint's base readers,
// mapped by make_base_copies (forward_merged.cpp).
#include "engine/base_corners.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "base/cache_dir.h"
#include "base/error.h"
#include "engine/forward_internal.h"
#include "engine/state_cache.h"

namespace qgpu::engine {

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

CornerLayout corner_layout(const Model& m) {
  const int64_t d = m.config.qgpu->hidden_offset;
  CornerLayout l;
  std::string text = "qgpu base corners 1\n" + checkpoint_identity(m);
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
void write_corner_file(const Model& m, const CornerLayout& l, const BaseCornerDir& dir, const std::string& path) {
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
    if (e.path().extension() == kCornerSuffix && e.is_regular_file(ec)) {
      files.emplace_back(e.last_write_time(ec), e.path());
      total += e.file_size(ec);
    }
  std::sort(files.begin(), files.end());
  for (const auto& [time, p] : files)
    if (total > dir.max_bytes && p != path) total -= std::min(total, static_cast<uint64_t>(fs::file_size(p, ec))), fs::remove(p, ec);
}

}  // namespace

bool map_base_corners(const Model& m, BaseCopies& b) {
  std::optional<BaseCornerDir> dir = default_base_corner_dir();
  if (!dir) return false;
  const CornerLayout l = corner_layout(m);
  if (l.size < dir->min_bytes || l.size > dir->max_bytes) return false;
  const std::string path = (fs::path(dir->path) / fmt::format("{:016x}{}", fnv1a(l.header), kCornerSuffix)).string();
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
    const std::string sep = b.notice.empty() ? "" : "; ";
    try {
      write_corner_file(m, l, *dir, path);
    } catch (const Error& e) {  // a full disk or a read-only cache: this start copies them instead
      b.notice += fmt::format("{}the base's used weights were copied into memory: {}", sep, e.what());
      return false;
    }
    b.notice += fmt::format("{}the base's used weights ({:.2f} GB) written to {}: later starts map them", sep, l.size / 1e9, path);
    b.corners = MappedFile(path);
  }
  const int64_t d = m.config.qgpu->hidden_offset;
  for (const Corner& c : l.corners) {
    b.narrow.emplace(c.w->w.data, Linear{TensorView{c.w->w.name, c.w->w.dtype, {c.rows, d}, b.corners.data() + c.offset}});
    release_file_pages(m, c.w->w.data, c.w->w.nbytes());
  }
  return true;
}

std::optional<BaseCornerDir> default_base_corner_dir() {
  std::optional<std::string> root = user_cache_dir();
  if (!root) return std::nullopt;
  return BaseCornerDir{(std::filesystem::path(*root) / "base-corners").string(),
                       megabytes_from_env("QGPU_BASE_CORNERS_MAX_MB", "the base corners' budget", 8192),
                       megabytes_from_env("QGPU_BASE_CORNERS_MIN_MB", "the smallest corners worth a file", 64)};
}

std::vector<BaseCornerEntry> list_base_corners(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<BaseCornerEntry> out;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() != kCornerSuffix || !e.is_regular_file(ec)) continue;
    BaseCornerEntry c{.path = e.path().string(), .bytes = e.file_size(ec)};
    c.used = e.last_write_time(ec);
    std::FILE* f = std::fopen(c.path.c_str(), "rb");  // the checkpoint: the header's first file line
    char line[4096];
    while (f && std::fgets(line, sizeof line, f) && c.model.empty())
      if (std::strncmp(line, "file: ", 6) == 0) {
        const std::string path(line + 6, std::strcspn(line + 6, " "));
        c.model = fs::path(path).parent_path().string();
      }
    if (f) std::fclose(f);
    out.push_back(std::move(c));
  }
  std::sort(out.begin(), out.end(), [](const BaseCornerEntry& a, const BaseCornerEntry& b) { return a.used < b.used; });
  return out;
}

Cleared clear_base_corners(const std::string& dir) {
  namespace fs = std::filesystem;
  Cleared c;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (e.path().extension() != kCornerSuffix && name.find(std::string(kCornerSuffix) + ".tmp.") == std::string::npos) continue;
    const uint64_t bytes = e.file_size(ec);
    if (fs::remove(e.path(), ec)) ++c.files, c.bytes += bytes;
  }
  return c;
}

}  // namespace qgpu::engine
