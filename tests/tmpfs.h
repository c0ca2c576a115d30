// A tmpfs mounted for one test (root only): a small disk to fill (disk-full tests), or a
// disk in memory where a test writes gigabytes it throws away. Unmounted, with whatever
// it holds, by the destructor, also when the test fails half-way.
#pragma once

#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>

#include <fmt/format.h>

namespace qgpu::test_util {

class Tmpfs {
 public:
  // Mounts a tmpfs of `bytes` at dir (created); mounted() says whether it worked, why() why
  // not (not root, or no CAP_SYS_ADMIN in a container).
  Tmpfs(const std::filesystem::path& dir, uint64_t bytes) : dir_(dir) {
    std::filesystem::create_directories(dir_);
    if (geteuid() != 0) {
      why_ = "not root: mounting a tmpfs needs root";
      return;
    }
    if (::mount("tmpfs", dir_.c_str(), "tmpfs", 0, fmt::format("size={}", bytes).c_str()) != 0) {
      why_ = fmt::format("cannot mount a tmpfs at {}: {}", dir_.string(), std::strerror(errno));
      return;
    }
    mounted_ = true;
  }
  ~Tmpfs() {
    if (mounted_ && ::umount2(dir_.c_str(), MNT_DETACH) != 0)
      ADD_FAILURE() << "cannot unmount the tmpfs at " << dir_ << ": " << std::strerror(errno);
  }
  Tmpfs(const Tmpfs&) = delete;
  Tmpfs& operator=(const Tmpfs&) = delete;

  bool mounted() const { return mounted_; }
  const std::string& why() const { return why_; }
  std::string operator/(const std::string& name) const { return (dir_ / name).string(); }
  // Bytes in use.
  uint64_t used() const {
    struct statvfs s {};
    ::statvfs(dir_.c_str(), &s);
    return (s.f_blocks - s.f_bfree) * s.f_frsize;
  }
  // A new size (at least what is in use): the disk fills when a writer is half-way.
  bool resize(uint64_t bytes) const {
    return ::mount("tmpfs", dir_.c_str(), "tmpfs", MS_REMOUNT, fmt::format("size={}", bytes).c_str()) == 0;
  }

 private:
  std::filesystem::path dir_;
  bool mounted_ = false;
  std::string why_;
};

}  // namespace qgpu::test_util
