// A hub that misbehaves (issue 26), on loopback (loopback_hub.h): server errors, dropped
// connections, wrong lengths, more bytes than the file has, stalls. Each ends in either a
// byte-exact download (every file's sha256 the source's, no .part left, the ranged
// requests the resumes need) or one error naming the URL, what happened and what to do,
// in a bounded time: the tests retry after 10 ms and call 1 s of silence a stall.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "base/error.h"
#include "engine/tiny_model.h"
#include "loopback_hub.h"
#include "merge/hub.h"
#include "test_util.h"

namespace qgpu {
namespace {

namespace fs = std::filesystem;
using test_util::LoopbackHub;

// A sharded tiny checkpoint on a loopback hub; `shard` is the file the misbehaviours hit.
struct Served {
  test_util::TempDir tmp;
  std::string shard;
  std::unique_ptr<LoopbackHub> hub;
  int runs = 0;
  std::vector<std::string> said;  // the retries the download announced

  Served() {
    engine::TinySpec spec;
    spec.max_shard_bytes = 200 << 10;
    engine::write_tiny_model(tmp / "repo", spec);
    shard = "model-00001-of-00004.safetensors";
    EXPECT_TRUE(fs::exists(tmp / ("repo/" + shard)));
    hub = std::make_unique<LoopbackHub>("tiny/qwen35", tmp / "repo");
    hub->only = shard;
  }
  // Options with short waits, into a cache of its own for each run unless `again`.
  merge::HubOptions options(bool again = false) {
    runs += !again;
    merge::HubOptions o{.endpoint = hub->endpoint(), .cache_dir = tmp / fmt::format("cache{}", runs)};
    o.retry_wait = std::chrono::milliseconds(10);
    o.stall_timeout = std::chrono::seconds(1);
    o.say = [this](const std::string& s) {
      if (s.find("; attempt ") != std::string::npos) said.push_back(s);  // the retries
    };
    return o;
  }
  // Every file of the repo, byte for byte, and nothing partial.
  void expect_exact(const std::string& dir) {
    for (const auto& e : fs::directory_iterator(tmp / "repo")) {
      const std::string name = e.path().filename().string();
      EXPECT_EQ(merge::sha256_file(dir + "/" + name), merge::sha256_file(e.path().string())) << name;
      EXPECT_FALSE(fs::exists(dir + "/" + name + ".part")) << name;
    }
  }
  std::string cache_dir() const { return tmp / fmt::format("cache{}/tiny--qwen35/c0ffee", runs); }
};

// The error download_repo ends with ("" if none).
std::string error_of(const merge::HubOptions& o) {
  try {
    merge::download_repo("tiny/qwen35", o);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(HubFaults, ServerErrorsAndRateLimitsAreRetried) {
  Served s;
  s.hub->api_failures = 2;
  s.hub->file_failures = 2;
  s.expect_exact(merge::download_repo("tiny/qwen35", s.options()));
  EXPECT_EQ(s.hub->api_requests, 3);
  EXPECT_EQ(s.hub->file_requests, 3);
  EXPECT_TRUE(s.hub->ranges.empty());  // an error's body is not written into the file
  for (int status : {500, 502, 504, 408, 429}) {
    s.hub->fail_status = status;
    s.hub->file_failures = 1;
    s.hub->file_requests = 0;
    s.expect_exact(merge::download_repo("tiny/qwen35", s.options()));
    EXPECT_EQ(s.hub->file_requests, 2) << status;
  }
  EXPECT_TRUE(s.hub->ranges.empty());
}

TEST(HubFaults, ARefusalIsNotRetried) {
  Served s;
  s.hub->fail_status = 404;
  s.hub->file_failures = 1;
  const std::string e = error_of(s.options());
  EXPECT_EQ(e, fmt::format("{}/tiny/qwen35/resolve/c0ffee/{}: HTTP 404: no such repo, revision or file: check the id "
                           "(owner/name) and HF_ENDPOINT",
                           s.hub->endpoint(), s.shard));
  EXPECT_EQ(s.hub->file_requests, 1);
  EXPECT_FALSE(fs::exists(s.cache_dir() + "/" + s.shard + ".part"));
}

TEST(HubFaults, DroppedConnectionsResumeWhereTheyStopped) {
  Served s;
  s.hub->drops = 3;
  s.expect_exact(merge::download_repo("tiny/qwen35", s.options()));
  ASSERT_EQ(s.hub->ranges.size(), 3u);
  for (const std::string& r : s.hub->ranges) EXPECT_TRUE(r.starts_with(s.shard + " bytes=")) << r;
  ASSERT_EQ(s.said.size(), 3u);
  EXPECT_NE(s.said[0].find(s.shard + ": transfer closed with"), std::string::npos) << s.said[0];
  EXPECT_NE(s.said[0].find("; attempt 2 of 5 in 10 ms, resuming from byte "), std::string::npos) << s.said[0];
  EXPECT_NE(s.said[1].find("; attempt 3 of 5 in 20 ms, resuming from byte "), std::string::npos) << s.said[1];
  // A server that answers a Range with the whole file: the file starts again from it.
  s.hub->drops = 1;
  s.hub->ignored_ranges = 1;
  s.hub->ranges.clear();
  s.expect_exact(merge::download_repo("tiny/qwen35", s.options()));
  EXPECT_EQ(s.hub->ranges.size(), 1u);
}

TEST(HubFaults, WrongLengthsEndExactOrInOneError) {
  Served s;
  s.hub->short_lengths = 1;  // half the file as if whole: the rest by a Range
  s.expect_exact(merge::download_repo("tiny/qwen35", s.options()));
  EXPECT_EQ(s.hub->ranges.size(), 1u);
  s.hub->long_lengths = 1;  // every byte came, the connection closed early: nothing left to ask
  s.expect_exact(merge::download_repo("tiny/qwen35", s.options()));
  EXPECT_EQ(s.hub->ranges.size(), 1u);
  s.hub->extra_bytes = 1;  // more than the hub lists: refused, nothing kept
  const int64_t size = static_cast<int64_t>(fs::file_size(s.tmp / ("repo/" + s.shard)));
  const std::string e = error_of(s.options());
  EXPECT_EQ(e, fmt::format("{}/tiny/qwen35/resolve/c0ffee/{}: the server sent more than the {} bytes the hub lists "
                           "for {}; the partial download was removed. Try again later, or set HF_ENDPOINT to a mirror",
                           s.hub->endpoint(), s.shard, size, s.shard));
  EXPECT_FALSE(fs::exists(s.cache_dir() + "/" + s.shard + ".part"));
  s.expect_exact(merge::download_repo("tiny/qwen35", s.options(true)));  // the rerun: whole
}

TEST(HubFaults, StallsEndTheAttemptAndResume) {
  Served s;
  s.hub->stalls = 1;  // headers and half the file, then silence
  s.expect_exact(merge::download_repo("tiny/qwen35", s.options()));
  EXPECT_EQ(s.hub->ranges.size(), 1u);
  ASSERT_EQ(s.said.size(), 1u);
  EXPECT_NE(s.said[0].find("the server stalled (no byte for 1 s)"), std::string::npos) << s.said[0];
  s.hub->silent_stalls = 1;  // no answer at all
  s.hub->file_requests = 0;
  s.expect_exact(merge::download_repo("tiny/qwen35", s.options()));
  EXPECT_EQ(s.hub->file_requests, 2);
  EXPECT_EQ(s.hub->ranges.size(), 1u);
}

TEST(HubFaults, TheLastAttemptEndsInOneErrorAndARerunResumes) {
  Served s;
  merge::HubOptions o = s.options();
  o.attempts = 3;
  s.hub->drops = 10;
  const std::string e = error_of(o);
  const std::string url = fmt::format("{}/tiny/qwen35/resolve/c0ffee/{}", s.hub->endpoint(), s.shard);
  const std::string part = s.cache_dir() + "/" + s.shard + ".part";
  EXPECT_TRUE(e.starts_with(url + ": transfer closed with ")) << e;
  EXPECT_NE(e.find(fmt::format(" (3 attempts); the partial download is kept ({}, ", part)), std::string::npos) << e;
  EXPECT_TRUE(e.ends_with("): rerun to resume")) << e;
  ASSERT_TRUE(fs::exists(part));
  const uintmax_t kept = fs::file_size(part);
  EXPECT_GT(kept, 0u);
  s.hub->drops = 0;
  s.hub->ranges.clear();
  s.expect_exact(merge::download_repo("tiny/qwen35", s.options(true)));
  EXPECT_EQ(s.hub->ranges, std::vector<std::string>{fmt::format("{} bytes={}-", s.shard, kept)});
  // The API the same: its last attempt is one error.
  s.hub->api_failures = 10;
  o = s.options();
  o.attempts = 2;
  EXPECT_EQ(error_of(o), fmt::format("{}/api/models/tiny/qwen35/revision/main?blobs=true: HTTP 503 (2 attempts); try "
                                     "again later, or set HF_ENDPOINT to a mirror",
                                     s.hub->endpoint()));
}

}  // namespace
}  // namespace qgpu
