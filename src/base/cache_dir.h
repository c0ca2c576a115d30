// The user's cache directory for qgpu, one rule for everything qgpu keeps there (the hub's
// downloads, the chat's prompt states): $QGPU_CACHE_DIR, else $XDG_CACHE_HOME/qgpu, else
// $HOME/.cache/qgpu.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace qgpu {

// The directory by the rule above (not created); nullopt when none of the three is set.
std::optional<std::string> user_cache_dir();

// A size in megabytes from environment variable `name` (unset or empty: fallback_mb), in
// bytes; anything but a whole number of at most 9 digits is an Error: "NAME='TEXT': expected
// WHAT in megabytes, a whole number".
uint64_t megabytes_from_env(const char* name, const char* what, uint64_t fallback_mb);

// The 64-bit FNV-1a hash of s: how a cache names a file after its key.
uint64_t fnv1a(std::string_view s);

}  // namespace qgpu
