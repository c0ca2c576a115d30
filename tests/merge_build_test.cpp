// `qgpu build` (issue 6): the compiled GPU merged into tiny Qwen3.5 bases with the GPU's
// head shapes (hidden 64, so the residual is widened 123x: a harder case for the norms than
// Qwen3.5-2B's 4.8x). The merged checkpoint keeps the base's text (f32: KL at the rounding
// floor, every greedy token; bf16: small) and runs launches exactly (memory read out of its
// state equals the interpreter's); its tokenizer knows the GPU's tokens; a failed build
// leaves the previous output; a base the GPU cannot join is one error naming the key; the
// build's progress counts the bytes its files take on disk (blocks of zeros are holes).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "chat/session.h"
#include "compiler/compile.h"
#include "engine/forward.h"
#include "engine/model.h"
#include "engine/safetensors.h"
#include "engine/tiny_model.h"
#include "engine/tokenizer.h"
#include "gpu/interp.h"
#include "gpu/vocab.h"
#include "host/gpu_model.h"
#include "host/launch.h"
#include "lift/machine_model.h"
#include "merge/build.h"
#include "merge/check.h"
#include "test_util.h"

namespace qgpu {
namespace {

namespace fs = std::filesystem;

// vecadd launched on the merged model: records and memory equal the interpreter's.
void expect_launches(const engine::Model& m) {
  CompiledKernel k = test_util::vecadd_kernel();
  Trace want = run(k.program, k.program.launch, {});
  host::ModelRun got = host::generate_launch(m, {.threads = 1, .skip_zero_rows = true},
                                             encode_image(k.program, k.program.launch), 10000);
  EXPECT_EQ(got.trace.records, want.records);
  EXPECT_EQ(got.trace.final.mem, want.final.mem);
  EXPECT_EQ(got.trace.final.mem_written, want.final.mem_written);
}

// A launch inside the merged checkpoint with the base's layers and head rows skipped
// (RuntimeOptions::gpu_sequence, as every launch runs) against the full forward, under
// `rounding`: every logit of every token (the prompt as one batch, then record by record),
// and the state after, bit for bit: the GPU's layers equal, the base's DeltaNet conv and
// recurrent state the zeros it starts with, the base's attention caches empty where the
// full forward filled them with zeros. A text token in such a sequence is an error.
void expect_skip_exact(const engine::Model& m, engine::Rounding rounding) {
  const std::string what = fmt::format("{} {}", engine::dtype_name(m.dtype),
                                       rounding == engine::Rounding::transformers ? "transformers" : "llama.cpp");
  CompiledKernel k = test_util::vecadd_kernel();
  const int32_t at = m.config.qgpu->token_offset;
  std::vector<int32_t> prompt, records;
  for (const Rec& r : encode_image(k.program, k.program.launch)) prompt.push_back(at + token_id(r));
  for (const Rec& r : run(k.program, k.program.launch, {}).records) records.push_back(at + token_id(r));
  engine::Runtime skip(m, {.threads = 1, .rounding = rounding, .skip_zero_rows = true, .gpu_sequence = true});
  engine::Runtime full(m, {.threads = 1, .rounding = rounding, .skip_zero_rows = true});
  engine::State s1 = engine::make_state(m.config), s2 = engine::make_state(m.config);
  std::vector<float> a, b;
  skip.forward(s1, prompt, a, true);
  full.forward(s2, prompt, b, true);
  test_util::expect_same_bits(b, a, what + ": the prompt's logits", "skipping the base");
  for (size_t i = 0; i + 1 < records.size(); ++i) {
    skip.forward(s1, std::span(&records[i], 1), a);
    full.forward(s2, std::span(&records[i], 1), b);
    test_util::expect_same_bits(b, a, fmt::format("{}: logits after record {}", what, i), "skipping the base");
  }
  const int gpu_layers = m.config.qgpu->layers;
  for (int il = 0; il < m.config.num_hidden_layers; ++il) {
    const engine::LayerState &x = s1.layers[il], &y = s2.layers[il];
    const std::string layer = fmt::format("{}: layer {} ", what, il);
    test_util::expect_same_bits(y.conv, x.conv, layer + "conv window", "skipping");
    test_util::expect_same_bits(y.recurrent, x.recurrent, layer + "recurrent state", "skipping");
    if (il < gpu_layers) {
      test_util::expect_same_bits(y.keys, x.keys, layer + "keys", "skipping");
      test_util::expect_same_bits(y.values, x.values, layer + "values", "skipping");
    } else if (!m.config.is_linear(il)) {
      EXPECT_TRUE(x.keys.empty() && x.values.empty()) << layer;
      EXPECT_FALSE(y.keys.empty()) << layer;
      for (float v : y.keys) ASSERT_EQ(v, 0.0f) << layer << "keys";
      for (float v : y.values) ASSERT_EQ(v, 0.0f) << layer << "values";
    }
  }
  const int32_t text = 5;
  EXPECT_THROW(skip.forward(s1, std::span(&text, 1), a), Error) << what;
}

// Every logit of ids on the merge at dir, loaded afresh (its base corners made again).
std::vector<float> fresh_text_logits(const fs::path& dir, const std::vector<int32_t>& ids) {
  const engine::Model m = host::load_checkpoint(dir);
  engine::Runtime rt(m, {.threads = 1, .skip_zero_rows = true});
  engine::State s = engine::make_state(m.config);
  std::vector<float> logits;
  rt.forward(s, ids, logits, true);
  return logits;
}

// The .corners files under dir/base-corners.
std::vector<fs::path> corner_files(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir / "base-corners", ec))
    if (e.path().extension() == ".corners") out.push_back(e.path());
  return out;
}

