// mmap for reading, temp-file-and-rename for writing (POSIX).
#include "base/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <streambuf>
#include <vector>

#include "base/error.h"
#include "base/output_dir.h"

namespace qgpu {

MappedFile::MappedFile(const std::string& path) : path_(path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("cannot open '{}': {}", path, std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    fail("cannot read '{}': not a regular file", path);
  }
  size_ = static_cast<size_t>(st.st_size);
  if (size_ > 0) {
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      int err = errno;
      ::close(fd);
      fail("cannot map '{}' ({} bytes): {}", path, size_, std::strerror(err));
    }
    data_ = static_cast<const uint8_t*>(p);
    fd_ = fd;
    return;
  }
  ::close(fd);
}

MappedFile::MappedFile(MappedFile&& o) noexcept
    : path_(std::move(o.path_)), data_(o.data_), size_(o.size_), fd_(o.fd_) {
  o.data_ = nullptr;
  o.size_ = 0;
  o.fd_ = -1;
}

MappedFile& MappedFile::operator=(MappedFile&& o) noexcept {
  if (this != &o) {
    if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(o.path_);
    data_ = o.data_;
    size_ = o.size_;
    fd_ = o.fd_;
    o.data_ = nullptr;
    o.size_ = 0;
    o.fd_ = -1;
  }
  return *this;
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
  if (fd_ >= 0) ::close(fd_);
}

