// The prompt-state cache (engine/state_cache.h) on tiny random checkpoints: a prefix's state
// saved and loaded gives the logits of the whole prompt read from a fresh state, bit for bit
// (every dtype, both rounding policies, with and without skip_zero_rows, the prefix read in
// other batches than the whole prompt); the key changes with everything the bits depend on;
// a damaged, truncated or foreign file is reported, removed and never used; the budget
// evicts the least recently used; `qgpu cache` lists and clears. Every file goes to a
// directory under the test's TMPDIR, removed at the end.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "base/error.h"
#include "engine/forward.h"
#include "engine/state_cache.h"
#include "engine/tiny_model.h"
#include "test_util.h"

namespace qgpu::engine {
namespace {

namespace fs = std::filesystem;
using test_util::TempDir;

// A tiny checkpoint (two layers of each kind), written once per test.
struct Checkpoint {
  TempDir dir;
  Checkpoint() { write_tiny_model(dir / "m", {.layers = "LFLF"}); }
  std::string path() const { return dir / "m"; }
};

std::vector<int32_t> some_tokens(size_t n, uint32_t seed) {
  std::vector<int32_t> t(n);
  for (size_t i = 0; i < n; ++i) t[i] = static_cast<int32_t>((i * 37 + seed * 101 + i * i * seed) % 250);
  return t;
}

// A prefix past one prefill batch (64) and not a multiple of it, and a question after it.
const std::vector<int32_t> kPrefix = some_tokens(100, 1), kQuestion = some_tokens(13, 2);

// The logits at every position of `tokens` read from state s.
std::vector<float> logits_after(Runtime& rt, State s, const std::vector<int32_t>& tokens) {
  std::vector<float> logits;
  rt.forward(s, tokens, logits, /*all_logits=*/true);
  return logits;
}

void expect_same_state(const State& want, const State& got) {
  ASSERT_EQ(want.n_past, got.n_past);
  ASSERT_EQ(want.layers.size(), got.layers.size());
  for (size_t il = 0; il < want.layers.size(); ++il) {
    const LayerState &a = want.layers[il], &b = got.layers[il];
    EXPECT_EQ(a.recurrent_plain, b.recurrent_plain) << "layer " << il;
    for (const auto& [x, y] : {std::pair(&a.conv, &b.conv), std::pair(&a.recurrent, &b.recurrent),
                               std::pair(&a.keys, &b.keys), std::pair(&a.values, &b.values)}) {
      ASSERT_EQ(x->size(), y->size()) << "layer " << il;
      EXPECT_TRUE(x->empty() || std::memcmp(x->data(), y->data(), x->size() * sizeof(float)) == 0) << "layer " << il;
    }
  }
}

TEST(StateCache, ALoadedPrefixGivesTheWholePromptsLogitsBitForBit) {
  Checkpoint ck;
  TempDir cache;
  const PromptStateDir d{.path = cache / "prompt-states"};
  std::vector<int32_t> whole = kPrefix;
  whole.insert(whole.end(), kQuestion.begin(), kQuestion.end());
  for (DType t : {DType::f32, DType::bf16, DType::f16}) {
    const Model m = load_model(ck.path(), t);
    const size_t V = static_cast<size_t>(m.config.vocab_size);
    for (Rounding r : {Rounding::llama_cpp, Rounding::transformers})
      for (bool skip : {false, true}) {
        const std::string what = fmt::format("{}, rounding {}, skip_zero_rows {}", dtype_name(t),
                                             r == Rounding::llama_cpp ? "llama" : "transformers", skip);
        const RuntimeOptions o{.threads = 2, .rounding = r, .skip_zero_rows = skip};
        Runtime rt(m, o);
        // The whole prompt in batches of 64 + 49; the prefix in 64 + 36, the question in 13.
        const std::vector<float> all = logits_after(rt, make_state(m.config), whole);
        const std::vector<float> want(all.end() - static_cast<std::ptrdiff_t>(kQuestion.size() * V), all.end());
        State prefix = make_state(m.config);
        std::vector<float> unused;
        rt.forward(prefix, kPrefix, unused);
        const std::optional<std::string> key = prompt_state_key(m, o, kPrefix);
        ASSERT_TRUE(key.has_value());
        ASSERT_TRUE(save_prompt_state(d, prefix, *key));
        PromptStateLoad l = load_prompt_state(d, m.config, *key);
        ASSERT_TRUE(l.state.has_value()) << l.problem;
        EXPECT_EQ(l.problem, "");
        expect_same_state(prefix, *l.state);
        test_util::expect_same_bits(want, logits_after(rt, *l.state, kQuestion), what + ": loaded from disk", "loaded");
        test_util::expect_same_bits(want, logits_after(rt, prefix, kQuestion), what + ": kept in memory", "kept");
      }
  }
  EXPECT_EQ(list_prompt_states(d.path).size(), 12u);  // one file per dtype, rounding and skip_zero_rows
}

TEST(StateCache, TheKeyChangesWithWhatTheBitsDependOn) {
  Checkpoint ck;
  TempDir cache;
  const PromptStateDir d{.path = cache / "prompt-states"};
  const Model m = load_model(ck.path());
  const RuntimeOptions o{.threads = 1};
  const std::string key = *prompt_state_key(m, o, kPrefix);
  EXPECT_TRUE(key.starts_with("qgpu prompt state\nprefix: 100 tokens\nbinary: ")) << key;
  EXPECT_NE(key.find("\ndtype: f32\nrounding: llama_cpp\nmatmul: fast "), std::string::npos) << key;
  EXPECT_NE(key.find("\nfile: " + ck.path() + "/model.safetensors "), std::string::npos) << key;
  EXPECT_NE(key.find("\nconfig.json: " + ck.path() + "/config.json \"{"), std::string::npos) << key;
  EXPECT_EQ(*prompt_state_key(m, o, kPrefix), key);
  EXPECT_NE(*prompt_state_key(load_model(ck.path(), DType::bf16), o, kPrefix), key);
  EXPECT_NE(*prompt_state_key(m, {.rounding = Rounding::transformers}, kPrefix), key);
  EXPECT_NE(*prompt_state_key(m, {.matmul = MatmulPath::reference}, kPrefix), key);
  EXPECT_NE(*prompt_state_key(m, {.skip_zero_rows = true}, kPrefix), key);
  std::vector<int32_t> other = kPrefix;
  other[99] ^= 1;
  EXPECT_NE(*prompt_state_key(m, o, other), key);
  Model bare;  // weights made in memory (the GPU-only model): no files say which
  bare.config = m.config;
  EXPECT_FALSE(prompt_state_key(bare, o, kPrefix).has_value());

  State s = make_state(m.config);
  std::vector<float> unused;
  Runtime(m, o).forward(s, kPrefix, unused);
  ASSERT_TRUE(save_prompt_state(d, s, key));
  // The weight file touched, then grown, and config.json edited: each a miss, not a problem.
  const fs::path weights = ck.path() + "/model.safetensors", config = ck.path() + "/config.json";
  fs::last_write_time(weights, fs::last_write_time(weights) + std::chrono::seconds(1));
  const std::string touched = *prompt_state_key(m, o, kPrefix);
  std::ofstream(weights, std::ios::app) << '\0';
  const std::string grown = *prompt_state_key(m, o, kPrefix);
  std::ofstream(config, std::ios::app) << '\n';
  const std::string edited = *prompt_state_key(m, o, kPrefix);
  for (const std::string& k : {touched, grown, edited}) {
    EXPECT_NE(k, key);
    const PromptStateLoad l = load_prompt_state(d, m.config, k);
    EXPECT_FALSE(l.state.has_value());
    EXPECT_EQ(l.problem, "");
  }
  EXPECT_NE(touched, grown);
  EXPECT_NE(grown, edited);
  EXPECT_TRUE(load_prompt_state(d, m.config, key).state.has_value());  // the old file is still its key's
}

// A saved state's file, for the damage tests.
struct SavedState {
  Checkpoint ck;
  TempDir cache;
  PromptStateDir d{.path = cache / "prompt-states"};
  Model m = load_model(ck.path());
  State s = make_state(m.config);
  std::string key;
  std::string path;
  std::string bytes;
  SavedState() {
    std::vector<float> unused;
    Runtime(m, {.threads = 1}).forward(s, kPrefix, unused);
    key = *prompt_state_key(m, {.threads = 1}, kPrefix);
    path = (fs::path(d.path) / prompt_state_file_name(key)).string();
    EXPECT_TRUE(save_prompt_state(d, s, key));
    bytes = test_util::read_file(path);
  }
  void put(const std::string& b) const { std::ofstream(path, std::ios::binary | std::ios::trunc) << b; }
  // Loads after `b` replaced the file: the problem reported (the file must be gone), then
  // saves and loads again (rebuilt).
  std::string problem_with(const std::string& b) {
    put(b);
    PromptStateLoad l = load_prompt_state(d, m.config, key);
    EXPECT_FALSE(l.state.has_value());
    EXPECT_FALSE(fs::exists(path));
    EXPECT_TRUE(save_prompt_state(d, s, key));
    PromptStateLoad again = load_prompt_state(d, m.config, key);
    EXPECT_TRUE(again.state.has_value()) << again.problem;
    return l.problem;
  }
  std::string expected(const std::string& why) const {
    return "prompt cache: " + path + " was not used: " + why + "; removed, the prompt is read again";
  }
};

TEST(StateCache, ADamagedFileIsReportedRemovedAndRebuiltNeverUsed) {
  SavedState f;
  ASSERT_GT(f.bytes.size(), 40 + f.key.size());
  ASSERT_EQ(f.bytes.size() % 8, 0u);
  std::string flipped = f.bytes;
  flipped[flipped.size() - 100] ^= 0x10;  // a value in the last layer's arrays
  EXPECT_EQ(f.problem_with(flipped), f.expected("the payload's checksum does not match (damaged)"));
  EXPECT_EQ(f.problem_with(f.bytes.substr(0, f.bytes.size() - 8)),
            f.expected(fmt::format("truncated or damaged: {} bytes where its header describes {}", f.bytes.size() - 8,
                                   f.bytes.size())));
  EXPECT_EQ(f.problem_with(f.bytes.substr(0, 20)), f.expected("truncated: 20 bytes, shorter than the header"));
  EXPECT_EQ(f.problem_with(""), f.expected("truncated: 0 bytes, shorter than the header"));
  std::string garbage = f.bytes;
  for (size_t i = 0; i < 40; ++i) garbage[i] = static_cast<char>(0xA5 ^ i);
  EXPECT_EQ(f.problem_with(garbage), f.expected("not a qgpu prompt state (no magic)"));
  std::string version = f.bytes;
  version[8] = 2;
  EXPECT_EQ(f.problem_with(version), f.expected("format version 2, this qgpu reads 1"));
  std::string sizes = f.bytes;
  sizes[23] = 0x40;  // the key's length, far past the file
  EXPECT_EQ(f.problem_with(sizes),
            f.expected(fmt::format("truncated or damaged: its header describes more than its {} bytes", f.bytes.size())));
  // Another key's file under this key's name (a hash collision, or a file copied by hand).
  std::vector<int32_t> other = kPrefix;
  other.pop_back();
  const std::string other_key = *prompt_state_key(f.m, {.threads = 1}, other);
  std::ostringstream foreign;
  write_state(foreign, f.s, other_key);
  EXPECT_EQ(f.problem_with(foreign.str()),
            f.expected("it holds the state of another key (a hash collision, or a damaged key)"));
}

TEST(StateCache, AStateOfOtherShapesIsRefused) {
  SavedState f;
  const Model other = [&] {
    write_tiny_model(f.ck.dir / "wide", {.hidden_size = 64, .layers = "LFLF", .linear_num_value_heads = 2});
    return load_model(f.ck.dir / "wide");
  }();
  const std::span<const uint8_t> b(reinterpret_cast<const uint8_t*>(f.bytes.data()), f.bytes.size());
  try {
    read_state(other.config, b, f.key);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "layer 0's conv window holds 384 values where the model has 288");
  }
  expect_same_state(f.s, read_state(f.m.config, b, f.key));
  EXPECT_EQ(read_state(f.m.config, b, f.key).layers[1].keys_blocked_n, 0);  // forward rebuilds it
}

// Saves the state under the key of another prefix (n tokens), returning the file's path.
std::string save_under_key(const SavedState& f, const PromptStateDir& d, size_t n) {
  const std::string key = *prompt_state_key(f.m, {.threads = 1}, some_tokens(n, 7));
  EXPECT_TRUE(save_prompt_state(d, f.s, key));
  return (fs::path(d.path) / prompt_state_file_name(key)).string();
}

TEST(StateCache, TheLeastRecentlyUsedFilesGoWhenPastTheBudget) {
  SavedState f;
  const uint64_t one = f.bytes.size();
  const PromptStateDir d{.path = f.cache / "budget", .max_bytes = one * 5 / 2};  // room for two
  const std::string a = save_under_key(f, d, 50), b = save_under_key(f, d, 51);
  const auto ago = [](int s) { return fs::file_time_type::clock::now() - std::chrono::seconds(s); };
  fs::last_write_time(a, ago(100));
  fs::last_write_time(b, ago(50));
  // Using a (a load touches its file) makes b the least recently used: the third file evicts it.
  const std::string key_a = *prompt_state_key(f.m, {.threads = 1}, some_tokens(50, 7));
  ASSERT_TRUE(load_prompt_state(d, f.m.config, key_a).state.has_value());
  const std::string c = save_under_key(f, d, 52);
  std::vector<std::string> left;
  for (const PromptStateEntry& e : list_prompt_states(d.path)) left.push_back(e.path);
  std::sort(left.begin(), left.end());
  std::vector<std::string> want = {a, c};
  std::sort(want.begin(), want.end());
  EXPECT_EQ(left, want);
  // A file larger than the whole budget is not written.
  EXPECT_FALSE(save_prompt_state({.path = f.cache / "small", .max_bytes = one - 1}, f.s, f.key));
  EXPECT_FALSE(fs::exists(f.cache / "small"));
}

TEST(StateCache, TheDefaultDirectoryAndBudgetComeFromTheEnvironment) {
  TempDir cache;
  const char* was = std::getenv("QGPU_CACHE_DIR");
  const std::string saved = was ? was : "";
  setenv("QGPU_CACHE_DIR", cache.path.c_str(), 1);
  setenv("QGPU_PROMPT_CACHE_MAX_MB", "3", 1);
  const std::optional<PromptStateDir> d = default_prompt_state_dir();
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->path, cache / "prompt-states");
  EXPECT_EQ(d->max_bytes, uint64_t{3} << 20);
  setenv("QGPU_PROMPT_CACHE_MAX_MB", "2GB", 1);
  try {
    default_prompt_state_dir();
    ADD_FAILURE() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "QGPU_PROMPT_CACHE_MAX_MB='2GB': expected the prompt cache's budget in megabytes, a whole number");
  }
  unsetenv("QGPU_PROMPT_CACHE_MAX_MB");
  EXPECT_EQ(default_prompt_state_dir()->max_bytes, uint64_t{2048} << 20);
  if (was) setenv("QGPU_CACHE_DIR", saved.c_str(), 1);
  else unsetenv("QGPU_CACHE_DIR");
}