// The base's used corners from a corner file of the cache (what a 2B merge maps instead of
// copying 3 GB at each start): the same logits as copied into memory, on the run that
// writes the file and on the one that maps it; a damaged or truncated file is reported,
// replaced and not used; a rewritten checkpoint gets a file of its own.
void expect_corner_file(const fs::path& merged, const fs::path& cache, const std::vector<int32_t>& ids) {
  const char* was = std::getenv("QGPU_CACHE_DIR");
  const std::string cache_was = was ? was : "";
  setenv("QGPU_BASE_CORNERS_MIN_MB", "1000000", 1);  // copied into memory
  const std::vector<float> want = fresh_text_logits(merged, ids);
  setenv("QGPU_CACHE_DIR", cache.c_str(), 1);
  setenv("QGPU_BASE_CORNERS_MIN_MB", "0", 1);
  auto expect_same = [&](const std::string& what, const char* notice) {
    testing::internal::CaptureStderr();
    const std::vector<float> got = fresh_text_logits(merged, ids);
    const std::string err = testing::internal::GetCapturedStderr();
    ASSERT_EQ(got.size(), want.size()) << what;
    EXPECT_EQ(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)), 0) << what;
    EXPECT_NE(err.find(notice), std::string::npos) << what << ": " << err;
  };
  expect_same("the run that writes the file", "written to");
  ASSERT_EQ(corner_files(cache).size(), 1u);
  const fs::path file = corner_files(cache)[0];
  expect_same("the run that maps it", "");
  // The first corner's first row: a byte flipped where the check samples.
  uint64_t text = 0;
  std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(8), f.read(reinterpret_cast<char*>(&text), 8);
  const std::streamoff first_row = static_cast<std::streamoff>((16 + text + 4095) / 4096 * 4096);
  char byte = 0;
  f.seekg(first_row), f.read(&byte, 1), byte ^= 0x40, f.seekp(first_row), f.write(&byte, 1), f.close();
  expect_same("a damaged file", "differs from the checkpoint's (damaged)");
  fs::resize_file(file, fs::file_size(file) / 2);
  expect_same("a truncated file", "bytes where this checkpoint's corners are");
  ASSERT_EQ(corner_files(cache).size(), 1u);
  fs::path shard;
  for (const fs::directory_entry& e : fs::directory_iterator(merged))
    if (e.path().extension() == ".safetensors") shard = e.path();
  fs::last_write_time(shard, fs::last_write_time(shard) + std::chrono::seconds(2));
  expect_same("a rewritten checkpoint", "written to");
  EXPECT_EQ(corner_files(cache).size(), 2u);
  unsetenv("QGPU_BASE_CORNERS_MIN_MB");
  if (was) setenv("QGPU_CACHE_DIR", cache_was.c_str(), 1);
  else unsetenv("QGPU_CACHE_DIR");
}

