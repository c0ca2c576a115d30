// `qgpu cache` and `qgpu cache clear`: the prompt cache's files (engine/state_cache.h: the
// chat's system prompt's state, kept per checkpoint, binary, dtype and prompt), listed with
// their sizes and the directory, or removed.
#include <fmt/format.h>

#include <ctime>

#include "base/error.h"
#include "chat/commands.h"
#include "commands.h"
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
  if (!entries.empty()) fmt::print("`qgpu cache clear` removes them.\n");
}

}  // namespace

void add_cache_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "cache", "List the prompt cache (the chat's system prompt's state, per checkpoint): files, sizes, directory");
  auto* clear = cmd->add_subcommand("clear", "Remove every file of the prompt cache");
  cmd->callback([clear] {
    const std::optional<engine::PromptStateDir> d = engine::default_prompt_state_dir();
    if (!d) fail("no cache directory: set QGPU_CACHE_DIR (or XDG_CACHE_HOME, or HOME)");
    if (!clear->parsed()) return list_cache(*d);
    const engine::Cleared c = engine::clear_prompt_states(d->path);
    fmt::print("prompt cache: removed {} file{} ({}) from {}\n", c.files, c.files == 1 ? "" : "s", megabytes(c.bytes),
               d->path);
  });
}

}  // namespace qgpu
