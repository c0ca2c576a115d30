// Runs every case of one corpus kernel through the `qgpu run` CLI and compares the outputs
// with the oracle's (kernels/expected/NAME.json, made by scripts/gen_expected.py from a
// host-C++ emulation, never from qgpu). Prints the first mismatches and the largest
// difference per array. Usage: corpus_check QGPU KERNEL.cu EXPECTED.json [--cases N] [extra qgpu args]
//
// The arrays named in the expected file's "float_params" hold floats: the oracle writes each
// element as a string (the shortest std::to_chars text, "inf", "-inf", "nan", "nan:0x...");
// qgpu --json writes a finite one as a JSON number with that same text and the others as
// those strings. A number is compared by reading it back as a float and formatting it with
// std::to_chars again, so "1.5" and 1.5 match, and 1.5000001 does not.
//
// --cases N (before the qgpu args) runs only the first N cases.
#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "float_text.h"

namespace {

std::string run_command(const std::string& cmd, int& status) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return status = -1, out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  status = pclose(p);
  return out;
}

// Prints up to 5 differing elements of a float array; true if equal.
bool compare_floats(const std::string& name, const nlohmann::json& want, const nlohmann::json& got) {
  int shown = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    std::string w = qgpu::test_util::float_text(want[i]), g = qgpu::test_util::float_text(got[i]);
    if (w == g) continue;
    if (shown++ < 5) fmt::print("  {}[{}]: expected {}, got {}\n", name, i, w, g);
  }
  if (shown) fmt::print("  {}: {} of {} differ\n", name, shown, want.size());
  return shown == 0;
}

// Prints up to 5 differing elements and the largest absolute difference; true if equal.
bool compare(const std::string& name, const nlohmann::json& want, const nlohmann::json& got, bool is_float) {
  if (!got.is_array() || got.size() != want.size()) {
    fmt::print("  {}: expected {} values, got {}\n", name, want.size(), got.dump());
    return false;
  }
  if (is_float) return compare_floats(name, want, got);
  int shown = 0;
  int64_t max_diff = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    // The expected files hold unsigned data as signed words; qgpu prints it unsigned.
    int64_t w = want[i].get<int64_t>(), g = got[i].get<int64_t>();
    if (static_cast<uint32_t>(w) == static_cast<uint32_t>(g)) continue;
    max_diff = std::max<int64_t>(max_diff, std::llabs(w - g));
    if (shown++ < 5) fmt::print("  {}[{}]: expected {}, got {}\n", name, i, w, g);
  }
  if (shown) fmt::print("  {}: {} of {} differ, max |diff| {}\n", name, shown, want.size(), max_diff);
  return shown == 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    fmt::print(stderr, "usage: corpus_check QGPU KERNEL.cu EXPECTED.json [--cases N] [qgpu run args...]\n");
    return 2;
  }
  int first = 4;
  size_t max_cases = SIZE_MAX;
  if (argc > 5 && std::string(argv[4]) == "--cases") max_cases = std::stoul(argv[5]), first = 6;
  std::string extra;
  for (int i = first; i < argc; ++i) extra += std::string(" ") + argv[i];
  nlohmann::json expected = nlohmann::json::parse(std::ifstream(argv[3]));
  int failed = 0, n = 0;
  for (const nlohmann::json& c : expected.at("cases")) {
    if (static_cast<size_t>(n) == max_cases) break;
    ++n;
    // The arrays that hold floats: the case's own list (a template's instances may differ
    // in type), else the file's.
    std::set<std::string> float_params;
    for (const nlohmann::json& p : c.value("float_params", expected.value("float_params", nlohmann::json::array())))
      float_params.insert(p.get<std::string>());
    std::string cmd = fmt::format("{} run {} {}{} --json 2>&1", argv[1], argv[2], c.at("run").get<std::string>(), extra);
    int status = 0;
    std::string out = run_command(cmd, status);
    fmt::print("case {}: {}\n", n, c.at("run").get<std::string>());
    if (status != 0) {
      fmt::print("  qgpu failed:\n{}\n", out);
      ++failed;
      continue;
    }
    nlohmann::json got = nlohmann::json::parse(out, nullptr, false);  // a float -0 prints as -0.0
    bool ok = !got.is_discarded();
    for (auto& [name, want] : c.at("outputs").items())
      ok = ok && compare(name, want, got["outputs"][name], float_params.count(name) > 0);
    fmt::print("  {} ({} tokens)\n", ok ? "ok" : "MISMATCH", ok ? got["tokens"].get<int64_t>() : 0);
    failed += !ok;
  }
  fmt::print("{} passed, {} failed\n", n - failed, failed);
  return failed ? 1 : 0;
}