// Text on a merged checkpoint as the engine runs it (skip_zero_rows: the structure declared
// from config.json, the base's weights from their dense copies) against the full product of
// every weight in the file: every logit of `ids`, bit for bit.
void expect_text_as_full_product(const engine::Model& merged, const std::vector<int32_t>& ids, const std::string& what) {
  std::vector<float> skipped, full;
  engine::State s1 = engine::make_state(merged.config), s2 = engine::make_state(merged.config);
  engine::Runtime(merged, {.threads = 1, .skip_zero_rows = true}).forward(s1, ids, skipped, true);
  engine::Runtime(merged, {.threads = 1}).forward(s2, ids, full, true);
  test_util::expect_same_bits(full, skipped, what, "skipping");
}

// The chat on a merged checkpoint (issue 7): a tool call launches on the merged weights
// (the scripted language side), and the checkpoint's own generation answers a turn (random
// weights: any text, but never a GPU token and never past <|im_end|>); `qgpu ask` the same
// (the last two in the dev preset).
void expect_chat(const std::string& dir, const engine::Model& m) {
  test_util::TempFile script(R"({"rules": [{"when": "<tool_response>", "reply": "It is {{result}}."},
    {"reply": "<tool_call>\n<function=dot>\n<parameter=a>\n[1, 2, 3]\n</parameter>\n<parameter=b>\n[4, 5, 6]\n</parameter>\n</function>\n</tool_call>"}]})");
  auto scripted = chat::scripted_generator(script.path.string());
  chat::Session s(m, scripted.get(), {});
  chat::TurnResult t = s.turn("What is the dot product of [1,2,3] and [4,5,6]?", {});
  ASSERT_EQ(t.launches.size(), 1u);
  EXPECT_EQ(t.launches[0].error, "");
  EXPECT_EQ(t.launches[0].result.at("result"), 32);
  EXPECT_EQ(t.answer, "It is 32.");
#if defined(QGPU_ASAN)
  // The system prompt is about 6,000 tokens on the tiny base's 512-token vocabulary: its
  // attention is minutes under ASan. The sanitized engine generates text in engine_test.
  return;
