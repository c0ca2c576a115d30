// A merged checkpoint's base corners in a file of the user's cache. Text on a merge reads
// every base reader's first d columns (and the head's base rows) dense: 2.96 GB for
// Qwen3.5-2B's merge, which copied into fresh memory took 3.8 s a start. They are written once
// per checkpoint to user_cache_dir()/base-corners/HASH.corners and mapped at later starts,
// like a checkpoint.
//
// The file: "qgpuBCF1", u64 text bytes, the header text ("qgpu base corners 1", the
// checkpoint's identity (state_cache.h: each weight file's path, size and mtime, config.json),
// one line a corner: name, dtype, rows, columns, offset), zeros to a 4 KiB boundary, then each
// corner's rows dense, each corner on a 4 KiB boundary. HASH is the FNV-1a hash of the whole
// header. A file is used only when its header is the one this checkpoint gives, byte for byte,
// its size is the header's, and each corner's first, middle and last rows equal the
// checkpoint's; otherwise it is reported, removed and written again. Writes are atomic; the
// directory keeps $QGPU_BASE_CORNERS_MAX_MB (default 8192), the least recently used (oldest
// mtime; a use touches it) removed first; corners under $QGPU_BASE_CORNERS_MIN_MB (default
// 64) are not worth a file and are copied into memory. `qgpu cache` lists, `qgpu cache
// clear` removes them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "engine/model.h"
#include "engine/state_cache.h"

namespace qgpu::engine {

struct BaseCopies;

inline constexpr const char* kCornerSuffix = ".corners";

struct BaseCornerDir {
  std::string path;
  uint64_t max_bytes = 0, min_bytes = 0;
};
// user_cache_dir()/base-corners with the budgets above; nullopt without a cache directory.
// A budget that is not a whole number is an Error naming its variable.
std::optional<BaseCornerDir> default_base_corner_dir();

// Fills b from the cache's corner file of merged checkpoint m (written first when missing or
// not this checkpoint's; b.notice says so); false (b untouched) without a cache directory or
// when the corners are outside the budgets.
bool map_base_corners(const Model& m, BaseCopies& b);

// The corner files in dir, least recently used first.
struct BaseCornerEntry {
  std::string path;
  uint64_t bytes = 0;
  std::filesystem::file_time_type used;
  std::string model;  // the checkpoint's directory, from the header ("": unreadable)
};
std::vector<BaseCornerEntry> list_base_corners(const std::string& dir);
// Removes every corner file (and what killed writes left) in dir.
Cleared clear_base_corners(const std::string& dir);

}  // namespace qgpu::engine
