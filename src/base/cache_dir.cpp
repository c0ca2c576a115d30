// The cache directory rule, read from the environment at each call (tests set it).
#include "base/cache_dir.h"

#include <cstdlib>

namespace qgpu {

std::optional<std::string> user_cache_dir() {
  if (const char* d = std::getenv("QGPU_CACHE_DIR"); d && *d) return std::string(d);
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/qgpu";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/qgpu";
  return std::nullopt;
}

}  // namespace qgpu