#endif
  const engine::Tokenizer tok = engine::load_tokenizer(dir + "/tokenizer.json");
  auto own = chat::engine_generator(m, tok, {.max_tokens = 6, .threads = 1});
  chat::Session real(m, own.get(), {});
  chat::TurnResult r = real.turn("What is 2 + 2?", {});
  EXPECT_EQ(r.rounds, 1);
  EXPECT_EQ(r.answer.find("<|gpu:"), std::string::npos) << r.answer;
  test_util::TempDir cache;  // the prompt cache's files: none at first
  const std::string env = "QGPU_CACHE_DIR='" + cache.path.string() + "' ";
  const std::string args = "ask " + dir + " 'What is 2 + 2?' --max-tokens 6 --threads 1 --json";
  test_util::Result ask = test_util::qgpu_env(env, args);
  ASSERT_EQ(ask.status, 0) << ask.err;
  EXPECT_EQ(nlohmann::json::parse(ask.out)["rounds"], 1) << ask.out;
  // The system prompt's reading shows on stderr (stdout is the JSON alone); not a terminal:
  // a line at the first chunk, about each quarter and at the end.
  std::vector<std::string> lines;
  std::istringstream err(ask.err);
  for (std::string l; std::getline(err, l);)
    if (l.find("the prompt") != std::string::npos) lines.push_back(l);
  ASSERT_GE(lines.size(), 4u) << ask.err;
  EXPECT_LE(lines.size(), 6u) << ask.err;
  const std::string first = "[qgpu] reading the prompt: 256/";
  ASSERT_TRUE(lines[0].starts_with(first)) << lines[0];
  const std::string total = lines[0].substr(first.size(), lines[0].find(' ', first.size()) - first.size());
  for (size_t i = 1; i + 1 < lines.size(); ++i)
    EXPECT_TRUE(lines[i].starts_with("[qgpu] reading the prompt: ") && lines[i].ends_with("/" + total + " tokens")) << lines[i];
  EXPECT_TRUE(lines.back().starts_with("[qgpu] read the prompt: " + total + " tokens in ")) << lines.back();
  // The next process starts after the system prompt's state, which the first wrote into the
  // prompt cache, says so on stderr (the question after it is too short to show), and
  // answers the same.
  test_util::Result again = test_util::qgpu_env(env, args);
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(nlohmann::json::parse(again.out)["answer"], nlohmann::json::parse(ask.out)["answer"]);
  EXPECT_TRUE(again.err.starts_with("[qgpu] the system prompt's state from the prompt cache (") &&
              again.err.ends_with(" tokens)\n") && std::count(again.err.begin(), again.err.end(), '\n') == 1)
      << again.err;
}

// The loaded merged checkpoint's GPU comes from the construction (host::load_checkpoint):
// its layers are sparse, and it computes the bits the file's dense weights compute (every
// logit of a launch, and the records), with the file's GPU weights never scanned.
void expect_gpu_from_construction(const std::string& dir, const engine::Model& merged) {
  const int gpu_layers = merged.config.qgpu->layers;
  for (int il = 0; il < merged.config.num_hidden_layers; ++il)
    EXPECT_EQ(merged.layers[il].gate_proj.is_sparse(), il < gpu_layers) << "layer " << il;
  ASSERT_NE(merged.head_gpu_rows, nullptr);
  const engine::Model file = engine::load_model(dir, merged.dtype);
  CompiledKernel k = test_util::vecadd_kernel();
  std::vector<int32_t> ids;
  for (const Rec& r : encode_image(k.program, k.program.launch)) ids.push_back(merged.config.qgpu->token_offset + token_id(r));
  for (const Rec& r : run(k.program, k.program.launch, {}).records) ids.push_back(merged.config.qgpu->token_offset + token_id(r));
  std::vector<float> a, b;
  engine::State s1 = engine::make_state(merged.config), s2 = engine::make_state(merged.config);
  engine::Runtime(file, {.threads = 1, .skip_zero_rows = true}).forward(s1, ids, a, true);
  engine::Runtime(merged, {.threads = 1, .skip_zero_rows = true}).forward(s2, ids, b, true);
  test_util::expect_same_bits(a, b, "a launch's logits: the file's GPU against the construction's", "construction");
}

// Sets element `index` of tensor `name` (bf16) in a safetensors directory's file, in place.
void poke_bf16(const fs::path& dir, const std::string& name, int64_t index, float value) {
  std::string file = "model.safetensors";
  if (fs::exists(dir / "model.safetensors.index.json"))
    file = nlohmann::json::parse(std::ifstream(dir / "model.safetensors.index.json"))["weight_map"][name];
  std::fstream f(dir / file, std::ios::in | std::ios::out | std::ios::binary);
  uint64_t n = 0;
  f.read(reinterpret_cast<char*>(&n), 8);
  std::string header(n, '\0');
  f.read(header.data(), static_cast<std::streamsize>(n));
  const nlohmann::json h = nlohmann::json::parse(header)[name];
  ASSERT_EQ(h["dtype"], "BF16");
  const uint16_t bits = engine::f32_to_bf16(value);
  f.seekp(static_cast<std::streamoff>(8 + n + h["data_offsets"][0].get<uint64_t>() + 2 * index));
  f.write(reinterpret_cast<const char*>(&bits), 2);
}

