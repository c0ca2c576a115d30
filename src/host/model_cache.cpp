#include "host/model_cache.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>

#include "base/error.h"
#include "lift/machine_model.h"

namespace qgpu::host {

namespace fs = std::filesystem;

std::string cache_root() {
  if (const char* d = std::getenv("QGPU_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/qgpu";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/qgpu";
  fail("no cache directory for the GPU-only model: set QGPU_CACHE_DIR (or HOME)");
}

namespace {

// An exclusive flock on a file next to the model while it is built: a second process
// waits for the first and reuses its model instead of building (and holding in memory)
// another copy. Released when the process ends, however it ends.
struct BuildLock {
  int fd = -1;
  explicit BuildLock(const fs::path& path) {
    fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) fail("{}: cannot open the model cache's lock file; set QGPU_CACHE_DIR to a writable directory", path.string());
    while (flock(fd, LOCK_EX) != 0)
      if (errno != EINTR) fail("{}: cannot lock the model cache", path.string());
  }
  ~BuildLock() { close(fd); }
  BuildLock(const BuildLock&) = delete;
  BuildLock& operator=(const BuildLock&) = delete;
};

// Models of other constructions (an older qgpu's) are 7 GB each: the newest build removes
// them, and temporary directories of builds that were killed. A process still running an
// old model keeps its mapping (the files go when it exits); its next run rebuilds.
void remove_stale(const fs::path& keep) {
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(keep.parent_path(), ec)) {
    const std::string name = e.path().filename().string();
    if (e.path() == keep || !name.starts_with("gpu-") || name.ends_with(".lock") || !e.is_directory()) continue;
    fmt::print(stderr, "qgpu: removing {} (another construction's model)\n", e.path().string());
    fs::remove_all(e.path(), ec);
  }
}

}  // namespace

std::string machine_model_dir() {
  const fs::path dir = fs::path(cache_root()) / fmt::format("gpu-{}", lift::construction_fingerprint());
  if (fs::exists(dir / "config.json")) return dir.string();
  std::error_code ec;
  fs::create_directories(dir.parent_path(), ec);
  if (ec) fail("{}: cannot create the model cache ({}); set QGPU_CACHE_DIR to a writable directory", dir.parent_path().string(), ec.message());
  BuildLock lock(dir.string() + ".lock");
  if (fs::exists(dir / "config.json")) return dir.string();  // built while we waited
  const fs::path tmp = dir.string() + fmt::format(".tmp-{}", getpid());
  fs::remove_all(tmp, ec);
  fmt::print(stderr, "qgpu: building the GPU-only model into {} (first use, about a minute)\n", dir.string());
  lift::write_machine_model(tmp.string(), engine::DType::f32);
  fs::rename(tmp, dir, ec);
  if (ec) fail("{}: cannot move the built model into place ({})", dir.string(), ec.message());
  remove_stale(dir);
  return dir.string();
}

}  // namespace qgpu::host
