// `qgpu chat`'s ncurses front end (chat/tui.cpp), driven in a detached tmux session as a
// person would: type a /run, watch the panel while the launch runs, read the result in the
// panel's memory and in the conversation, edit and recall input, stop a launch with Ctrl-C,
// quit. Every wait polls the screen with a deadline; the tmux session is always killed.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <regex>
#include <sstream>
#include <thread>

#include "test_util.h"

namespace qgpu {
namespace {

constexpr int kCols = 160, kRows = 50;
constexpr int kPanelX = 60;  // the panel's first column at 160 columns (100 wide, a rule before it)

std::string shell(const std::string& command) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  pclose(p);
  return out;
}

std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// The tmux of this test process: a server of its own (-L), so no other tmux user, and no
// other test binary, shares or stops it; its socket under the test's temporary directory
// (TMPDIR, which the ctest fixture empties even after a killed run), removed at the end.
std::string tmux_dir() { return (std::filesystem::temp_directory_path() / "tmux").string(); }
std::string tmux() { return fmt::format("TMUX_TMPDIR='{}' tmux -L qgpu-chat-test-{}", tmux_dir(), getpid()); }

struct TmuxCleanup : ::testing::Environment {
  void TearDown() override {
    shell(tmux() + " kill-server 2>/dev/null");
    std::filesystem::remove_all(tmux_dir());
  }
};
const auto* const kTmuxCleanup = ::testing::AddGlobalTestEnvironment(new TmuxCleanup);

// One `qgpu chat` in a tmux session of kCols x kRows; `echo qgpu-exit-$?` after it shows how it ended.
struct Chat {
  std::string name = fmt::format("qgpu-chat-test-{}", getpid());