// The bytes the safetensors files in dir take on disk when every 4 KiB block of zeros is a
// hole (as the writer leaves it): their blocks with a nonzero byte, 4 KiB each.
int64_t nonzero_block_bytes(const fs::path& dir) {
  int64_t bytes = 0;
  std::vector<char> buffer(size_t{1} << 20);  // 256 blocks a read (the files' sizes are not multiples)
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".safetensors") continue;
    std::ifstream in(e.path(), std::ios::binary);
    for (int64_t n; in.read(buffer.data(), std::ssize(buffer)), (n = in.gcount()) > 0;)
      for (int64_t at = 0; at < n; at += 4096) {
        const int64_t len = std::min<int64_t>(4096, n - at);
        const char* p = buffer.data() + at;  // memcmp with itself shifted: all zero when p[0] is
        bytes += p[0] != 0 || std::memcmp(p, p + 1, static_cast<size_t>(len - 1)) != 0 ? 4096 : 0;
      }
  }
  return bytes;
}

// The progress a build reported: the bytes on disk, done rising to a total it reaches only
// at the end (equal to the blocks the files hold); the first total, an estimate, near it.
void expect_progress_on_disk(const std::vector<std::pair<int64_t, int64_t>>& calls, const merge::BuildReport& r,
                             const fs::path& out) {
  ASSERT_FALSE(calls.empty());
  for (size_t i = 0; i < calls.size(); ++i) {
    if (i + 1 < calls.size()) {
      ASSERT_LT(calls[i].first, calls[i].second) << i << ": the bar is full before the end";
    }
    if (i > 0) {
      ASSERT_GE(calls[i].first, calls[i - 1].first) << i;
    }
  }
  EXPECT_EQ(calls.back().first, calls.back().second);
  EXPECT_EQ(calls.back().first, r.disk_bytes);
  EXPECT_EQ(r.disk_bytes, nonzero_block_bytes(out));
  EXPECT_LT(r.disk_bytes, r.bytes / 2) << "the merge's zeros are holes";
  EXPECT_NEAR(static_cast<double>(calls.front().second), static_cast<double>(r.disk_bytes), 0.02 * r.disk_bytes);
  ::testing::Test::RecordProperty("disk_bytes", fmt::format("{} of {}, first estimate {}", r.disk_bytes, r.bytes, calls.front().second));
}

const std::vector<std::string> kPrompts = {"The capital of France is", "def add(a, b):\n    return",
                                           "1, 2, 3, 4,", "Le chat est", "Once upon a time"};

