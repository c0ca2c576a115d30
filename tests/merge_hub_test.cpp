// Downloading a base from the Hugging Face hub (issue 6), against a hub on loopback: a
// thread serving a tiny checkpoint with the hub's URL layout (the model-info API with sizes
// and LFS sha256s, /resolve/ redirecting to a CDN path, Range requests). The download is
// byte-exact, resumes a dropped transfer with a Range request, honours HF_TOKEN for a gated
// repo, and rejects a file whose sha256 differs; `qgpu build --base owner/name` then merges
// the downloaded base and `qgpu check` finds its text and launches intact.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "engine/model.h"
#include "engine/tiny_model.h"
#include "loopback_hub.h"
#include "merge/hub.h"
#include "test_util.h"

namespace qgpu {
namespace {

namespace fs = std::filesystem;

using test_util::read_file;

using test_util::LoopbackHub;

engine::TinySpec sharded_spec() {
  engine::TinySpec s;
  s.max_shard_bytes = 200 << 10;
  return s;
}

TEST(Hub, Sha256) {
  test_util::TempDir tmp;
  std::ofstream(tmp / "abc") << "abc";
  EXPECT_EQ(merge::sha256_file(tmp / "abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  std::ofstream(tmp / "long") << std::string(1000, 'a');  // several blocks, padding in a block of its own
  EXPECT_EQ(merge::sha256_file(tmp / "long"), "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
}

TEST(Hub, RepoIdsAndPaths) {
  EXPECT_TRUE(merge::is_hub_id("Qwen/Qwen3.5-2B"));
  EXPECT_FALSE(merge::is_hub_id("./Qwen/Qwen3.5-2B"));
  EXPECT_FALSE(merge::is_hub_id("/models/x"));
  EXPECT_FALSE(merge::is_hub_id("a/b/c"));
  EXPECT_FALSE(merge::is_hub_id("model-dir"));
}

// The API's reply names the cache directory and the files: whatever it holds is one error or
// a listing whose names stay inside the directory (fuzz/hub_json.cpp checks the same on any
// bytes; a field of another JSON type threw nlohmann's type_error before).
TEST(Hub, AReplyThatIsNotTheHubsIsOneError) {
  auto error = [](const std::string& body) {
    try {
      const merge::HubListing l = merge::parse_listing(body, "API");
      return fmt::format("{} files, {} bytes, commit {}", l.files.size(), l.total, l.commit);
    } catch (const Error& e) {
      return std::string(e.what());
    }
  };
  const std::string config = R"({"rfilename": "config.json", "size": 5})";
  EXPECT_EQ(error(R"({"sha": "c0ffee", "siblings": [)" + config +
                  R"(, {"rfilename": "model.safetensors", "lfs": {"sha256": "ab", "size": 10}}, {"rfilename": "a/config.json"}]})"),
            "2 files, 15 bytes, commit c0ffee");
  EXPECT_EQ(error(R"({"sha": "../../etc", "siblings": [)" + config + "]}"),
            "API: the commit \"../../etc\" is not a hash: not the hub's model info");
  EXPECT_EQ(error(R"({"sha": 7, "siblings": []})"), "API: \"sha\" is 7, not a string: not the hub's model info");
  EXPECT_EQ(error(R"({"sha": "c0ffee", "siblings": [3]})"), "API: a sibling is 3, not an object: not the hub's model info");
  EXPECT_EQ(error(R"({"sha": "c0ffee", "siblings": [{"rfilename": ["config.json"]}]})"),
            "API: \"rfilename\" is [\"config.json\"], not a string: not the hub's model info");
  EXPECT_EQ(error(R"({"sha": "c0ffee", "siblings": [{"rfilename": "config.json", "size": "5"}]})"),
            "API: size \"5\" of a file is not a byte count up to 4 TB: not the hub's model info");
  EXPECT_EQ(error(R"({"sha": "c0ffee", "siblings": [{"rfilename": "config.json", "lfs": {"size": 9223372036854775807}}]})"),
            "API: size 9223372036854775807 of a file is not a byte count up to 4 TB: not the hub's model info");
  EXPECT_EQ(error(R"({"sha": "c0ffee", "siblings": [{"rfilename": "model.safetensors"}]})"),
            "API: the repo has no config.json: not a Hugging Face model checkpoint");
  EXPECT_EQ(error("[]"), "API: not the hub's model info (no \"siblings\" list); is HF_ENDPOINT a Hugging Face hub?");
}

TEST(Hub, DownloadsResumesAndChecks) {
  test_util::TempDir tmp;
  engine::write_tiny_model(tmp / "repo", sharded_spec());
  LoopbackHub hub("tiny/qwen35", tmp / "repo");
  std::vector<std::string> shards;
  for (const auto& e : fs::directory_iterator(tmp / "repo"))
    if (e.path().filename().string().starts_with("model-0")) shards.push_back(e.path().filename().string());
  ASSERT_GE(shards.size(), 2u);
  hub.drop_once = shards[0];
  int64_t last_done = -1, last_total = -1;
  merge::HubOptions o{.endpoint = hub.endpoint(), .cache_dir = tmp / "cache"};
  o.retry_wait = std::chrono::milliseconds(10);
  o.progress = [&](int64_t done, int64_t total) { last_done = done, last_total = total; };
  const std::string dir = merge::download_repo("tiny/qwen35", o);
  EXPECT_EQ(dir, tmp / "cache/tiny--qwen35/c0ffee");
  for (const auto& e : fs::directory_iterator(tmp / "repo"))
    EXPECT_EQ(read_file(dir + "/" + e.path().filename().string()), read_file(e.path().string())) << e.path();
  EXPECT_FALSE(fs::exists(dir + "/images"));
  EXPECT_EQ(last_done, last_total);
  ASSERT_EQ(hub.ranges.size(), 1u);  // the dropped transfer resumed where it stopped
  EXPECT_TRUE(hub.ranges[0].starts_with(shards[0] + " bytes=")) << hub.ranges[0];
  EXPECT_NO_THROW(engine::load_model(dir));
  // A rerun finds everything in place and transfers no file.
  hub.drop_once = shards[1];
  EXPECT_EQ(merge::download_repo("tiny/qwen35", o), dir);
  EXPECT_EQ(hub.drop_once, shards[1]);
}

TEST(Hub, GatedRepoNeedsTheToken) {
  test_util::TempDir tmp;
  engine::write_tiny_model(tmp / "repo", {});
  LoopbackHub hub("tiny/gated", tmp / "repo");
  hub.token = "hf_secret";
  merge::HubOptions o{.endpoint = hub.endpoint(), .cache_dir = tmp / "cache"};
  unsetenv("HF_TOKEN");
  try {
    merge::download_repo("tiny/gated", o);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("HF_TOKEN"), std::string::npos) << e.what();
  }
  setenv("HF_TOKEN", "hf_secret", 1);
  EXPECT_NO_THROW(merge::download_repo("tiny/gated", o));
  unsetenv("HF_TOKEN");
}

TEST(Hub, AFileWhoseSha256DiffersIsRejected) {
  test_util::TempDir tmp;
  engine::write_tiny_model(tmp / "repo", {});
  LoopbackHub hub("tiny/bad", tmp / "repo");
  hub.wrong_sha["model.safetensors"] = std::string(64, '0');
  merge::HubOptions o{.endpoint = hub.endpoint(), .cache_dir = tmp / "cache"};
  try {
    merge::download_repo("tiny/bad", o);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("sha256"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(tmp / "cache/tiny--bad/c0ffee/model.safetensors"));
  EXPECT_FALSE(fs::exists(tmp / "cache/tiny--bad/c0ffee/model.safetensors.part"));
}

// The whole path through the CLI: build from the hub, then check (text and launches).
TEST(Hub, BuildFromTheHubThenCheck) {
  test_util::TempDir tmp;
  engine::TinySpec spec = test_util::gpu_shaped_spec("LF");
  spec.dtype = engine::DType::bf16;
  engine::write_tiny_model(tmp / "repo", spec);
  LoopbackHub hub("tiny/qwen35-gpu-shaped", tmp / "repo");
  const std::string env = fmt::format("HF_ENDPOINT={} QGPU_CACHE_DIR={} ", hub.endpoint(), tmp / "cache");
  const test_util::Result b =
      test_util::qgpu_env(env, fmt::format("build --base tiny/qwen35-gpu-shaped --out {}", tmp / "merged"));
  ASSERT_EQ(b.status, 0) << b.err;
  EXPECT_NE(b.out.find("17 layers (15 GPU"), std::string::npos) << b.out;
  EXPECT_NE(b.err.find("downloading tiny/qwen35-gpu-shaped"), std::string::npos) << b.err;
#if defined(QGPU_ASAN)
  return;  // `check`'s 50 prompts on the merge: the dev run (the sanitized check_text runs in merge_build_test)
#endif
  const test_util::Result c = test_util::qgpu(fmt::format("check {} {} --tokens 4 --kernel {}/kernels/vecadd.cu --json",
                                                          tmp / "repo", tmp / "merged", QGPU_SOURCE_DIR));
  ASSERT_EQ(c.status, 0) << c.err;
  const nlohmann::json j = nlohmann::json::parse(c.out);
  EXPECT_EQ(j["dtype"], "bf16");
  EXPECT_EQ(j["prompts"], 50);
  EXPECT_LT(j["mean_kl"].get<double>(), 1e-3);
  EXPECT_GE(j["greedy_agree"].get<int>() * 10, j["greedy_compared"].get<int>() * 9);
  ASSERT_EQ(j["launches"].size(), 2u);
  for (const auto& l : j["launches"]) EXPECT_TRUE(l["equal"].get<bool>()) << l.dump();
}

}  // namespace
}  // namespace qgpu
