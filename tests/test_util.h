// Small helpers shared by the tests: temporary files, reading a file, and running the
// qgpu binary with stdout and stderr captured apart.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/compile.h"
#include "engine/tiny_model.h"
#include "engine/tokenizer.h"
#include "host/gpu_model.h"
#include "lift/machine_model.h"

// QGPU_ASAN: this build runs under AddressSanitizer (GCC defines __SANITIZE_ADDRESS__,
// clang answers __has_feature); tests that skip repeated minutes there test it.
#if defined(__SANITIZE_ADDRESS__)
#define QGPU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define QGPU_ASAN 1
#endif
#endif

namespace qgpu::test_util {

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A file with the given text, removed at scope exit; suffix such as ".cu" if needed.
struct TempFile {
  std::filesystem::path path;
  explicit TempFile(std::string_view text = "", const std::string& suffix = "") {
    std::string pattern = (std::filesystem::temp_directory_path() / ("qgpu_test_XXXXXX" + suffix)).string();
    int fd = mkstemps(pattern.data(), static_cast<int>(suffix.size()));
    EXPECT_GE(fd, 0);
    close(fd);
    path = pattern;
    std::ofstream(path, std::ios::binary) << text;
  }
  ~TempFile() { std::filesystem::remove(path); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
};

// A directory removed (with its contents) at scope exit.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "qgpu_test_XXXXXX").string();
    EXPECT_NE(mkdtemp(pattern.data()), nullptr);
    path = pattern;
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

// A tiny text model (layers LF, MLP 32) in a directory of its own, loaded, with its tokenizer:
// the chat's language side in tests.
struct TinyTextModel {
  TempDir dir;
  engine::Model model;
  engine::Tokenizer tokenizer;
  TinyTextModel() {
    engine::write_tiny_model(dir.path.string(), engine::TinySpec{.layers = "LF", .intermediate_size = 32});
    model = engine::load_model(dir.path.string());
    tokenizer = engine::load_tokenizer(dir / "tokenizer.json");
  }
  int64_t tokens(const std::string& text) const { return std::ssize(tokenizer.encode(text)); }
};

// A tiny random base with the compiled GPU's head shapes (Qwen3.5-2B's), so `qgpu build`
// can merge the GPU into it: `qgpu tiny-model --mergeable`'s, with the given layer pattern.
inline engine::TinySpec gpu_shaped_spec(const std::string& layers) {
  engine::TinySpec s = engine::mergeable_tiny_spec(lift::machine_config());
  s.layers = layers;
  return s;
}

// kernels/vecadd.cu on 3 blocks of 4 threads, 10 elements (one of them overflows).
inline CompiledKernel vecadd_kernel() {
  const std::string file = std::string(QGPU_SOURCE_DIR) + "/kernels/vecadd.cu";
  CompileOptions o{.file = file};
  o.launch.grid_x = 3, o.launch.block_x = 4;
  for (const char* a : {"a=[1,2,3,4,5,6,7,8,9,-2147483647]", "b=[10,20,30,40,50,60,70,80,90,-100]",
                        "c=[0,0,0,0,0,0,0,0,0,0]", "n=10"})
    o.args.push_back(parse_kernel_arg(a));
  return compile_cuda(read_file(file), o);
}

// The GPU-only model, constructed in memory once per test process and dtype (about half a
// second; nothing is written to disk).
inline const engine::Model& gpu_model(engine::DType t = engine::DType::f32) {
  static std::map<engine::DType, std::unique_ptr<engine::Model>> models;
  std::unique_ptr<engine::Model>& m = models[t];
  if (!m) m = std::make_unique<engine::Model>(host::gpu_only_model(t).model);
  return *m;
}

struct Result {
  int status = -1;
  std::string out, err;
};

// Runs `ENV qgpu ARGS` (through the shell; env: "NAME=VALUE " assignments or empty) with
// stdout and stderr captured apart.
inline Result qgpu_env(const std::string& env, const std::string& args) {
  TempFile err;
  std::string command = env + std::string(QGPU_BINARY) + " " + args + " 2>'" + err.path.string() + "'";
  Result r;
  FILE* pipe = popen(command.c_str(), "r");
  EXPECT_NE(pipe, nullptr) << command;
  if (!pipe) return r;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) r.out.append(buf, n);
  int status = pclose(pipe);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = read_file(err.path);
  return r;
}

inline Result qgpu(const std::string& args) { return qgpu_env("", args); }

// Bit for bit, so +0 and -0 differ (and NaN equals itself); the first mismatch if not.
// `other` names the side under test in the message ("sparse", "skipping").
inline void expect_same_bits(const std::vector<float>& want, const std::vector<float>& got, const std::string& what,
                             const char* other) {
  ASSERT_EQ(want.size(), got.size()) << what;
  for (size_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(std::memcmp(&want[i], &got[i], sizeof(float)), 0)
        << what << ": first mismatch at " << i << ": reference " << want[i] << ", " << other << " " << got[i];
}

}  // namespace qgpu::test_util