TEST(MergeBuild, F32KeepsTheBaseTextAndRunsLaunches) {
#if defined(QGPU_ASAN)
  // The merge's code is the bf16 test's (sharded, untied and multimodal, which runs
  // sanitized) with another element type; 109 s under ASan.
  GTEST_SKIP() << "runs in the dev preset (MergeBuild.Bf16FromAShardedUntiedMultimodalBase runs the merge sanitized)";
#endif
  test_util::TempDir tmp;
  engine::TinySpec spec = test_util::gpu_shaped_spec("LF");  // tied, text layout
  engine::write_tiny_model(tmp / "base", spec);
  merge::BuildReport r = merge::build_merged(tmp / "base", tmp / "merged", {.dtype = engine::DType::f32});
  EXPECT_EQ(r.plan.merged.num_hidden_layers, 17);
  EXPECT_EQ(r.plan.merged.hidden_size, 64 + lift::machine_config().hidden_size);
  EXPECT_FALSE(r.multimodal);

  // config.json: the text model, layer_types as long as the layers, where the GPU sits.
  nlohmann::json c = nlohmann::json::parse(std::ifstream(tmp / "merged/config.json"));
  EXPECT_EQ(c["model_type"], "qwen3_5_text");
  EXPECT_EQ(c["layer_types"].size(), 17u);
  EXPECT_EQ(c["layer_types"][r.plan.gpu_layers + 1], "full_attention");  // the base's second layer
  EXPECT_EQ(c["tie_word_embeddings"], true);  // as the base: one matrix is the embedding and the head
  EXPECT_EQ(engine::load_safetensors_dir(tmp / "merged").find("lm_head.weight"), nullptr);
  EXPECT_EQ(c["qgpu"]["token_offset"], r.plan.base_vocab);
  EXPECT_EQ(c["qgpu"]["hidden_offset"], 64);
  for (const char* f : {"README.md", "generation_config.json", "tokenizer.json"}) EXPECT_TRUE(fs::exists(tmp / (std::string("merged/") + f))) << f;
  EXPECT_FALSE(fs::exists(tmp / ("merged.tmp-" + std::to_string(getpid()))));

  // The tokenizer: the base's text the same ids, every GPU token one special token.
  const engine::Tokenizer base_tok = engine::load_tokenizer(tmp / "base/tokenizer.json");
  const engine::Tokenizer tok = engine::load_tokenizer(tmp / "merged/tokenizer.json");
  EXPECT_EQ(tok.encode(kPrompts[1]), base_tok.encode(kPrompts[1]));
  for (int t : {0, 1, vocab_size() - 1})
    EXPECT_EQ(tok.encode(merge::gpu_token_text(t)), std::vector<int32_t>{r.plan.base_vocab + t}) << t;
  EXPECT_EQ(r.gpu_tokens, vocab_size());

  const engine::Model base = engine::load_model(tmp / "base");
  const engine::Model merged = host::load_checkpoint(tmp / "merged");  // the file's GPU: the bf16 test
  const merge::TextCheck t = merge::check_text(base, merged, base_tok, kPrompts, 8, {.threads = 1, .skip_zero_rows = true});
  EXPECT_LT(t.max_kl, 1e-9) << "largest KL(base || merged), f32";
  EXPECT_EQ(t.agree, t.compared);
  EXPECT_EQ(t.compared, 8 * std::ssize(kPrompts));
  RecordProperty("max_kl", fmt::format("{:.3g}", t.max_kl));
  expect_launches(merged);
  expect_skip_exact(merged, engine::Rounding::llama_cpp);
#if !defined(QGPU_ASAN)  // the conversion reads 1.7 GB of the f32 file; dev runs the same code
  {
    // In f16 (the f32 file converted at load: the base's weights, the embedding and the
    // head; the GPU from the construction in f16).
    const engine::Model f16 = host::load_checkpoint(tmp / "merged", engine::DType::f16);
    EXPECT_EQ(f16.dtype, engine::DType::f16);
    EXPECT_EQ(f16.lm_head.w.dtype, engine::DType::f16);
    expect_skip_exact(f16, engine::Rounding::llama_cpp);
  }
#endif

  // The engine skips the base's +0 columns and the GPU's rows from config.json's placement
  // (no scan of the base's weights): at text positions the same bits as the full product.
  expect_text_as_full_product(merged, base_tok.encode(kPrompts[0]), "merged logits at text positions");
  expect_corner_file(tmp / "merged", tmp / "cache", base_tok.encode(kPrompts[0]));
}

