// The prompt-state cache: the State after a fixed prefix of tokens (the chat's system block,
// thousands of tokens), kept in files so that the next process starts after it instead of
// reading it again. Loading a state gives the bits reading the prefix gives (forward's
// numbers do not depend on how the tokens were batched; state_cache_test checks the logits
// after it bit for bit), so the cache changes how long a start takes, never what follows.
//
// A file is named by a 64-bit FNV-1a hash of its key (PromptStateKey: everything the state's
// bits depend on: the qgpu binary, the checkpoint's config.json and weight files (path, size,
// mtime), the dtype, the rounding policy, the matmul kernel, the prefix's token ids), and
// holds the whole key, which load compares: a changed checkpoint, another binary or a hash
// collision is a miss, never another state. A file that is truncated, damaged or holds
// another key is reported (one line), removed and rebuilt, never used. Files are written
// atomically (base/mapped_file.h) and kept within a budget of bytes, the least recently used
// (oldest mtime; a hit touches its file) removed first. `qgpu cache` lists them, `qgpu cache
// clear` removes them.
//
// File format (little-endian, every part a multiple of 8 bytes):
//   "qgpuPST\n"  u32 version  u32 0  u64 key bytes  u64 payload bytes  u64 payload hash
//   key (padded with zeros)
//   payload: u64 n_past, u64 layers; per layer five arrays (conv, recurrent, recurrent_plain,
//   keys, values), each u64 count then its elements, padded with zeros.
// keys_blocked is not stored: forward rebuilds it from keys (keys_blocked_n is 0 after a load).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/forward.h"
#include "engine/model.h"
#include "engine/state.h"

namespace qgpu::engine {

// A directory of prompt states and its budget.
struct PromptStateDir {
  std::string path;
  uint64_t max_bytes = uint64_t{2048} << 20;
};

// user_cache_dir()/prompt-states (base/cache_dir.h) with a budget of $QGPU_PROMPT_CACHE_MAX_MB
// megabytes (default 2048); nullopt when there is no cache directory. A budget that is not a
// whole number is an Error naming the variable.
std::optional<PromptStateDir> default_prompt_state_dir();

// The key of the state after `prefix` on model m run with options o: text, one fact a line.
// nullopt when m has no weight files (the GPU-only model built in memory): nothing on disk
// says which weights it holds. A Model whose weights were changed in memory after loading
// must not use the cache.
std::optional<std::string> prompt_state_key(const Model& m, const RuntimeOptions& o, std::span<const int32_t> prefix);

// What identifies a checkpoint's bytes while nobody rewrites it: a line for each weight file
// ("file: PATH SIZE bytes, mtime NS") and each HF directory's config.json as text; "" for
// a Model with no weight files. Shared by the caches derived from a checkpoint.
std::string checkpoint_identity(const Model& m);

// The file name for a key: 16 hex digits of its FNV-1a hash, then ".state".
std::string prompt_state_file_name(const std::string& key);

// A file's bytes for state s (of a model with config c) under key, and back. read_state
// throws Error saying what is wrong (truncated, not a prompt state, another version, another
// key, a damaged payload, a shape c does not have).
void write_state(std::ostream& out, const State& s, const std::string& key);
State read_state(const Config& c, std::span<const uint8_t> bytes, const std::string& key);

// What a load found: the state, or none (miss: no file; or problem: a file that could not be
// used, now removed, in one line naming it and why).
struct PromptStateLoad {
  std::optional<State> state;
  std::string problem;
};
PromptStateLoad load_prompt_state(const PromptStateDir& d, const Config& c, const std::string& key);

// Writes s under key (atomically; the directory is created), then removes the least recently
// used files until the directory is within its budget. False (nothing written) when the
// file alone would exceed the budget. Errors (a full disk, no permission) are Errors naming
// the file.
bool save_prompt_state(const PromptStateDir& d, const State& s, const std::string& key);

// The files of a prompt-state directory, least recently used first (none when it is missing).
struct PromptStateEntry {
  std::string path;
  uint64_t bytes = 0;
  int64_t mtime_ns = 0;  // last used
  int64_t tokens = -1;   // the prefix's length, from the key (-1: unreadable header)
  std::string model;     // the first weight file's directory, from the key ("": unreadable)
};
std::vector<PromptStateEntry> list_prompt_states(const std::string& dir);

// Removes every prompt-state file (and temporary files of writes that were killed) in dir;
// returns the files and bytes removed.
struct Cleared {
  int64_t files = 0;
  uint64_t bytes = 0;
};
Cleared clear_prompt_states(const std::string& dir);

}  // namespace qgpu::engine
