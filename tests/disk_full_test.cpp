// A full disk (issue 26), on a small tmpfs (root only: without it each test skips with
// the reason): a build whose output cannot fit is one error before any write, and one
// error when the disk fills half-way (the file system is shrunk under the writer), the
// previous output intact and nothing left beside it; write_file_atomic keeps the old file;
// a download into a cache on a small disk is one error naming the file and the disk, the
// files already downloaded kept, the partial one kept for a rerun to resume.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "base/error.h"
#include "base/mapped_file.h"
#include "engine/tiny_model.h"
#include "loopback_hub.h"
#include "merge/build.h"
#include "merge/hub.h"
#include "test_util.h"
#include "tmpfs.h"

namespace qgpu {
namespace {

namespace fs = std::filesystem;

#define REQUIRE_TMPFS(disk) \
  if (!(disk).mounted()) GTEST_SKIP() << (disk).why()

// What a directory holds, name -> bytes.
std::map<std::string, std::string> contents(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) files[e.path().filename().string()] = test_util::read_file(e.path());
  return files;
}

// The error f ends with ("" if none).
template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(DiskFull, WriteFileAtomicKeepsTheOldFile) {
  test_util::TempDir tmp;
  test_util::Tmpfs disk(tmp.path / "disk", 256 << 10);
  REQUIRE_TMPFS(disk);
  const std::string path = disk / "data.bin";
  write_file_atomic(path, [](std::ostream& o) { o << "old"; });
  const std::string e = error_of([&] { write_file_atomic(path, [](std::ostream& o) { o << std::string(1 << 20, 'x'); }); });
  EXPECT_TRUE(e.starts_with(fmt::format("cannot write '{}': No space left on device: the file system holding {} "
                                        "(0.3 MB) filled after 0.",
                                        path, (tmp.path / "disk").string())))
      << e;
  EXPECT_TRUE(e.ends_with(" MB of this file; free some space or write elsewhere")) << e;
  EXPECT_EQ(test_util::read_file(path), "old");
  EXPECT_EQ(names_in(tmp.path / "disk"), std::vector<std::string>{"data.bin"});
}

// A previous output for the builds below: a small checkpoint.
std::string previous_output(const test_util::Tmpfs& disk) {
  const std::string out = disk / "merged";
  engine::write_tiny_model(out, {.layers = "L", .n_merges = 20});
  return out;
}

engine::TinySpec gpu_shaped_base() {
  engine::TinySpec spec = test_util::gpu_shaped_spec("L");
  spec.dtype = engine::DType::bf16;
  return spec;
}

TEST(DiskFull, ABuildThatCannotFitIsOneErrorBeforeAnyWrite) {
  test_util::TempDir tmp;
  test_util::Tmpfs disk(tmp.path / "disk", 64 << 20);
  REQUIRE_TMPFS(disk);
  engine::write_tiny_model(tmp / "base", gpu_shaped_base());
  const std::string out = previous_output(disk);
  const auto before = contents(out);
  const std::string e = error_of([&] { merge::build_merged(tmp / "base", out, {}); });
  EXPECT_TRUE(e.starts_with(fmt::format("{}: the merged checkpoint needs ", tmp / "disk"))) << e;
  EXPECT_TRUE(e.ends_with(" GB are free there (the previous output is kept until the new one is complete); free "
                          "some space or pass another --out"))
      << e;
  EXPECT_EQ(contents(out), before);
  EXPECT_EQ(names_in(tmp.path / "disk"), std::vector<std::string>{"merged"});
}

TEST(DiskFull, ABuildWhoseDiskFillsHalfWayIsOneErrorAndKeepsTheOutput) {
  test_util::TempDir tmp;
  test_util::Tmpfs disk(tmp.path / "disk", uint64_t{4} << 30);  // passes the space check
  REQUIRE_TMPFS(disk);
  engine::write_tiny_model(tmp / "base", gpu_shaped_base());
  const std::string out = previous_output(disk);
  const auto before = contents(out);
  merge::BuildOptions o;
  bool shrunk = false;
  o.progress = [&](int64_t, int64_t) {  // another writer took the rest of the disk
    if (!shrunk) shrunk = disk.resize(disk.used() + (1 << 20));
  };
  const std::string e = error_of([&] { merge::build_merged(tmp / "base", out, o); });
  ASSERT_TRUE(shrunk);
  const std::string file = fmt::format("{}.tmp-{}/model.safetensors", out, getpid());
  EXPECT_TRUE(e.starts_with(fmt::format("cannot write '{}': No space left on device: the file system holding {}.tmp-{} (",
                                        file, out, getpid())))
      << e;
  EXPECT_TRUE(e.ends_with(fmt::format(" MB of this file; free some space or write elsewhere (the previous output in {} "
                                      "is kept)",
                                      out)))
      << e;
  EXPECT_EQ(contents(out), before);
  EXPECT_EQ(names_in(tmp.path / "disk"), std::vector<std::string>{"merged"});
}

// A download on a small cache disk: a sharded tiny checkpoint (four shards of 200 KB).
struct SmallCache {
  test_util::TempDir tmp;
  test_util::Tmpfs disk{tmp.path / "cache", 2 << 20};
  std::unique_ptr<test_util::LoopbackHub> hub;
  SmallCache() {
    engine::TinySpec spec;
    spec.max_shard_bytes = 200 << 10;
    engine::write_tiny_model(tmp / "repo", spec);
    hub = std::make_unique<test_util::LoopbackHub>("tiny/qwen35", tmp / "repo");
  }
  merge::HubOptions options() const {
    merge::HubOptions o{.endpoint = hub->endpoint(), .cache_dir = tmp / "cache"};
    o.retry_wait = std::chrono::milliseconds(10);
    return o;
  }
  std::string dir() const { return tmp / "cache/tiny--qwen35/c0ffee"; }
};

TEST(DiskFull, ADownloadThatCannotFitIsOneErrorBeforeAnyByte) {
  SmallCache c;
  REQUIRE_TMPFS(c.disk);
  ASSERT_TRUE(c.disk.resize(300 << 10));
  const std::string e = error_of([&] { merge::download_repo("tiny/qwen35", c.options()); });
  EXPECT_TRUE(e.starts_with(c.dir() + ": the download needs ")) << e;
  EXPECT_TRUE(e.ends_with(" KB are free on that disk; free some space, or set QGPU_CACHE_DIR to a bigger one")) << e;
  EXPECT_EQ(names_in(c.dir()), std::vector<std::string>{});
}

TEST(DiskFull, ADownloadWhoseDiskFillsKeepsWhatItGotAndResumes) {
  SmallCache c;
  REQUIRE_TMPFS(c.disk);
  merge::HubOptions o = c.options();
  bool shrunk = false;
  o.progress = [&](int64_t done, int64_t) {  // after the first file (none is 250 KB), the disk fills
    if (!shrunk && done > (250 << 10)) shrunk = c.disk.resize(c.disk.used() + (64 << 10));
  };
  const std::string e = error_of([&] { merge::download_repo("tiny/qwen35", o); });
  ASSERT_TRUE(shrunk);
  // The files downloaded before are kept; the one the disk stopped is a .part, its first bytes.
  std::vector<std::string> parts;
  for (const std::string& name : names_in(c.dir())) {
    const std::string got = test_util::read_file(c.dir() + "/" + name);
    if (!name.ends_with(".part")) {
      EXPECT_EQ(got, test_util::read_file(c.tmp / ("repo/" + name))) << name;
      continue;
    }
    parts.push_back(name.substr(0, name.size() - 5));
    EXPECT_EQ(got, test_util::read_file(c.tmp / ("repo/" + parts.back())).substr(0, got.size())) << name;
  }
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_GE(names_in(c.dir()).size(), 2u);
  const std::string url = fmt::format("{}/tiny/qwen35/resolve/c0ffee/{}", c.hub->endpoint(), parts[0]);
  EXPECT_TRUE(e.starts_with(fmt::format("{}: cannot write {}/{}.part: No space left on device after ", url, c.dir(), parts[0])))
      << e;
  EXPECT_NE(e.find(" KB (the disk holding " + c.dir() + " has "), std::string::npos) << e;
  EXPECT_TRUE(e.ends_with(" free). The partial download is kept: free some space there, or set QGPU_CACHE_DIR to a "
                          "bigger disk, and rerun to resume"))
      << e;
  // With space again, a rerun resumes the partial file and fetches the rest.
  ASSERT_TRUE(c.disk.resize(4 << 20));
  const uintmax_t kept = fs::file_size(c.dir() + "/" + parts[0] + ".part");
  const std::string dir = merge::download_repo("tiny/qwen35", c.options());
  for (const auto& f : fs::directory_iterator(c.tmp / "repo"))
    EXPECT_EQ(test_util::read_file(dir + "/" + f.path().filename().string()), test_util::read_file(f.path())) << f.path();
  EXPECT_EQ(c.hub->ranges, std::vector<std::string>{fmt::format("{} bytes={}-", parts[0], kept)});
}

}  // namespace
}  // namespace qgpu
