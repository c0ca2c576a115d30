// What the harnesses share. The contract every harness checks: an input is either accepted
// or rejected with one qgpu::Error; any other exception (std::terminate in `qgpu`), a
// crash, a sanitizer report, a hang (-timeout) or a memory blow-up (-rss_limit_mb) is a
// finding.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "base/error.h"

namespace qgpu::fuzz {

// The input as text (it may hold any bytes, NUL included).
inline std::string_view text_of(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Runs f; a qgpu::Error is the input rejected, as the CLI would report it.
template <typename F>
bool accepted(F&& f) {
  try {
    f();
    return true;
  } catch (const Error&) {
    return false;
  }
}

// A property that must hold for every input: prints what and aborts (a finding).
#define FUZZ_REQUIRE(cond, ...)                                              \
  do {                                                                       \
    if (!(cond)) {                                                           \
      fmt::print(stderr, "fuzz: {}:{}: {} failed: ", __FILE__, __LINE__, #cond); \
      fmt::print(stderr, __VA_ARGS__);                                       \
      fmt::print(stderr, "\n");                                              \
      std::abort();                                                          \
    }                                                                        \
  } while (0)

// A file in memory (memfd) that the loaders open and mmap by path, rewritten per input:
// no disk traffic, nothing to clean up.
class MemFile {
 public:
  MemFile() : fd_(memfd_create("qgpu-fuzz", 0)) { CHECK(fd_ >= 0); }
  ~MemFile() { close(fd_); }
  MemFile(const MemFile&) = delete;
  MemFile& operator=(const MemFile&) = delete;
  // Replaces the contents with data; returns the path to open.
  std::string write(std::string_view data) {
    CHECK(ftruncate(fd_, 0) == 0);
    for (size_t off = 0; off < data.size();) {
      const ssize_t n = pwrite(fd_, data.data() + off, data.size() - off, static_cast<off_t>(off));
      CHECK(n > 0);
      off += static_cast<size_t>(n);
    }
    return fmt::format("/proc/self/fd/{}", fd_);
  }

 private:
  int fd_;
};

// A directory of this process under $TMPDIR (else /tmp), removed at exit.
class ScratchDir {
 public:
  ScratchDir() {
    const char* t = std::getenv("TMPDIR");
    path_ = std::filesystem::path(t && *t ? t : "/tmp") / fmt::format("qgpu-fuzz-{}", getpid());
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace qgpu::fuzz