void MappedFile::release(const void* p, size_t n) const {
  const auto* b = static_cast<const uint8_t*>(p);
  if (!data_ || b < data_ || b + n > data_ + size_) return;
  const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t first = (reinterpret_cast<uintptr_t>(b) + page - 1) / page * page;
  const uintptr_t last = (reinterpret_cast<uintptr_t>(b) + n) / page * page;
  if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

bool MappedFile::copy_strided(const void* p, size_t rows, size_t stride, size_t width, void* out) const {
  const auto* b = static_cast<const uint8_t*>(p);
  if (!data_ || rows == 0 || b < data_ || b > data_ + size_) return false;
  const size_t first = static_cast<size_t>(b - data_);
  if ((rows - 1) * stride + width > size_ - first) return false;
  auto* to = static_cast<uint8_t*>(out);
  for (size_t r = 0; r < rows; ++r) {
    size_t done = 0;
    while (done < width) {
      const ssize_t got = ::pread(fd_, to + r * width + done, width - done, static_cast<off_t>(first + r * stride + done));
      if (got <= 0) fail("cannot read '{}' at byte {}: {}", path_, first + r * stride + done, got == 0 ? "the file is shorter than when it was opened" : std::strerror(errno));
      done += static_cast<size_t>(got);
    }
  }
  return true;
}

bool all_zero(const void* p, size_t n) {
  const auto* b = static_cast<const unsigned char*>(p);
  return n == 0 || (b[0] == 0 && std::memcmp(b, b + 1, n - 1) == 0);
}

namespace {

namespace fs = std::filesystem;

// A stream buffer on a file that leaves a hole wherever a whole block of the file is zero:
// a merged checkpoint or a dense export is mostly zeros (the GPU's columns of the base's
// rows, nearly all of the GPU's rows), which then cost neither the write, nor the disk,
// nor the fsync. The file reads the same (a hole reads as zeros); its size is set at the end.
class HoleWriter : public std::streambuf {
 public:
  explicit HoleWriter(int fd) : fd_(fd), buf_(kBuffer) { setp(buf_.data(), buf_.data() + buf_.size()); }

  // Writes what is buffered and sets the file's size (the bytes put); false on a failure.
  bool finish() {
    if (!flush_buffer()) return false;
    if (::ftruncate(fd_, static_cast<off_t>(written_)) == 0) return true;
    error_ = errno;
    return false;
  }
  // Whether a write failed, and why (errno); the bytes put before.
  bool failed() const { return error_ != 0; }
  int error() const { return error_; }
  uint64_t written() const { return written_; }

 protected:
  int_type overflow(int_type c) override {
    if (!flush_buffer()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override { return flush_buffer() ? 0 : -1; }
  // tellp() only: the writers check where a tensor starts and ends.
  pos_type seekoff(off_type off, std::ios_base::seekdir dir, std::ios_base::openmode which) override {
    if (off != 0 || dir != std::ios_base::cur || !(which & std::ios_base::out)) return pos_type(off_type(-1));
    return pos_type(static_cast<off_type>(written_ + static_cast<uint64_t>(pptr() - pbase())));
  }

 private:
  static constexpr size_t kBlock = kHoleBlock, kBuffer = size_t{1} << 20;

  // The buffer to the file: runs of blocks (aligned to the file's offsets) with a nonzero
  // byte are written where they belong; all-zero blocks are skipped.
  bool flush_buffer() {
    const char* p = pbase();
    const size_t n = static_cast<size_t>(pptr() - pbase());
    size_t run = 0, at = 0;  // the pending run of nonzero blocks: [run, at)
    while (at < n) {
      const size_t len = std::min(kBlock - (written_ + at) % kBlock, n - at);
      if (all_zero(p + at, len)) {
        if (!write_all(p + run, at - run, written_ + run)) return false;
        run = at + len;
      }
      at += len;
    }
    if (!write_all(p + run, n - run, written_ + run)) return false;
    written_ += n;
    setp(buf_.data(), buf_.data() + buf_.size());
    return true;
  }
  bool write_all(const char* p, size_t n, uint64_t offset) {
    while (n > 0) {
      const ssize_t k = ::pwrite(fd_, p, n, static_cast<off_t>(offset));
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) {
        error_ = k < 0 ? errno : ENOSPC;
        return false;
      }
      p += k, n -= static_cast<size_t>(k), offset += static_cast<uint64_t>(k);
    }
    return true;
  }

  int fd_;
  std::vector<char> buf_;
  uint64_t written_ = 0;  // bytes before the buffer's first
  int error_ = 0;
};

// Why writing path failed with errno err after `written` bytes: for a full disk, which
// file system, its size, and what to do.
std::string write_error(const std::string& path, int err, uint64_t written) {
  if (err != ENOSPC && err != EDQUOT) return std::strerror(err);
  std::error_code ec;
  const fs::path dir = fs::absolute(path, ec).parent_path();
  const fs::space_info s = fs::space(dir, ec);
  return fmt::format("{}: the file system holding {}{} filled after {:.1f} MB of this file; free some space or "
                     "write elsewhere",
                     std::strerror(err), dir.string(), ec ? "" : fmt::format(" ({:.1f} MB)", s.capacity / 1e6),
                     written / 1e6);
}

}  // namespace

void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& write) {
  // What killed runs left (PATH.tmp.PID of a process that is gone): their space is freed
  // before this write needs it.
  remove_stale_siblings(path, {".tmp."});
  std::string tmp = fmt::format("{}.tmp.{}", path, ::getpid());
  int fd = -1;
  uint64_t bytes = 0;
  try {
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0) fail("cannot write '{}': {}", tmp, std::strerror(errno));
    {
      HoleWriter buf(fd);
      std::ostream out(&buf);
      try {
        write(out);
      } catch (const Error&) {
        // A writer that saw its stream fail names what it wrote; the file system says why.
        if (buf.failed()) fail("cannot write '{}': {}", path, write_error(path, buf.error(), buf.written()));
        throw;
      }
      out.flush();
      if (!out || !buf.finish())
        fail("cannot write '{}': {}", path, buf.failed() ? write_error(path, buf.error(), buf.written()) : "write failed");
      bytes = buf.written();
    }
    if (::fsync(fd) != 0) fail("cannot write '{}': {}", path, write_error(path, errno, bytes));
    ::close(fd);
    fd = -1;
    fs::rename(tmp, path);
  } catch (const fs::filesystem_error& e) {
    if (fd >= 0) ::close(fd);
    std::error_code ec;
    fs::remove(tmp, ec);
    fail("cannot write '{}': {}", path, e.what());
  } catch (...) {
    if (fd >= 0) ::close(fd);
    std::error_code ec;
    fs::remove(tmp, ec);
    throw;
  }
}

}  // namespace qgpu
