// The chat's / commands, shared by the ncurses front end and --plain: /help, /mode,
// /run, /kernels, /trace, /panel, /reset, /save, /quit. Each returns the lines to show.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "chat/session.h"

namespace qgpu::chat {

struct CommandOutcome {
  std::vector<std::string> lines;  // what to show
  bool quit = false;               // /quit
  std::optional<bool> panel;       // /panel on|off
};

// "/" alone or /help: one line per command.
std::vector<std::string> help_lines();

// Runs one command line (it starts with '/'). Unknown commands and bad arguments give one
// line saying what is wrong and what to type instead; nothing throws.
CommandOutcome run_command(Session& session, std::string_view line, const Events& events);

// A launch's summary: kernel, records, time, and every array the kernel was passed, as the
// host read it out; for a tool's launch, the arrays of its arguments, then its result (read
// from the other arrays: each number once).
std::vector<std::string> launch_lines(const LaunchReport& r);

// Splits a command line into words: spaces separate, '...' and "..." quote.
std::vector<std::string> split_words(std::string_view line);

}  // namespace qgpu::chat
