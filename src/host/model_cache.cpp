#include "host/model_cache.h"

#include <unistd.h>

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

std::string machine_model_dir() {
  const fs::path dir = fs::path(cache_root()) / fmt::format("gpu-{}", lift::construction_fingerprint());
  if (fs::exists(dir / "config.json")) return dir.string();
  std::error_code ec;
  fs::create_directories(dir.parent_path(), ec);
  if (ec) fail("{}: cannot create the model cache ({}); set QGPU_CACHE_DIR to a writable directory", dir.parent_path().string(), ec.message());
  const fs::path tmp = dir.string() + fmt::format(".tmp-{}", getpid());
  fs::remove_all(tmp, ec);
  fmt::print(stderr, "qgpu: building the GPU-only model into {} (first use, about 20 s)\n", dir.string());
  lift::write_machine_model(tmp.string(), engine::DType::f32);
  fs::rename(tmp, dir, ec);
  if (ec) {  // another process finished first: theirs is the same model
    fs::remove_all(tmp);
    if (!fs::exists(dir / "config.json")) fail("{}: cannot move the built model into place ({})", dir.string(), ec.message());
  }
  return dir.string();
}

}  // namespace qgpu::host
