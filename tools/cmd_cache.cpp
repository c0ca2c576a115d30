// `qgpu cache` and `qgpu cache clear`: the files qgpu derives from checkpoints, listed with
// their sizes and directories, or removed: the prompt cache (engine/state_cache.h: the chat's
// system prompt's state, per checkpoint, binary, dtype and prompt) and the base corners
// (engine/base_corners.h: a merged checkpoint's base weights as text reads them).
#include <fmt/format.h>

#include <ctime>

#include "base/error.h"
#include "chat/commands.h"
#include "commands.h"
#include "engine/base_corners.h"
#include "engine/state_cache.h"

namespace qgpu {
namespace {

std::string megabytes(uint64_t bytes) { return fmt::format("{:.1f} MB", static_cast<double>(bytes) / (1 << 20)); }

// "2026-01-02 13:04" (local time).
std::string local_minute(int64_t ns) {
  const std::time_t t = static_cast<std::time_t>(ns / 1000000000);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &tm);
  return buf;
}

void list_cache(const engine::PromptStateDir& d) {
  const std::vector<engine::PromptStateEntry> entries = engine::list_prompt_states(d.path);
  uint64_t total = 0;
  for (const engine::PromptStateEntry& e : entries) total += e.bytes;
  fmt::print("prompt cache: {} ({} file{}, {} of a {} budget)\n", d.path, entries.size(), entries.size() == 1 ? "" : "s",
             megabytes(total), fmt::format("{} MB", d.max_bytes >> 20));
  for (auto it = entries.rbegin(); it != entries.rend(); ++it)  // the most recently used first
    fmt::print("  {}  {:>10}  {:>7} tokens  used {}  {}\n", std::filesystem::path(it->path).filename().string(),
               megabytes(it->bytes), it->tokens < 0 ? std::string("?") : chat::grouped(it->tokens),
               local_minute(it->mtime_ns), it->model.empty() ? "(unreadable header)" : it->model);
}

void list_corners(const engine::BaseCornerDir& d) {
  const std::vector<engine::BaseCornerEntry> entries = engine::list_base_corners(d.path);
  uint64_t total = 0;
  for (const engine::BaseCornerEntry& e : entries) total += e.bytes;
  fmt::print("base corners: {} ({} file{}, {} of a {} MB budget)\n", d.path, entries.size(), entries.size() == 1 ? "" : "s",
             megabytes(total), d.max_bytes >> 20);
  for (auto it = entries.rbegin(); it != entries.rend(); ++it)
    fmt::print("  {}  {:>10}  {}\n", std::filesystem::path(it->path).filename().string(), megabytes(it->bytes),
               it->model.empty() ? "(unreadable header)" : it->model);
}

}  // namespace

void add_cache_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("cache",
                                 "List qgpu's cache: the prompt cache (the chat's system prompt's state, per checkpoint) "
                                 "and the base corners (a merged checkpoint's base weights as text reads them)");
  auto* clear = cmd->add_subcommand("clear", "Remove every file of the prompt cache and the base corners");
  cmd->callback([clear] {
    const std::optional<engine::PromptStateDir> d = engine::default_prompt_state_dir();
    const std::optional<engine::BaseCornerDir> b = engine::default_base_corner_dir();
    if (!d || !b) fail("no cache directory: set QGPU_CACHE_DIR (or XDG_CACHE_HOME, or HOME)");
    if (!clear->parsed()) {
      list_cache(*d);
      list_corners(*b);
      return fmt::print("`qgpu cache clear` removes them.\n");
    }
    const engine::Cleared c = engine::clear_prompt_states(d->path);
    fmt::print("prompt cache: removed {} file{} ({}) from {}\n", c.files, c.files == 1 ? "" : "s", megabytes(c.bytes),
               d->path);
    const engine::Cleared k = engine::clear_base_corners(b->path);
    fmt::print("base corners: removed {} file{} ({}) from {}\n", k.files, k.files == 1 ? "" : "s", megabytes(k.bytes),
               b->path);
  });
}

}  // namespace qgpu
