// Files as bytes: read-only memory maps for weights, atomic writes for everything we produce.
//
// Checkpoints are mmap'd and never copied: tensors are views into a MappedFile that lives as
// long as the model. Every file qgpu writes goes to a temporary name in the same directory
// and is renamed over the target only when complete, so a killed run leaves the old file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

namespace qgpu {

// A whole file mapped read-only. Move-only; unmaps on destruction. An empty file maps to
// data() == nullptr, size() == 0.
class MappedFile {
 public:
  MappedFile() = default;
  explicit MappedFile(const std::string& path);  // throws Error naming the path
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  const std::string& path() const { return path_; }
  // Drops this process's pages of [p, p + n) (whole pages inside it; nothing when the range
  // is not in this mapping): a later read maps them from the file again. For bytes read
  // once at load (a weight copied into another form), so they do not count against memory.
  void release(const void* p, size_t n) const;
  // Copies `rows` runs of `width` bytes, the first at p (inside this mapping) and each
  // `stride` bytes after the last, into out (rows * width bytes) by reading the file, not
  // the mapping: for a weight read at a stride (a merged checkpoint's base columns, 4 KB of
  // each 19.7 KB row), where faulting each page into the mapping costs more than the copy
  // and maps what the copy no longer needs. False (nothing copied) when p is not in this
  // mapping; an Error naming the file when it cannot be read.
  bool copy_strided(const void* p, size_t rows, size_t stride, size_t width, void* out) const;

 private:
  std::string path_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  int fd_ = -1;  // open while mapped: copy_strided reads the file that was mapped
};

// Writes a file atomically: `write` fills a stream on PATH.tmp.PID, which is flushed, fsync'd
// and renamed to PATH. On any failure the temporary is removed and Error names PATH (and,
// for a full disk, how much is free there). PATH.tmp.PID files of processes that are gone
// (killed runs) are removed first (base/output_dir.h). Every
// 4 KiB block of the file that is all zero bytes is left a hole (not written, no disk
// space where the file system has holes; it reads as zeros).
void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& write);

// The block write_file_atomic leaves a hole when all its bytes are zero (blocks are aligned
// to the file's offsets), and that test: whether n bytes from p are all zero.
inline constexpr int64_t kHoleBlock = 4096;
bool all_zero(const void* p, size_t n);

}  // namespace qgpu
