// The user's cache directory for qgpu, one rule for everything qgpu keeps there (the hub's
// downloads, the chat's prompt states): $QGPU_CACHE_DIR, else $XDG_CACHE_HOME/qgpu, else
// $HOME/.cache/qgpu.
#pragma once

#include <optional>
#include <string>

namespace qgpu {

// The directory by the rule above (not created); nullopt when none of the three is set.
std::optional<std::string> user_cache_dir();

}  // namespace qgpu