TEST(StateCache, QgpuCacheListsTheFilesAndClearRemovesThem) {
  SavedState f;
  const std::string env = "QGPU_CACHE_DIR='" + f.cache.path.string() + "' ";
  const std::string dir = f.cache / "prompt-states";
  save_under_key(f, f.d, 50);
  const std::string stale = f.path + ".tmp.999999999", other = dir + "/notes.txt";  // no such process
  std::ofstream(stale) << "partial";
  std::ofstream(other) << "not ours";
  const std::string corners = f.cache / "base-corners";  // a merge's corner file (base_corners.h), listed by its checkpoint
  fs::create_directories(corners);
  std::ofstream(corners + "/00000000000000aa.corners") << "qgpuBCF1........qgpu base corners 1\nfile: /m/merged/model.safetensors 1 bytes\n";
  const test_util::Result list = test_util::qgpu_env(env, "cache");
  ASSERT_EQ(list.status, 0) << list.err;
  EXPECT_TRUE(list.out.starts_with("prompt cache: " + dir + " (2 files, ")) << list.out;
  EXPECT_NE(list.out.find(" of a 2048 MB budget)\n"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find(fs::path(f.path).filename().string() + "  "), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("    100 tokens  used "), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("     50 tokens  used "), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("  " + f.ck.path() + "\n"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("\nbase corners: " + corners + " (1 file, "), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("  00000000000000aa.corners  "), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("  /m/merged\n"), std::string::npos) << list.out;
  EXPECT_TRUE(list.out.ends_with("`qgpu cache clear` removes them.\n")) << list.out;
  const test_util::Result clear = test_util::qgpu_env(env, "cache clear");
  ASSERT_EQ(clear.status, 0) << clear.err;
  EXPECT_TRUE(clear.out.starts_with("prompt cache: removed 3 files (")) << clear.out;
  EXPECT_NE(clear.out.find(") from " + dir + "\n"), std::string::npos) << clear.out;
  EXPECT_NE(clear.out.find("\nbase corners: removed 1 file ("), std::string::npos) << clear.out;
  EXPECT_FALSE(fs::exists(corners + "/00000000000000aa.corners"));
  EXPECT_TRUE(list_prompt_states(dir).empty());
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(other));
  const test_util::Result empty = test_util::qgpu_env(env, "cache");
  EXPECT_TRUE(empty.out.starts_with("prompt cache: " + dir + " (0 files, 0.0 MB of a 2048 MB budget)\nbase corners: " +
                                    corners + " (0 files, 0.0 MB of a 8192 MB budget)\n"))
      << empty.out;
}

}  // namespace
}  // namespace qgpu::engine
