// The clang driver. The shipped headers (include/qgpu/, embedded into the binary at build
// time) are written to a fresh temporary directory per compilation, so the qgpu binary
// works from any directory. clang runs through the shell with its output in files.
#include "compiler/clang_driver.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/error.h"
#include "base/text_file.h"
#include "compiler/cuda_headers.h"

namespace qgpu {
namespace {

namespace fs = std::filesystem;

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

bool on_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (!dir.empty() && access((dir + "/" + name).c_str(), X_OK) == 0) return true;
  return false;
}

// A temporary directory removed when it goes out of scope.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "qgpu-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) fail("cannot create a temporary directory in {}", fs::temp_directory_path().string());
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

}  // namespace

std::string find_clang() {
  if (const char* env = std::getenv("CLANG"); env && *env) {
    if (!on_path(env))
      fail("CLANG={} is not an executable: point it at a clang with the NVPTX backend (Debian/Ubuntu: "
           "apt-get install clang; macOS: brew install llvm), or unset it to search PATH", env);
    return env;
  }
  for (const char* c : {"clang-19", "clang-16", "clang-15", "clang-14", "clang"})
    if (on_path(c)) return c;
  for (const char* c : {"/opt/homebrew/opt/llvm/bin/clang", "/usr/local/opt/llvm/bin/clang"})
    if (on_path(c)) return c;
  fail("no clang found: qgpu compiles CUDA with clang's NVPTX backend. Install one "
       "(Debian/Ubuntu: apt-get install clang; macOS: brew install llvm) or set CLANG=/path/to/clang");
}

std::string compile_to_ptx(const std::string& cu_path, const std::string& opt_level, const std::string& appended) {
  std::string clang = find_clang();
  TempDir tmp;
  fs::create_directories(tmp.path / "include");
  for (const CudaHeader& h : cuda_headers()) {
    fs::create_directories((tmp.path / "include" / h.name).parent_path());
    std::ofstream(tmp.path / "include" / h.name) << h.text;
  }
  fs::path ptx = tmp.path / "kernel.ptx", err = tmp.path / "clang.err";
  std::string source = cu_path;
  if (!appended.empty()) {
    source = (tmp.path / "launch.cu").string();
    std::ofstream(source) << fmt::format("#include \"{}\"\n{}", fs::absolute(cu_path).string(), appended);
  }
  std::string cmd = fmt::format(
      "{} -x cuda --cuda-device-only --cuda-gpu-arch=sm_75 -nocudainc -nocudalib "
      "--cuda-path=/nonexistent --target=x86_64-unknown-linux-gnu {} -gline-directives-only -I {} "
      "-include qgpu_cuda.h -S {} -o {} 2> {}",
      shell_quote(clang), opt_level, shell_quote((tmp.path / "include").string()),
      shell_quote(source), shell_quote(ptx.string()), shell_quote(err.string()));
  int status = std::system(cmd.c_str());
  std::string messages = read_text_file(err.string(), kMaxPtxBytes, "clang message file");
  if (messages.find("No available targets are compatible") != std::string::npos)
    fail("{} has no NVPTX backend: install a full LLVM clang (Debian's clang, or brew install llvm) "
         "or set CLANG", clang);
  if (status != 0) fail("clang could not compile {}:\n{}", cu_path, messages);
  return read_text_file(ptx.string(), kMaxPtxBytes, "PTX file clang wrote");
}

}  // namespace qgpu
