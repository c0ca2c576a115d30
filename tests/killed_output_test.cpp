// Outputs that survive SIGKILL (issue 26, base/output_dir.h): the real `qgpu build`,
// `compile-model` and `convert`, killed at random moments (uniform over one complete
// run's duration; the seed is printed, QGPU_KILL_SEED repeats it), leave --out either the
// previous output or the complete new one (its file list, sizes and one file's hash
// equal one of the two, and it loads), and the next complete run removes every leftover.
// Each run writes the output --out does not hold, so every kill falls in a change. Then
// the cleanup on its own: the siblings of processes that are gone are removed, those of
// live ones kept, and an output left moved aside (the two renames of before) is put back.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <thread>

#include "base/error.h"
#include "base/mapped_file.h"
#include "base/output_dir.h"
#include "engine/config.h"
#include "engine/gguf.h"
#include "engine/safetensors.h"
#include "engine/tiny_model.h"
#include "test_util.h"
#include "tmpfs.h"

namespace qgpu {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Starts `qgpu ARGS` with stdout and stderr to log; its pid.
pid_t spawn_qgpu(const std::vector<std::string>& args, const std::string& log) {
  std::vector<std::string> all = {QGPU_BINARY};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {  // only async-signal-safe calls until exec
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1), dup2(fd, 2);
    execv(argv[0], argv.data());
    _exit(127);
  }
  return pid;
}

// Runs `qgpu ARGS` to its end: the exit status and the seconds it took.
std::pair<int, double> run_qgpu(const std::vector<std::string>& args, const std::string& log) {
  const auto start = Clock::now();
  int status = 0;
  waitpid(spawn_qgpu(args, log), &status, 0);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, std::chrono::duration<double>(Clock::now() - start).count()};
}

// SIGKILL after `seconds` unless it ended before; whether it was killed.
bool kill_after(pid_t pid, double seconds) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  int status = 0;
  while (Clock::now() < deadline) {
    if (waitpid(pid, &status, WNOHANG) == pid) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  return WIFSIGNALED(status);
}

// An output as the test tells them apart: its files' sizes and one file's hash.
struct Snapshot {
  std::map<std::string, uintmax_t> sizes;
  size_t hash = 0;
  bool operator==(const Snapshot&) const = default;
};

std::ostream& operator<<(std::ostream& o, const Snapshot& s) {
  for (const auto& [name, size] : s.sizes) o << name << " " << size << "; ";
  return o << "hash " << s.hash;
}

// A directory's files (hashing `hashed`), or a file on its own; empty when out is missing.
Snapshot snapshot(const fs::path& out, const std::string& hashed) {
  Snapshot s;
  const auto hash = [](const fs::path& f) { return std::hash<std::string>{}(test_util::read_file(f)); };
  if (fs::is_regular_file(out)) return {{{out.filename().string(), fs::file_size(out)}}, hash(out)};
  if (!fs::is_directory(out)) return s;
  for (const auto& e : fs::directory_iterator(out)) s.sizes[e.path().filename().string()] = e.is_regular_file() ? e.file_size() : 0;
  if (fs::exists(out / hashed)) s.hash = hash(out / hashed);
  return s;
}

// What runs left beside out (OUT.tmp-PID, OUT.old-PID, OUT.tmp.PID).
std::vector<std::string> leftovers(const fs::path& out) {
  std::vector<std::string> found;
  for (const auto& e : fs::directory_iterator(out.parent_path())) {
    const std::string name = e.path().filename().string(), stem = out.filename().string();
    if (name.starts_with(stem + ".tmp") || name.starts_with(stem + ".old")) found.push_back(name);
  }
  std::sort(found.begin(), found.end());
  return found;
}

// One command killed at random: `run` writes output B over output A, which `previous`
// puts in place; `load` checks an output loads.
struct KillCase {
  std::vector<std::string> run;
  std::function<void()> previous;
  fs::path out;
  std::string hashed;  // the file of a directory output that tells A from B
  std::function<void(const fs::path&)> load;
};