TEST(MergeBuild, Bf16FromAShardedUntiedMultimodalBase) {
  test_util::TempDir tmp;
  engine::TinySpec spec = test_util::gpu_shaped_spec("FL");
  spec.tie_word_embeddings = false;
  spec.multimodal_wrapper = true;
  spec.dtype = engine::DType::bf16;
  spec.max_shard_bytes = 1 << 20;
  engine::write_tiny_model(tmp / "base", spec);
  ASSERT_TRUE(fs::exists(tmp / "base/model.safetensors.index.json"));
  // An earlier output in the way: replaced whole, nothing of it left.
  fs::create_directories(tmp / "merged");
  std::ofstream(tmp / "merged/config.json") << "{}";
  std::ofstream(tmp / "merged/stale.txt") << "old";
  std::vector<std::pair<int64_t, int64_t>> progress;
  merge::BuildOptions o{.max_shard_bytes = size_t{1} << 30};
  o.progress = [&](int64_t done, int64_t total) { progress.emplace_back(done, total); };
  merge::BuildReport r = merge::build_merged(tmp / "base", tmp / "merged", o);
  expect_progress_on_disk(progress, r, tmp / "merged");
  EXPECT_TRUE(r.multimodal);
  EXPECT_EQ(r.dtype, engine::DType::bf16);
  EXPECT_FALSE(fs::exists(tmp / "merged/stale.txt"));
  EXPECT_TRUE(fs::exists(tmp / "merged/model.safetensors.index.json"));

  const engine::Model base = engine::load_model(tmp / "base");
  const engine::Model merged = host::load_checkpoint(tmp / "merged");
  EXPECT_EQ(merged.dtype, engine::DType::bf16);
  expect_gpu_from_construction(tmp / "merged", merged);
  const engine::Tokenizer tok = engine::load_tokenizer(tmp / "base/tokenizer.json");
  const merge::TextCheck t = merge::check_text(base, merged, tok, kPrompts, 8, {.threads = 1, .skip_zero_rows = true});
  // The bf16 activations round where the base's and the merged model's f32 values differ in
  // their last bits, and the base's main norms see eps * 1.9 (the power-of-two scale).
  EXPECT_LT(t.mean_kl, 1e-3);
  EXPECT_GE(t.agree, t.compared * 9 / 10);
  RecordProperty("mean_kl", fmt::format("{:.3g}", t.mean_kl));
  RecordProperty("agree", fmt::format("{}/{}", t.agree, t.compared));
  expect_launches(merged);
  expect_skip_exact(merged, engine::Rounding::llama_cpp);
#if !defined(QGPU_ASAN)  // transformers' rounding runs sanitized in model_launch_test
  expect_skip_exact(merged, engine::Rounding::transformers);
#endif
#if !defined(QGPU_ASAN)  // the full product multiplies every zero of the file: seconds under ASan
  // Text reads the base's weights from their dense copies (the used corner of each reader,
  // the MLP's padded units left out): the full product's bits.
  expect_text_as_full_product(merged, tok.encode(kPrompts[1]), "bf16 merged logits at text positions");
#endif
  EXPECT_EQ(merged.config.qgpu->base_intermediate, spec.intermediate_size);
  expect_chat(tmp / "merged", merged);

  // A GPU weight edited after the build: at a row every load checks (the first), loading is
  // one error naming it; anywhere, `qgpu verify` finds it.
  const std::string down = "model.layers.0.mlp.down_proj.weight";
  const int64_t I = merged.config.intermediate_size, d = merged.config.qgpu->hidden_offset;
  poke_bf16(tmp / "merged", down, 3, 1.0f);
  try {
    host::load_checkpoint(tmp / "merged");
    ADD_FAILURE() << "an edited GPU weight was loaded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(down + " row 0 column 3 is 1"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("edited after `qgpu build`"), std::string::npos) << e.what();
  }
  poke_bf16(tmp / "merged", down, 3, 0.0f);
#if !defined(QGPU_ASAN)  // a process that makes the model and reads 2.3 GB: the edited file's run below reads the same
  test_util::Result ok = test_util::qgpu("verify " + (tmp / "merged"));
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_NE(ok.out.find("every GPU matrix equals the construction"), std::string::npos) << ok.out;
  // The map written into the merge (offset by the base's dims and tokens) names every
  // nonzero weight of the GPU's layers and token rows (tests/map_test.cpp: GPU-only).
  test_util::Result mapped = test_util::qgpu("map --check --model " + (tmp / "merged"));
  EXPECT_EQ(mapped.status, 0) << mapped.err;
  EXPECT_NE(mapped.out.find("are where its map says"), std::string::npos) << mapped.out;
  // The lens on the merge: the machine's fields at the map's place, the base's dims as a norm
  // (+0 at the machine's tokens).
  test_util::Result lens = test_util::qgpu(
      "run " + std::string(QGPU_SOURCE_DIR) + "/kernels/vecadd.cu --grid 3 --block 4 --arg 'a=[1,2,3,4,5,6,7,8,9,-2147483647]' "
      "--arg 'b=[10,20,30,40,50,60,70,80,90,-100]' --arg 'c=[0,0,0,0,0,0,0,0,0,0]' --arg n=10 --engine model --model " +
      (tmp / "merged") + " --lens=192 --lens-fields sum");
  EXPECT_EQ(lens.status, 0) << lens.err;
  EXPECT_NE(lens.out.find("position 192: sched w0 b7 {0,1,2,3} -> v0:11 (record 76)\n  L13.mlp    sum=11 |base|=0\n"),
            std::string::npos) << lens.out;
  test_util::Result offset = test_util::qgpu("map --field sum --model " + (tmp / "merged"));
  EXPECT_NE(offset.out.find(fmt::format("dims {:>4}-", d + lift::machine_layout()["sum"].offset)), std::string::npos) << offset.out;
#endif
  poke_bf16(tmp / "merged", down, (d + 77) * I + 5, 0.5f);
  test_util::Result bad = test_util::qgpu("verify " + (tmp / "merged"));
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.err.find(fmt::format("{} row {} column 5 is 0.5", down, d + 77)), std::string::npos) << bad.err;
#if !defined(QGPU_ASAN)
  // The map says which unit wrote where it should not (a clear of L0, into another field's dim).
  test_util::Result unmapped = test_util::qgpu("map --check --model " + (tmp / "merged"));
  EXPECT_EQ(unmapped.status, 1);
  EXPECT_NE(unmapped.err.find(fmt::format("L0 down_proj unit 5 (clears) writes dim {}", d + 77)), std::string::npos)
      << unmapped.err;
