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

// The language side reading a long prompt, in words: "reading the prompt: 2,048/6,112
// tokens" while it reads, "read the prompt: 6,112 tokens in 14.9 s (410 tokens/s)" at its end.
std::string prefill_line(const Prefill& p);
// Front ends show prefill_line only for prompts longer than this (a shorter one is read
// in about a second or less): the first turn's, which holds the system prompt.
inline constexpr int64_t kPrefillShown = 256;

// A count with its thousands grouped: 6112 -> "6,112".
std::string grouped(int64_t n);

// Splits a command line into words: spaces separate, '...' and "..." quote.
std::vector<std::string> split_words(std::string_view line);

}  // namespace qgpu::chat