void kill_at_random(const KillCase& c, int kills) {
  const std::string log = (c.out.parent_path() / "log").string();
  c.previous();
  const Snapshot a = snapshot(c.out, c.hashed);
  const auto [status, seconds] = run_qgpu(c.run, log);  // how long a run takes
  ASSERT_EQ(status, 0) << test_util::read_file(log);
  const Snapshot b = snapshot(c.out, c.hashed);
  ASSERT_NE(a, b) << "the two outputs must differ";
  const char* env = std::getenv("QGPU_KILL_SEED");
  const unsigned seed = env ? static_cast<unsigned>(std::stoul(env)) : std::random_device{}();
  std::cout << "[ seed ] QGPU_KILL_SEED=" << seed << "; one run " << seconds << " s\n";
  ::testing::Test::RecordProperty("seed", static_cast<int>(seed));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> when(0.0, seconds);
  int killed = 0, left = 0;
  for (int i = 0; i < kills; ++i) {
    if (snapshot(c.out, c.hashed) == b) c.previous();
    ASSERT_EQ(snapshot(c.out, c.hashed), a);
    const double t = when(rng);
    killed += kill_after(spawn_qgpu(c.run, log), t);
    const Snapshot now = snapshot(c.out, c.hashed);
    ASSERT_TRUE(now == a || now == b) << "killed at " << t << " s: " << c.out << " holds " << now
                                      << "\nnot the previous output nor the new one:\n" << a << "\n" << b;
    ASSERT_NO_THROW(c.load(c.out)) << "killed at " << t << " s";
    left += !leftovers(c.out).empty();
  }
  std::cout << "[ killed ] " << killed << " of " << kills << " runs; " << left << " left files beside the output\n";
  // The next complete run removes what the killed ones left.
  ASSERT_EQ(run_qgpu(c.run, log).first, 0) << test_util::read_file(log);
  fs::remove(log);
  EXPECT_EQ(snapshot(c.out, c.hashed), b);
  EXPECT_EQ(leftovers(c.out), std::vector<std::string>{});
}

void load_checkpoint_files(const fs::path& dir) {
  engine::load_config(dir.string());
  engine::load_safetensors_dir(dir.string());
}

// Each run draws its kill times anew (QGPU_KILL_SEED repeats one), so CI runs add up; 6
// and 3 since issue 25 (10 and 5 took 215 s of the dev run on a slow day, and the suite was
// over its 30 minutes).
constexpr int kBuildKills = 6, kCompileKills = 3;  // the dev preset only (ASan skips both)

// Where a kill test writes: a tmpfs when the test may mount one (a build writes 0.9 GB
// and fsyncs it: 3-6x slower on a disk other tests share), else the test's directory.
struct Scratch {
  test_util::TempDir tmp;
  test_util::Tmpfs disk{tmp.path / "disk", uint64_t{6} << 30};
  Scratch() {
    if (!disk.mounted()) std::cout << "[ note ] " << disk.why() << ": writing to the disk\n";
  }
  std::string operator/(const std::string& name) const { return tmp / ("disk/" + name); }
};

TEST(KilledOutput, BuildLeavesTheOldOrTheNewCheckpoint) {
#if defined(QGPU_ASAN)
  // Every kill runs `build` again (160 s under ASan for two kills); its staging is
  // StagedDir (KilledOutput.AStagedDirCleansUpAndPutsBackAnOutputMovedAside), its writes
  // the merge the MergeBuild and DiskFull tests run sanitized; the dev run kills it 6 times.
  GTEST_SKIP() << "build's kills run in the dev preset only (160 s under ASan)";
#endif
  Scratch tmp;
  engine::TinySpec spec = test_util::gpu_shaped_spec("LF");
  spec.dtype = engine::DType::bf16;
  engine::write_tiny_model(tmp / "base_a", spec);
  spec.seed = 2;
  engine::write_tiny_model(tmp / "base_b", spec);
  // A previous build: README.md names its base, the files and sizes are the new one's.
  const std::string out = tmp / "merged", log = tmp / "log_a";
  auto previous = [&] { ASSERT_EQ(run_qgpu({"build", "--base", tmp / "base_a", "--out", out}, log).first, 0); };
  kill_at_random({.run = {"build", "--base", tmp / "base_b", "--out", out},
                  .previous = previous,
                  .out = out,
                  .hashed = "README.md",
                  .load = load_checkpoint_files},
                 kBuildKills);
}

TEST(KilledOutput, CompileModelLeavesTheOldOrTheNewModel) {
#if defined(QGPU_ASAN)
  // Two sanitized runs of compile-model took 130 s in CI; its staging is StagedDir, which
  // the build kill test runs under ASan, and the dev run kills compile-model 5 times.
  GTEST_SKIP() << "compile-model's kills run in the dev preset only (130 s under ASan)";
#endif
  Scratch tmp;
  // The previous output: a small checkpoint (another compile-model run is 7 s, and its
  // output the same bytes).
  ASSERT_EQ(test_util::qgpu("tiny-model --out " + tmp / "small").status, 0);
  const std::string out = tmp / "gpu";
  auto previous = [&] {
    fs::remove_all(out);
    fs::copy(tmp / "small", out);
  };
  kill_at_random({.run = {"compile-model", "--out", out, "--dtype", "bf16"},
                  .previous = previous,
                  .out = out,
                  .hashed = "config.json",
                  .load =
                      [](const fs::path& dir) {
                        load_checkpoint_files(dir);
                        if (fs::exists(dir / "model.gguf")) engine::load_gguf((dir / "model.gguf").string());
                      }},
                 kCompileKills);
}