  explicit Chat(const std::string& args) {
    // The shell ignores SIGINT so that Ctrl-C reaches only qgpu (which installs its own handler).
    const std::string command = fmt::format("trap \"\" INT; {} chat {}; echo qgpu-exit-$?; sleep 600", QGPU_BINARY, args);
    // The server exits when the previous test's session is killed; a client that meets it
    // exiting reports "server exited unexpectedly" (seen under ASan's load): start the
    // session again until it is there.
    std::filesystem::create_directories(tmux_dir());
    for (int attempt = 0; attempt < 10; ++attempt) {
      shell(fmt::format("{0} kill-session -t {1} 2>/dev/null; {0} new-session -d -x {2} -y {3} -s {1} {4} 2>/dev/null",
                        tmux(), name, kCols, kRows, quoted(command)));
      if (shell(fmt::format("{} has-session -t {} 2>/dev/null && echo yes", tmux(), name)) == "yes\n") return;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    ADD_FAILURE() << "could not start the tmux session " << name;
  }
  ~Chat() { shell(fmt::format("{} kill-session -t {} 2>/dev/null", tmux(), name)); }
  Chat(const Chat&) = delete;
  Chat& operator=(const Chat&) = delete;

  std::string screen() const { return shell(fmt::format("{} capture-pane -p -t {}", tmux(), name)); }
  void type(const std::string& text) const { shell(fmt::format("{} send-keys -t {} -l {}", tmux(), name, quoted(text))); }
  void keys(const std::string& names) const { shell(fmt::format("{} send-keys -t {} {}", tmux(), name, names)); }

  // Polls the screen until `done` holds; the last screen, or "" after the deadline.
  std::string wait(const std::function<bool(const std::string&)>& done, double seconds) const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    std::string s;
    while (std::chrono::steady_clock::now() < deadline) {
      s = screen();
      if (done(s)) return s;
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
    }
    ADD_FAILURE() << "timed out; the screen:\n" << s;
    return "";
  }
  std::string wait_for(const std::string& text, double seconds) const {
    return wait([&](const std::string& s) { return s.find(text) != std::string::npos; }, seconds);
  }
};

std::vector<std::string> lines_of(const std::string& screen) {
  std::vector<std::string> out;
  std::istringstream in(screen);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// The panel's columns of the screen, and the conversation's.
std::string panel_of(const std::string& screen) {
  std::string out;
  for (const std::string& l : lines_of(screen)) out += (l.size() > kPanelX ? l.substr(kPanelX) : "") + "\n";
  return out;
}
std::string convo_of(const std::string& screen) {
  std::string out;
  for (const std::string& l : lines_of(screen)) out += l.substr(0, std::min<size_t>(l.size(), kPanelX - 1)) + "\n";
  return out;
}

std::string without_spaces(std::string s) {
  std::erase_if(s, [](char c) { return c == ' ' || c == '\n'; });
  return s;
}

int occurrences(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// The memory rows of the panel ("  16:   70   80 ..."): word -> value, `*` marks dropped.
std::map<int, int64_t> panel_memory(const std::string& panel) {
  std::map<int, int64_t> words;
  const std::regex row(R"(^\s*(\d+):((\s+\S+)+)\s*$)");
  for (const std::string& l : lines_of(panel)) {
    std::smatch m;
    if (!std::regex_match(l, m, row)) continue;
    int at = std::stoi(m[1]);
    std::istringstream cells(m[2]);
    for (std::string c; cells >> c; ++at) {
      if (c.back() == '*') c.pop_back();
      if (c != ".") words[at] = std::stoll(c);
    }
  }
  return words;
}

const char* kVecadd = " --grid 3 --block 4 --arg a=[1,2,3,4,5,6,7,8,9,10] --arg b=[10,20,30,40,50,60,70,80,90,100]"
                      " --arg c=[0,0,0,0,0,0,0,0,0,0] --arg n=10";

class ChatTui : public ::testing::Test {
 protected:
  void SetUp() override {
    if (shell("command -v tmux").empty()) GTEST_SKIP() << "tmux is not installed";
  }
};

TEST_F(ChatTui, RunsAKernelWithTheLivePanel) {
  Chat chat("--slow 20");
  chat.wait_for("Type / for the commands.", 60);
  EXPECT_NE(chat.screen().find("machine panel: no launch yet"), std::string::npos);
  chat.type(fmt::format("/run {}/kernels/vecadd.cu{}", QGPU_SOURCE_DIR, kVecadd));
  chat.keys("Enter");
  // While it runs: records counted, the current block marked in the ROM, a warp running.
  const std::regex running(R"(records ([1-9]\d*) .* running)");
  std::string s = chat.wait([&](const std::string& sc) {
    std::smatch m;
    const std::string p = panel_of(sc);
    return std::regex_search(p, m, running) && p.find("\n > b") != std::string::npos;
  }, 60);
  const std::string live = panel_of(s);
  EXPECT_NE(live.find("qgpu vecadd  grid 3x1 block 4x1"), std::string::npos) << live;
  EXPECT_NE(live.find("-- program ROM (10 blocks)"), std::string::npos) << live;
  EXPECT_NE(live.find(" step: warp "), std::string::npos) << live;
  EXPECT_NE(live.find("-- pipeline: the pass that consumed record #"), std::string::npos) << live;
  EXPECT_NE(live.find("  lane    p0-3"), std::string::npos) << live;  // the registers written so far (24 pass the width)
  EXPECT_NE(convo_of(s).find("launch: kernel vecadd"), std::string::npos) << s;
  // Finished: memory holds a, b and c = a + b as the model wrote them. /run's output lines
  // come in a later frame than the panel's last, so wait for them too (after their first:
  // the typed command also holds "c=[").
  s = chat.wait([](const std::string& sc) {
    const std::string convo = without_spaces(convo_of(sc));
    const size_t done = convo.find("launchvecadd(");
    return panel_of(sc).find(" finished\n") != std::string::npos && done != std::string::npos &&
           convo.find("c=[", done) != std::string::npos;
  }, 120);
  std::map<int, int64_t> mem = panel_memory(panel_of(s));
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(mem[i], i + 1) << panel_of(s);
    EXPECT_EQ(mem[10 + i], 10 * (i + 1));
    EXPECT_EQ(mem[20 + i], 11 * (i + 1));
  }
  EXPECT_EQ(occurrences(without_spaces(convo_of(s)), "c=[11,22,33,44,55,66,77,88,99,110]"), 1) << s;  // once
  EXPECT_EQ(occurrences(without_spaces(convo_of(s)), "recordsgeneratedbythemodel"), 1) << s;
  EXPECT_NE(panel_of(s).find("  lane    p0-3  r0  r1  r2"), std::string::npos) << panel_of(s);
  chat.type("/quit");
  chat.keys("Enter");
  chat.wait_for("qgpu-exit-0", 20);
}

// The input line as the screen's last line of text.
std::string input_line(const std::string& screen) {
  std::vector<std::string> ls = lines_of(screen);
  while (!ls.empty() && ls.back().find_first_not_of(' ') == std::string::npos) ls.pop_back();
  return ls.empty() ? "" : ls.back();
}

// The waits are long (a passing run returns as soon as the screen shows the line): under a
// loaded machine's tmux, 5 s was not always enough.
TEST_F(ChatTui, EditsRecallsStopsAndQuits) {
  Chat chat("--slow 200");
  chat.wait_for("Type / for the commands.", 60);
  chat.type("xyz/hepl");
  chat.keys("BSpace BSpace");
  chat.type("lp");
  chat.keys("Home DC DC DC C-d C-e");  // the first Ctrl-D edits nothing: the line is not empty
  chat.wait([](const std::string& s) { return input_line(s) == "> /help"; }, 20);
  chat.keys("Enter");
  chat.wait_for("/quit", 10);
  chat.keys("Up");
  chat.wait([](const std::string& s) { return input_line(s) == "> /help"; }, 20);
  chat.keys("C-u");
  chat.type("abcd");
  chat.keys("Left Left C-k");
  chat.wait([](const std::string& s) { return input_line(s) == "> ab"; }, 20);
  chat.keys("C-a C-k");
  // Ctrl-C stops a running launch; the conversation says so and the chat goes on.
  chat.type(fmt::format("/run {}/kernels/vecadd.cu{}", QGPU_SOURCE_DIR, kVecadd));
  chat.keys("Enter");
  chat.wait_for("launch running:", 60);
  chat.keys("C-c");
  const std::string s = chat.wait_for("stopped", 20);
  EXPECT_NE(s.find("interrupted"), std::string::npos) << s;
  // Ctrl-C at the empty prompt quits.
  chat.wait([](const std::string& sc) { return input_line(sc) == ">"; }, 10);
  chat.keys("C-c");
  chat.wait_for("qgpu-exit-0", 20);
}

// A question answered through a tool call (the scripted language side; the launch runs on the
// model): the reply streams into the conversation, the panel shows the tool's kernel, and the
// conversation shows what the GPU returned and the answer that quotes it.
TEST_F(ChatTui, AnswersAQuestionThroughAToolCall) {
  test_util::TempFile script(R"({"rules": [{"when": "<tool_response>", "reply": "The dot product is {{result}}."},
    {"when": "dot product", "reply": "<tool_call>\n<function=dot>\n<parameter=a>\n[1, 2, 3]\n</parameter>\n<parameter=b>\n[4, 5, 6]\n</parameter>\n</function>\n</tool_call>"}]})");
  Chat chat("--script " + script.path.string());
  chat.wait_for("Type / for the commands.", 60);
  chat.type("What is the dot product of [1,2,3] and [4,5,6]?");
  chat.keys("Enter");
  const std::string s = chat.wait_for("The dot product is 32.", 60);
  EXPECT_NE(panel_of(s).find("qgpu dot "), std::string::npos) << s;
  EXPECT_NE(panel_of(s).find(" finished\n"), std::string::npos) << s;
  // The result once: not again as the array the tool reads it from (dot's out = [32]).
  EXPECT_EQ(occurrences(without_spaces(convo_of(s)), "result:{\"result\":32}"), 1) << s;
  EXPECT_EQ(occurrences(without_spaces(convo_of(s)), "[32]"), 0) << s;
  chat.type("/quit");
  chat.keys("Enter");
  chat.wait_for("qgpu-exit-0", 20);
}

}  // namespace
}  // namespace qgpu
