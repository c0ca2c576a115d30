// The ncurses front end of `qgpu chat`. One screen: the conversation on the left (or the
// whole width without the panel), the machine panel on the right, a status line and the
// input line at the bottom. Everything is redrawn from plain data (Tui) on each change;
// ncurses only paints. Ctrl-C arrives as SIGINT (cbreak mode): during a launch it stops the
// launch, at an empty prompt it quits.
#include "chat/tui.h"

#include <fmt/format.h>
#include <ncurses.h>

#include <chrono>
#include <memory>
#include <csignal>
#include <thread>

#include "base/error.h"
#include "chat/commands.h"

namespace qgpu::chat {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kPanelMax = 100;      // the panel's widest useful width
constexpr int kConvoMin = 40;       // the conversation keeps at least this many columns
constexpr int kPanelMin = 40;       // narrower than this, the panel is not drawn
constexpr auto kFrame = std::chrono::milliseconds(40);  // at most ~25 panel reads a second

volatile std::sig_atomic_t g_interrupted = 0;

extern "C" void on_sigint(int) { g_interrupted = 1; }

struct Tui {
  Session& session;
  TuiOptions options;
  bool panel = true;
  std::vector<std::string> convo{""};  // logical lines; the last one is open for streaming
  std::string input;
  size_t cursor = 0;
  std::vector<std::string> history;
  size_t history_at = 0;               // == history.size(): the line being edited
  std::string draft;                   // the edited line while browsing history
  int scroll = 0;                      // wrapped lines scrolled up from the bottom
  std::string status;
  std::optional<PanelSnapshot> snapshot;
  Clock::time_point last_frame{};
  bool snapshot_failed = false;
};

// ---- The conversation.

void add_text(Tui& t, std::string_view text) {
  for (char c : text) {
    if (c == '\n') t.convo.emplace_back();
    else t.convo.back() += c;
  }
}

void add_line(Tui& t, const std::string& line) {
  if (!t.convo.back().empty()) t.convo.emplace_back();
  add_text(t, line + "\n");
}

std::vector<std::string> wrapped(const std::vector<std::string>& lines, int width) {
  std::vector<std::string> out;
  for (const std::string& l : lines) {
    if (l.empty()) out.emplace_back();
    const size_t w = static_cast<size_t>(width);
    for (size_t at = 0; at < l.size();) {  // at a space when the line has one, else mid-word
      size_t n = std::min(w, l.size() - at);
      if (at + n < l.size()) {
        size_t space = l.rfind(' ', at + n - 1);
        if (space != std::string::npos && space > at && space - at > w / 2) n = space - at + 1;
      }
      out.push_back(l.substr(at, n));
      at += n;
    }
  }
  if (!out.empty() && out.back().empty()) out.pop_back();  // the open, empty last line
  return out;
}

// ---- Drawing.

int panel_width(const Tui& t) {
  if (!t.panel) return 0;
  const int w = std::min(kPanelMax, COLS - kConvoMin - 1);
  return w >= kPanelMin ? w : 0;
}

int convo_height() { return std::max(1, LINES - 2); }

void draw_convo(Tui& t, int width) {
  const std::vector<std::string> lines = wrapped(t.convo, std::max(1, width));
  const int h = convo_height();
  t.scroll = std::clamp(t.scroll, 0, std::max(0, static_cast<int>(lines.size()) - h));
  const int last = static_cast<int>(lines.size()) - t.scroll;
  const int first = std::max(0, last - h);
  for (int i = first; i < last; ++i) mvaddnstr(i - first, 0, lines[static_cast<size_t>(i)].c_str(), width);
}

void draw_panel(const Tui& t, int x, int width) {
  for (int y = 0; y < convo_height(); ++y) mvaddch(y, x - 1, '|');
  if (!t.snapshot) {
    mvaddnstr(0, x, "machine panel: no launch yet (/run, or ask for one)", width);
    return;
  }
  const std::vector<std::string> lines = render_panel(*t.snapshot, width);
  for (int y = 0; y < convo_height() && y < static_cast<int>(lines.size()); ++y)
    mvaddnstr(y, x, lines[static_cast<size_t>(y)].c_str(), width);
}

void draw_input(const Tui& t) {
  const std::string prompt = "> ";
  const int room = std::max(1, COLS - static_cast<int>(prompt.size()) - 1);
  const size_t shift = t.cursor > static_cast<size_t>(room) ? t.cursor - static_cast<size_t>(room) : 0;
  attron(A_REVERSE);
  mvhline(LINES - 2, 0, ' ', COLS);
  mvaddnstr(LINES - 2, 0, t.status.c_str(), COLS);
  attroff(A_REVERSE);
  mvaddstr(LINES - 1, 0, prompt.c_str());
  addnstr(t.input.c_str() + shift, room);
  move(LINES - 1, static_cast<int>(prompt.size() + t.cursor - shift));
}

void draw(Tui& t) {
  erase();
  const int pw = panel_width(t);
  const int cw = pw > 0 ? COLS - pw - 1 : COLS;
  draw_convo(t, cw);
  if (pw > 0) draw_panel(t, cw + 1, pw);
  draw_input(t);
  refresh();
}

// ---- Events of a turn or a launch.

const char* kIdle = " qgpu chat   / commands   PgUp/PgDn scroll   Ctrl-C or Ctrl-D quits";

std::string launch_title(const LaunchReport& r) {
  return fmt::format("launch: kernel {} ({}) grid {}x{} block {}x{}", r.kernel, r.tool, r.launch.grid_x,
                     r.launch.grid_y, r.launch.block_x, r.launch.block_y);
}

// A launch the model made shows its outputs and result here (a /run's come back as the
// command's lines: run_command's events have no on_launch_end).
void launch_ended(Tui& t, const LaunchReport& r) {
  for (const std::string& line : launch_lines(r)) add_line(t, "[gpu] " + line);
  t.status = kIdle;
  draw(t);
}

// Reads the machine into t.snapshot; a divergence is shown once and the launch goes on.
void read_machine(Tui& t, const LaunchFeed& feed) {
  try {
    const PanelSnapshot* previous = feed.record && t.snapshot ? &*t.snapshot : nullptr;
    t.snapshot = read_snapshot(feed, previous);
  } catch (const std::exception& e) {
    if (!t.snapshot_failed) add_line(t, std::string("panel: ") + e.what());
    t.snapshot_failed = true;
  }
}

// A token of a launch: read the machine only when a frame is due (and at the first and the
// last token), so reading (~2 ms) stays a small part of generation; with the panel hidden,
// only the first and the last (so /panel on shows the end).
bool launch_token(Tui& t, const LaunchFeed& feed) {
  const bool edge = !feed.record || feed.record->kind == Tok::kEnd;
  const auto now = Clock::now();
  const bool frame = edge || now - t.last_frame >= kFrame;
  if (frame && (edge || panel_width(t) > 0)) {
    read_machine(t, feed);
  } else if (t.snapshot) {
    note_record(*t.snapshot, feed);  // the register types follow every record
  }
  if (frame) {
    t.last_frame = now;
    t.status = fmt::format(" launch running: {} records   Ctrl-C stops it", feed.records);
    draw(t);
  }
  if (t.options.slow_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(t.options.slow_ms));
  return !g_interrupted;
}

Events make_events(Tui& t) {
  Events e;
  auto open = std::make_shared<bool>(false);  // the assistant's reply is streaming into the last line
  e.on_prefill = [&t](const Prefill& p) {  // a long prompt: tens of seconds before the first word
    if (!p.note.empty()) add_line(t, "[host] " + p.note);
    if (p.total > kPrefillShown && p.fed > 0) {
      t.status = " " + prefill_line(p) + (p.fed < p.total ? "   Ctrl-C stops" : "");
      draw(t);
    }
    return !g_interrupted;
  };
  e.on_text = [&t, open](std::string_view text) {
    if (!*open) {
      if (!t.convo.back().empty()) t.convo.emplace_back();
      t.convo.back() = "qgpu: ";
      *open = true;
    }
    add_text(t, text);
    draw(t);
    return !g_interrupted;  // Ctrl-C stops the reply
  };
  e.on_notice = [&t, open](std::string_view line) {
    *open = false;
    add_line(t, "[host] " + std::string(line));
    draw(t);
  };
  e.on_launch_start = [&t, open](const LaunchReport& r) {
    *open = false;
    add_line(t, launch_title(r));
    t.snapshot.reset();
    t.snapshot_failed = false;
    draw(t);
  };
  e.on_launch_token = [&t](const LaunchFeed& feed) { return launch_token(t, feed); };
  e.on_launch_end = [&t, open](const LaunchReport& r) {
    *open = false;
    launch_ended(t, r);
  };
  return e;
}

// ---- Input.

// Runs one submitted line; false when the session should end.
bool submit(Tui& t, const std::string& line) {
  t.scroll = 0;
  g_interrupted = 0;
  add_line(t, "you> " + line);
  t.status = " working...";
  draw(t);
  bool keep = true;
  try {
    if (line == "/") {
      for (const std::string& l : help_lines()) add_line(t, l);
    } else if (line[0] == '/') {
      Events events = make_events(t);
      events.on_launch_end = [&t](const LaunchReport&) { t.status = kIdle, draw(t); };  // the lines follow
      CommandOutcome o = run_command(t.session, line, events);
      for (const std::string& l : o.lines) add_line(t, l);
      if (o.panel) t.panel = *o.panel;
      keep = !o.quit;
    } else {
      t.session.turn(line, make_events(t));
    }
  } catch (const std::exception& e) {
    add_line(t, std::string("error: ") + e.what());
  }
  add_line(t, "");
  g_interrupted = 0;
  t.status = kIdle;
  return keep;
}

void recall(Tui& t, int delta) {
  if (t.history.empty()) return;
  if (t.history_at == t.history.size()) t.draft = t.input;
  const int at = std::clamp(static_cast<int>(t.history_at) + delta, 0, static_cast<int>(t.history.size()));
  t.history_at = static_cast<size_t>(at);
  t.input = t.history_at == t.history.size() ? t.draft : t.history[t.history_at];
  t.cursor = t.input.size();
}

// Editing keys; true when the key was one of them.
bool edit(Tui& t, int key) {
  switch (key) {
    case KEY_LEFT: if (t.cursor > 0) --t.cursor; return true;
    case KEY_RIGHT: if (t.cursor < t.input.size()) ++t.cursor; return true;
    case KEY_HOME: case 1: t.cursor = 0; return true;                 // Ctrl-A
    case KEY_END: case 5: t.cursor = t.input.size(); return true;     // Ctrl-E
    case 21: t.input.erase(0, t.cursor); t.cursor = 0; return true;   // Ctrl-U
    case 11: t.input.erase(t.cursor); return true;                    // Ctrl-K
    case KEY_BACKSPACE: case 127: case 8:
      if (t.cursor > 0) t.input.erase(--t.cursor, 1);
      return true;
    case KEY_DC: if (t.cursor < t.input.size()) t.input.erase(t.cursor, 1); return true;
    case KEY_UP: recall(t, -1); return true;
    case KEY_DOWN: recall(t, +1); return true;
    case KEY_PPAGE: t.scroll += convo_height() / 2; return true;
    case KEY_NPAGE: t.scroll = std::max(0, t.scroll - convo_height() / 2); return true;
    default: break;
  }
  if (key >= 32 && key < 256 && key != 127) {
    t.input.insert(t.cursor++, 1, static_cast<char>(key));
    return true;
  }
  return false;
}

// Enter: runs the line. False when the session should end.
bool enter(Tui& t) {
  const std::string line = t.input;
  t.input.clear();
  t.cursor = 0;
  if (line.empty()) return true;
  if (t.history.empty() || t.history.back() != line) t.history.push_back(line);
  t.history_at = t.history.size();
  return submit(t, line);
}

// One key (or ERR after the poll interval). False when the session should end.
bool key(Tui& t, int k) {
  if (g_interrupted) {  // Ctrl-C at the prompt: clears a line, quits at an empty one
    g_interrupted = 0;
    if (t.input.empty()) return false;
    t.input.clear(), t.cursor = 0;
    return true;
  }
  if (k == ERR) return true;
  if (k == 4 && t.input.empty()) return false;  // Ctrl-D
  if (k == '\n' || k == '\r' || k == KEY_ENTER) return enter(t);
  edit(t, k);
  return true;
}

struct Screen {
  Screen() {
    initscr();
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    timeout(100);  // poll: SIGINT sets a flag that the loop sees
    std::signal(SIGINT, on_sigint);
  }
  ~Screen() {
    std::signal(SIGINT, SIG_DFL);
    endwin();
  }
};

}  // namespace

int run_tui(Session& session, const TuiOptions& options) {
  Tui t{.session = session, .options = options, .panel = options.panel};
  t.status = kIdle;
  Screen screen;
  add_text(t, options.greeting);
  add_line(t, "Type / for the commands.");
  bool running = true;
  while (running) {
    draw(t);
    running = key(t, getch());
  }
  return 0;
}

}  // namespace qgpu::chat