#endif
}

TEST(MergeBuild, ABaseTheGpuCannotJoinIsOneErrorAndKeepsTheOutput) {
  test_util::TempDir tmp;
  engine::TinySpec spec = test_util::gpu_shaped_spec("LF");
  spec.linear_num_value_heads = 32;  // Qwen3.5-4B / 9B's
  engine::write_tiny_model(tmp / "base", spec);
  fs::create_directories(tmp / "merged");
  std::ofstream(tmp / "merged/keep.txt") << "mine";
  try {
    merge::build_merged(tmp / "base", tmp / "merged", {});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("linear_num_value_heads is 32"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::exists(tmp / "merged/keep.txt"));
  EXPECT_THROW(merge::build_merged(tmp / "nothing", tmp / "merged", {}), Error);
  EXPECT_TRUE(fs::exists(tmp / "merged/keep.txt"));
  // A directory that holds no checkpoint is not replaced by one.
  spec.linear_num_value_heads = 16;
  engine::write_tiny_model(tmp / "base", spec);
  try {
    merge::build_merged(tmp / "base", tmp / "merged", {});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), fmt::format("--out {}: a directory that holds no checkpoint (no config.json), "
                                                 "which the new output would replace whole; remove it or pass another --out",
                                                 tmp / "merged"));
  }
  EXPECT_TRUE(fs::exists(tmp / "merged/keep.txt"));
}

}  // namespace
}  // namespace qgpu
