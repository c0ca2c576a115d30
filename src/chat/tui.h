// The ncurses front end of `qgpu chat` (the one file that includes <ncurses.h> is tui.cpp):
// a conversation pane with streamed tokens, an input line with history and editing, and
// the live machine panel, redrawn as a launch generates its records.
#pragma once

#include <string>

#include "chat/session.h"

namespace qgpu::chat {

struct TuiOptions {
  bool panel = true;
  int slow_ms = 0;              // pause after each launch token (to watch the panel; tests)
  std::string greeting;         // the first lines of the conversation pane (e.g. GPU-only note)
};

// Runs until /quit or end of input. Returns the process exit code.
int run_tui(Session& session, const TuiOptions& options);

}  // namespace qgpu::chat
