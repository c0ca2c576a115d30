// The swap is renameat2(RENAME_EXCHANGE) (Linux 3.15; ext4, xfs, btrfs, tmpfs): OUT and
// OUT.tmp-PID trade places in one step, and the previous output, now at the temporary
// name, is removed after. A file system without it (EINVAL) gets the two renames of
// before: OUT -> OUT.old-PID, then OUT.tmp-PID -> OUT; the next run puts OUT.old-PID back
// if a kill fell between them. A PID is "gone" when kill(pid, 0) says ESRCH; a directory
// shared with another PID namespace (a container) could hold a live run's files under a
// PID that is gone here: qgpu assumes one machine writes an output.
#include "base/output_dir.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "base/error.h"

namespace qgpu {
namespace {

namespace fs = std::filesystem;

// out without trailing slashes ("dir/" is dir, whose siblings are dir.tmp-PID).
fs::path normal_out(const std::string& out) {
  std::string s = out;
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  const fs::path p(s);
  const std::string name = p.filename().string();
  if (name.empty() || name == "." || name == ".." || s == "/")
    fail("--out {}: name the output directory itself (not '.', '..' or '/')", out);
  return p;
}

// The PID in name when it is prefix + digits, else -1.
long pid_after(const std::string& name, const std::string& prefix) {
  if (!name.starts_with(prefix) || name.size() == prefix.size() || name.size() > prefix.size() + 9) return -1;
  long pid = 0;
  for (size_t i = prefix.size(); i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return -1;
    pid = pid * 10 + (name[i] - '0');
  }
  return pid > 0 ? pid : -1;
}

struct Stale {
  fs::path path;
  std::string marker;
};

// The siblings of p named p + marker + PID whose process is gone or is this one.
std::vector<Stale> stale_siblings(const fs::path& p, const std::vector<std::string>& markers) {
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  const std::string name = p.filename().string();
  std::vector<Stale> stale;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string sibling = it->path().filename().string();
    for (const std::string& m : markers) {
      const long pid = pid_after(sibling, name + m);
      if (pid > 0 && (pid == ::getpid() || !process_alive(pid))) stale.push_back({it->path(), m});
    }
  }
  return stale;
}

bool missing(const fs::path& p) {
  std::error_code ec;
  return fs::symlink_status(p, ec).type() == fs::file_type::not_found;
}

// The swap's fallback, two renames: out is missing between them (the next run repairs it).
void move_aside_then_in(const std::string& tmp, const std::string& out) {
  std::error_code ec;
  const std::string old = out + fmt::format(".old-{}", ::getpid());
  fs::rename(out, old, ec);
  if (ec) fail("{}: cannot move the previous output aside ({}); the new one is in {}", out, ec.message(), tmp);
  fs::rename(tmp, out, ec);
  if (ec) fail("{}: cannot move the new output into place ({}); it is in {}, the previous one in {}", out, ec.message(), tmp, old);
  fs::remove_all(old, ec);
}

}  // namespace

bool process_alive(long pid) {
  CHECK(pid > 0);
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH;
}

std::vector<std::string> remove_stale_siblings(const std::string& path, const std::vector<std::string>& markers) {
  std::vector<std::string> removed;
  for (const Stale& s : stale_siblings(fs::path(path), markers)) {
    std::error_code ec;
    fs::remove_all(s.path, ec);
    if (!ec) removed.push_back(s.path.string());
  }
  return removed;
}

StagedDir::StagedDir(const std::string& out) {
  const fs::path o = normal_out(out);
  out_ = o.string();
  std::error_code ec;
  const std::vector<Stale> stale = stale_siblings(o, {".tmp-", ".old-"});
  if (missing(o))
    for (const Stale& s : stale)
      if (s.marker == ".old-" && (fs::rename(s.path, o, ec), !ec)) break;
  for (const Stale& s : stale) fs::remove_all(s.path, ec);
  if (!missing(o) && !fs::is_directory(o))
    fail("--out {}: exists and is not a directory; remove it or pass another --out", out_);
  if (fs::is_directory(o) && !fs::is_empty(o, ec) && !fs::exists(o / "config.json"))
    fail("--out {}: a directory that holds no checkpoint (no config.json), which the new output would replace "
         "whole; remove it or pass another --out",
         out_);
  tmp_ = out_ + fmt::format(".tmp-{}", ::getpid());
  fs::remove_all(tmp_, ec);
  fs::create_directories(tmp_, ec);
  if (ec) fail("{}: cannot create the output's temporary directory ({})", tmp_, ec.message());
}

StagedDir::~StagedDir() {
  std::error_code ec;
  if (!committed_) fs::remove_all(tmp_, ec);
}

void StagedDir::commit() {
  committed_ = true;  // from here on an error leaves the new output where the message says
  std::error_code ec;
  if (missing(out_)) {
    fs::rename(tmp_, out_, ec);
    if (ec) fail("{}: cannot move the new output into place ({}); it is in {}", out_, ec.message(), tmp_);
    return;
  }
  if (::syscall(SYS_renameat2, AT_FDCWD, tmp_.c_str(), AT_FDCWD, out_.c_str(), RENAME_EXCHANGE) != 0) {
    const int err = errno;
    if (err != EINVAL && err != ENOSYS)
      fail("{}: cannot swap the new output into place ({}); it is in {}", out_, std::strerror(err), tmp_);
    return move_aside_then_in(tmp_, out_);
  }
  fs::remove_all(tmp_, ec);  // the previous output, now under the temporary name
}

}  // namespace qgpu
