// The cache directory rule, read from the environment at each call (tests set it).
#include "base/cache_dir.h"

#include <cstdlib>
#include <string>

#include "base/error.h"

namespace qgpu {

std::optional<std::string> user_cache_dir() {
  if (const char* d = std::getenv("QGPU_CACHE_DIR"); d && *d) return std::string(d);
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/qgpu";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/qgpu";
  return std::nullopt;
}

uint64_t megabytes_from_env(const char* name, const char* what, uint64_t fallback_mb) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback_mb << 20;
  const std::string_view text(v);
  if (text.size() > 9 || text.find_first_not_of("0123456789") != std::string_view::npos)
    fail("{}='{}': expected {} in megabytes, a whole number", name, text, what);
  return static_cast<uint64_t>(std::stoull(std::string(text))) << 20;
}

uint64_t fnv1a(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : s) h = (h ^ static_cast<uint8_t>(c)) * 0x100000001b3ull;
  return h;
}

}  // namespace qgpu