TEST(KilledOutput, ConvertLeavesTheOldOrTheNewFile) {
  Scratch tmp;
  // 50 MB in f32 (most of a run is the write), 25 MB in f16.
  ASSERT_EQ(test_util::qgpu("tiny-model --hidden 512 --intermediate 2048 --out " + tmp / "m").status, 0);
  const std::string out = tmp / "m.gguf", log = tmp / "log_a";
  auto previous = [&] { ASSERT_EQ(run_qgpu({"convert", tmp / "m", "--out", out, "--dtype", "f16"}, log).first, 0); };
  kill_at_random({.run = {"convert", tmp / "m", "--out", out, "--dtype", "f32"},
                  .previous = previous,
                  .out = out,
                  .load = [](const fs::path& f) { engine::load_gguf(f.string()); }},
                 5);
}

// The id of a process that has exited and been reaped.
long dead_pid() {
  const pid_t pid = fork();
  if (pid == 0) _exit(0);
  waitpid(pid, nullptr, 0);
  return pid;
}

TEST(KilledOutput, WriteFileAtomicRemovesTheTemporariesOfGoneProcesses) {
  test_util::TempDir tmp;
  const long gone = dead_pid();
  const std::string path = tmp / "chat.json";
  for (const std::string& s : std::vector<std::string>{fmt::format(".tmp.{}", gone), ".tmp.1", ".tmp.12x", ".tmp."})
    std::ofstream(path + s) << "partial";
  std::ofstream(tmp / fmt::format("chat.jsonl.tmp.{}", gone)) << "another file's";
  write_file_atomic(path, [](std::ostream& o) { o << "{}"; });
  EXPECT_EQ(test_util::read_file(path), "{}");
  EXPECT_FALSE(fs::exists(path + fmt::format(".tmp.{}", gone)));
  for (const char* s : {".tmp.1", ".tmp.12x", ".tmp."}) EXPECT_TRUE(fs::exists(path + s)) << s;  // pid 1 lives
  EXPECT_TRUE(fs::exists(tmp / fmt::format("chat.jsonl.tmp.{}", gone)));
}

TEST(KilledOutput, AStagedDirCleansUpAndPutsBackAnOutputMovedAside) {
  test_util::TempDir tmp;
  const long gone = dead_pid();
  const fs::path out = tmp / "out";
  // Killed between the two renames of before: out missing, the old one and the new one beside.
  fs::create_directories(fmt::format("{}.old-{}", out.string(), gone));
  std::ofstream(fmt::format("{}.old-{}/config.json", out.string(), gone)) << "{\"old\": true}";
  fs::create_directories(fmt::format("{}.tmp-{}", out.string(), gone));
  fs::create_directories(out.string() + ".tmp-1");  // a live process's
  {
    StagedDir s(out.string() + "/");  // a trailing slash names the same directory
    EXPECT_EQ(s.out(), out.string());
    EXPECT_EQ(test_util::read_file(out / "config.json"), "{\"old\": true}");
    EXPECT_EQ(leftovers(out), (std::vector<std::string>{"out.tmp-1", fmt::format("out.tmp-{}", getpid())}));
    std::ofstream(s.path() + "/config.json") << "{\"new\": true}";
    s.commit();
  }
  EXPECT_EQ(test_util::read_file(out / "config.json"), "{\"new\": true}");
  EXPECT_EQ(leftovers(out), std::vector<std::string>{"out.tmp-1"});
  { StagedDir failed(out.string()); }  // not committed: the output stays, its temporary goes
  EXPECT_EQ(test_util::read_file(out / "config.json"), "{\"new\": true}");
  EXPECT_EQ(leftovers(out), std::vector<std::string>{"out.tmp-1"});
  fs::remove_all(out.string() + ".tmp-1");
  // Something that is not an output is never replaced.
  fs::create_directories(tmp / "home");
  std::ofstream(tmp / "home/notes.txt") << "mine";
  EXPECT_THROW(StagedDir(tmp / "home"), Error);
  EXPECT_TRUE(fs::exists(tmp / "home/notes.txt"));
  EXPECT_THROW(StagedDir(tmp / "home/notes.txt"), Error);
  EXPECT_THROW(StagedDir("."), Error);
}

}  // namespace
}  // namespace qgpu
