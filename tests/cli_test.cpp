// The `qgpu` binary, driven as a user would: every example runs to its expected outputs,
// errors go to stderr with a non-zero exit, `qgpu isa --markdown` is what docs/isa.md
// embeds, and `--dump=asm` prints a program that assembles back to itself.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "test_util.h"
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "gpu/isa.h"
#include "gpu/program.h"
#include "gpu/vocab.h"

namespace qgpu {
namespace {

using qgpu::test_util::qgpu;
using qgpu::test_util::read_file;
using qgpu::test_util::Result;
using qgpu::test_util::TempFile;

namespace fs = std::filesystem;
using nlohmann::json;

// The quoted path of examples/NAME.qasm.
std::string example(std::string_view name) {
  return "'" + std::string(QGPU_SOURCE_DIR) + "/examples/" + std::string(name) + ".qasm'";
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The expected "outputs" of every example, worked out by hand (see each file's header).
std::map<std::string, json> expected_outputs() {
  json waves_out = json::array();
  for (int b = 0; b < 8; ++b)
    for (int t = 0; t < 8; ++t) waves_out.push_back(b * 100 + t);
  json next = json::array();
  for (int i = 0; i < 16; ++i) next.push_back(i - 1);
  json grid2d = json::array();  // out[N mod 124] = 256 y + x of the last block N with that residue
  for (int i = 0; i < 124; ++i) {
    const int n = i + 124 < 13 * 19 ? i + 124 : i;
    grid2d.push_back(256 * (n / 13) + n % 13);
  }
  return {
      {"grid2d", {{"out", grid2d}}},
      {"vecadd", {{"a", {1, 2, 3, 4, 5, 6, 7, 8}},
                  {"b", {10, 20, 30, 40, 50, 60, 70, -1000}},
                  {"c", {11, 22, 33, 44, 55, 66, 77, -992}}}},
      {"reduce_shared",
       {{"in", {10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150, 160}},
        {"buf", {1360, 720, 360, 400, 180, 200, 220, 240, 90, 100, 110, 120, 130, 140, 150, 160}},
        {"out", {1360}}}},
      {"divergence", {{"out", {100, 103, 101, 109, 102, 115, 103, 121}}}},
      {"loop", {{"n", {1, 2, 3, 6, 7, 9, 12, 5}}, {"steps", {0, 1, 7, 8, 16, 19, 9, 5}}}},
      {"atomics", {{"data", {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3}},
                   {"hist", {2, 8, 2, 4}},
                   {"count", {16}},
                   {"maxv", {9}},
                   {"head", {15}},
                   {"next", next},
                   {"winner", {5}}}},
      {"atomic_update", {{"data", {71000, 6, 2, 2, 0, 0, 0, -1999999, -1999999, -1999999, -1999999, -1999999, -1999999,
                                   -1999999, -1999999, -1999999}},
                         {"hist", {4, 6, 1, 5}},
                         {"count", {1016}},
                         {"big", {-1029933}},
                         {"tick", {1000, 1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 1015}},
                         {"mins", {-2000000, 1}},
                         {"maxs", {900000, -1}},
                         {"head", {15}},
                         {"next", next}}},
      {"waves", {{"out", waves_out}, {"slot", {0, 2, 0, 2, 0, 2, 0, 2}}}},
      {"matmul", {{"A", {1, 2, 3, 4, 5, 6, 7, 8, 9}},
                  {"B", {-1, 0, 2, 3, 1, -2, 0, 4, 1}},
                  {"C", {5, 14, 1, 11, 29, 4, 17, 44, 7}}}},
      {"lanes", {{"a", {5, -3, 100000, 7, 0, INT32_MIN, INT32_MAX, 300}},
                 {"out", {1000005, 999996, 1099998, 1000004, 1000001, -2146483648, -2146483650, 1000298}},
                 {"base", {1000000}}}},
      {"loops", {{"n", {0, 1, 3, 5}},
                 {"a", {7, -1, INT32_MIN, INT32_MAX}},
                 {"sum", {100, 100, 103, 110}},
                 {"big", {0, 1, 1, 0}},
                 {"even", {1, 0, 1, 0}}}},
      {"mul", {{"a", {5, -3, 100000, 7, 0, INT32_MIN, INT32_MAX, 300}},
               {"b", {12345, 77, -99999, 65536, 4, -1, INT32_MAX, -300}},
               {"out", {61725, -231, -1409965408, 458752, 0, INT32_MIN, 1, -90000}},
               {"poly", {274, -158, 1243789909, 822, -11, 2147483637, -26, 80552089}}}},
      {"bits", {{"a", {0, -1, 1, INT32_MIN, 305419896, 255, 65536, -559038737}},
                {"pop", {0, 32, 1, 1, 13, 8, 1, 24}},
                {"lz", {32, 0, 31, 0, 3, 24, 15, 0}},
                {"rev", {0, -1, INT32_MIN, 1, 510274632, -16777216, 32768, -142756485}},
                {"mix", {8, 8, 10, 10, 22, 24, 10, 20}}}},
      {"long", {{"n", {2400}}, {"x", {-1378651584, -1290943455, 1326276162, -1589428477}}}},
      {"div_mod", {{"a", {7, -7, 7, -7, 5, -5, INT32_MIN, 0}},
                   {"b", {2, 2, -2, -2, 0, 0, -1, 0}},
                   {"div_s", {3, -3, -3, 3, -1, 1, INT32_MIN, -1}},
                   {"rem_s", {1, -1, 1, -1, 5, -5, 0, 0}},
                   {"div_u", {3, 2147483644, 0, 0, -1, -1, 0, -1}},
                   {"rem_u", {1, 1, 7, -7, 5, -5, INT32_MIN, 0}}}},
      // min.f32 by hand: min(+0, -0) = -0, min(-1, -2) = -2, a NaN gives 1, -1e-45 below -0.
      {"float_order", {{"x", {0, -1082130432, 2143289344, -2147483647}},
                       {"y", {INT32_MIN, -1073741824, 1065353216, INT32_MIN}},
                       {"mn", {INT32_MIN, -1073741824, 1065353216, -2147483647}}}},
      // binary32 compares, min, max, neg, abs on edge pairs (worked out by the float rules of
      // docs/isa.md in Python: IEEE compares on the decoded values, NVIDIA's min/max/NaN).
      {"float_compare", {{"x", {INT32_MIN, INT32_MIN, 1065353216, -1073741824, 1065353216, 1065353216, 2147483647,
                                -8388608, 0, -2147483647, 1077936128, -1062207488, 2139095039, -1082130432,
                                INT32_MIN, INT32_MIN}},
                         {"y", {0, 0, 1073741824, -1082130432, 1065353216, 1065353216, 2147483647, 2139095040, 1,
                                INT32_MIN, 1077936128, 1085276160, 2139095040, INT32_MIN, 1, 1120403456}},
                         {"cmp", {43625, 10857, 25486, 7346, 12224, 53184, 36800, 19634, 44210, 13198, 27241, 13198,
                                  25486, 3250, 9102, 27826}},
                         {"ng", {INT32_MIN, 0, -1082130432, 1065353216, 2147483647, -1082130432, 2147483647, -8388608,
                                 -2147483647, 1, -1069547520, 1085276160, -8388609, 0, 0, -1027080192}},
                         {"ab", {0, 0, 1073741824, 1073741824, 1065353216, 2147483647, 2147483647, 2139095040, 0, 0,
                                 1077936128, 1085276160, 2139095040, 1065353216, 1, 0}},
                         {"mt", {0, 1, 1065353216, 3, 4, 1065353216, 6, 2139095040, 8, 9, 1077936128, 11, 2139095039,
                                 13, 14, 1120403456}},
                         {"mz", {INT32_MIN, INT32_MIN, INT32_MIN, -1073741824, INT32_MIN, INT32_MIN, INT32_MIN,
                                 -8388608, INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN, -1082130432,
                                 INT32_MIN, INT32_MIN}}}},
  };
}

std::vector<std::string> example_names() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(QGPU_SOURCE_DIR "/examples"))
    if (e.path().extension() == ".qasm") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Cli, EveryExampleRunsToItsExpectedOutputs) {
  std::map<std::string, json> want = expected_outputs();
  for (const std::string& name : example_names()) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(want.count(name)) << "add the expected outputs of examples/" << name << ".qasm";
    Result r = qgpu("asm " + example(name) + " --run --json");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");
    ASSERT_EQ(lines_of(r.out).size(), 1u);
    json j = json::parse(r.out);
    EXPECT_EQ(j["kernel"], name);
    EXPECT_EQ(j["outputs"], want[name]);
    const json& records = j["records"];
    EXPECT_EQ(j["tokens"], records.size());
    EXPECT_EQ(j["record_ids"].size(), records.size());
    EXPECT_EQ(records.back(), "end");
    int steps = 0;
    for (const json& t : records) steps += t.get<std::string>().starts_with("sched ");
    EXPECT_EQ(j["steps"], steps);
    EXPECT_EQ(j["memory"].size(), static_cast<size_t>(kMemWords));
  }
}

TEST(Cli, SeveralFilesGiveOneObjectPerLine) {
  Result r = qgpu("asm " + example("vecadd") + " " + example("loop") + " " + example("waves") +
                  " --run --json");
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<std::string> lines = lines_of(r.out);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(json::parse(lines[0])["kernel"], "vecadd");
  EXPECT_EQ(json::parse(lines[1])["kernel"], "loop");
  json waves = json::parse(lines[2]);
  EXPECT_EQ(waves["kernel"], "waves");
  EXPECT_EQ(waves["waves"], 4);
  EXPECT_EQ(waves["launch"], (json{{"grid", {8, 1}}, {"block", {8, 1}}}));
}

TEST(Cli, MissingFileFails) {
  Result r = qgpu("asm /no/such/file.qasm --run --json");
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("File does not exist: /no/such/file.qasm"), std::string::npos) << r.err;
}

TEST(Cli, BadProgramFailsWithADiagnostic) {
  TempFile f("    mov r0, 1\n    frob r1, r2\n    exit\n");
  Result r = qgpu("asm '" + f.path.string() + "' --run --json");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "qgpu: error: " + f.path.string() +
                       ":2:5: unknown instruction 'frob' (see `qgpu isa`)\n"
                       "      frob r1, r2\n"
                       "      ^\n");
}

TEST(Cli, TrapNamesTheFile) {
  TempFile f("    add r1, r0, 1\n    exit\n");
  Result r = qgpu("asm '" + f.path.string() + "' --run --json");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "qgpu: error: " + f.path.string() +
                       ": trap: warp 0 lane 0 at block 0 (add r1, r0, 1): reads r0 before any "
                       "write\n");
}

TEST(Cli, IsaMarkdownIsTheGeneratedPartOfTheDocs) {
  const fs::path doc = fs::path(QGPU_SOURCE_DIR) / "docs" / "isa.md";
  ASSERT_TRUE(fs::exists(doc)) << doc << " is missing";
  std::string text = read_file(doc);
  const std::string begin = "<!-- generated by qgpu isa --markdown -->\n";
  const std::string end = "<!-- end generated -->";
  size_t from = text.find(begin), to = text.find(end);
  ASSERT_NE(from, std::string::npos) << "docs/isa.md lacks the line " << begin;
  ASSERT_NE(to, std::string::npos) << "docs/isa.md lacks the line " << end;
  ASSERT_LT(from, to);
  Result r = qgpu("isa --markdown");
  ASSERT_EQ(r.status, 0) << r.err;
  std::string section = text.substr(from + begin.size(), to - from - begin.size());
  if (r.out == section) return;
  std::vector<std::string> want = lines_of(r.out), have = lines_of(section);
  size_t i = 0;
  while (i < want.size() && i < have.size() && want[i] == have[i]) ++i;
  ADD_FAILURE() << "docs/isa.md is stale: paste the output of `qgpu isa --markdown` between its "
                   "markers. First difference, generated line "
                << i + 1 << ":\n  docs/isa.md: " << (i < have.size() ? have[i] : "(end)")
                << "\n  qgpu isa:    " << (i < want.size() ? want[i] : "(end)");
}

// Plain `qgpu isa` prints what its --help promises: the machine constants, every op, and the
// token vocabulary's families with their id ranges (it printed the ops only).
TEST(Cli, IsaPrintsConstantsOpsAndVocabulary) {
  Result help = qgpu("isa --help");
  EXPECT_NE(help.out.find("machine constants, ops, special registers and token vocabulary"), std::string::npos)
      << help.out;
  Result r = qgpu("isa");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<std::string> lines = lines_of(r.out);
  auto has_line = [&](const std::string& start, const std::string& end) {
    return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) {
      return l.starts_with(start) && l.ends_with(end);
    });
  };
  EXPECT_TRUE(has_line("Machine constants", "")) << r.out;
  EXPECT_TRUE(has_line("  lanes per warp ", " " + std::to_string(kLanes))) << r.out;
  EXPECT_TRUE(has_line("  memory words ", " " + std::to_string(kMemWords))) << r.out;
  for (const OpInfo& o : kOps) EXPECT_TRUE(has_line(fmt::format("  {} ", o.mnemonic), std::string(o.meaning))) << o.mnemonic;
  for (const SpecialInfo& s : kSpecials) EXPECT_TRUE(has_line(fmt::format("  {} ", s.name), std::string(s.meaning))) << s.name;
  EXPECT_TRUE(has_line(fmt::format("Token vocabulary: {} ids", vocab_size()), "")) << r.out;
  EXPECT_TRUE(has_line("  begin  0 ", "start of a launch prompt; clears the machine")) << r.out;
  for (const Family& f : kFamilies) {
    const int first = family_offset(f.kind);
    const std::string ids = f.size == 1 ? std::to_string(first) : fmt::format("{}..{}", first, first + f.size - 1);
    EXPECT_TRUE(has_line(fmt::format("  {:<6} {} ", f.name, ids), std::string(f.meaning))) << f.name;
  }
}

TEST(Cli, DumpAsmReassemblesToTheSameProgram) {
  for (const std::string& name : example_names()) {
    SCOPED_TRACE(name);
    Result dump = qgpu("asm " + example(name) + " --dump=asm");
    ASSERT_EQ(dump.status, 0) << dump.err;
    Program original = assemble(read_file(fs::path(QGPU_SOURCE_DIR) / "examples" / (name + ".qasm")));
    Program again = assemble(dump.out, "dump.qasm");
    EXPECT_EQ(again.kernel, original.kernel);
    EXPECT_EQ(again.code, original.code);
    EXPECT_EQ(again.arrays, original.arrays);
    EXPECT_EQ(again.launch, original.launch);
    // The printed form is a fixed point, and runs to the same records.
    TempFile f(dump.out);
    EXPECT_EQ(qgpu("asm '" + f.path.string() + "' --dump=asm").out, dump.out);
    json a = json::parse(qgpu("asm " + example(name) + " --run --json").out);
    json b = json::parse(qgpu("asm '" + f.path.string() + "' --run --json").out);
    EXPECT_EQ(a["records"], b["records"]);
    EXPECT_EQ(a["outputs"], b["outputs"]);
  }
}

TEST(Cli, DumpImageIsThePrompt) {
  Result r = qgpu("asm " + example("vecadd") + " --dump=image");
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<std::string> lines = lines_of(r.out);
  ASSERT_GE(lines.size(), 6u);
  EXPECT_EQ(std::vector<std::string>(lines.begin(), lines.begin() + 6),
            (std::vector<std::string>{"begin", "gx=2", "gy=1", "bx=4", "by=1", "@b0"}));
  EXPECT_EQ(lines.back(), "run");
  json j = json::parse(qgpu("asm " + example("vecadd") + " --run --json").out);
  EXPECT_EQ(j["prompt_tokens"], lines.size());
}

TEST(Cli, GridAndBlockOverrideTheFile) {
  // One CUDA block of 4 threads: only c[0..3] are computed; the rest keep their 0.
  Result one = qgpu("asm " + example("vecadd") + " --run --json --grid 1");
  ASSERT_EQ(one.status, 0) << one.err;
  json j = json::parse(one.out);
  EXPECT_EQ(j["launch"], (json{{"grid", {1, 1}}, {"block", {4, 1}}}));
  EXPECT_EQ(j["outputs"]["c"], (json{11, 22, 33, 44, 0, 0, 0, 0}));
  // Four CUDA blocks of 2 threads cover all 8 again, in one wave (one warp each).
  Result four = qgpu("asm " + example("vecadd") + " --run --json --grid 4 --block 2");
  ASSERT_EQ(four.status, 0) << four.err;
  j = json::parse(four.out);
  EXPECT_EQ(j["launch"], (json{{"grid", {4, 1}}, {"block", {2, 1}}}));
  EXPECT_EQ(j["outputs"]["c"], (json{11, 22, 33, 44, 55, 66, 77, -992}));
  EXPECT_EQ(j["waves"], 1);
  // 2-D: a grid of 2x3 = 6 CUDA blocks of 8 threads is 3 waves.
  Result two_d = qgpu("asm " + example("waves") + " --run --json --grid 2,3");
  ASSERT_EQ(two_d.status, 0) << two_d.err;
  EXPECT_EQ(json::parse(two_d.out)["waves"], 3);
}

TEST(Cli, BadLaunchOverridesFail) {
  Result big = qgpu("asm " + example("vecadd") + " --run --block 17");
  EXPECT_EQ(big.status, 1);
  EXPECT_EQ(big.err, "qgpu: error: CUDA block 17x1 = 17 threads; the machine has 16 (4 warps of "
                     "4 lanes), 1 too many: use more CUDA blocks\n");
  Result zero = qgpu("asm " + example("vecadd") + " --run --grid 0");
  EXPECT_EQ(zero.status, 1);
  EXPECT_EQ(zero.err, "qgpu: error: --grid '0': expected X or X,Y with positive integers\n");
  Result many = qgpu("asm " + example("vecadd") + " --run --grid 16,17");
  EXPECT_EQ(many.status, 1);
  EXPECT_EQ(many.err, "qgpu: error: grid 16x17 = 272 CUDA blocks; a launch runs at most 256 (16 "
                      "too many): use fewer, larger CUDA blocks or loop inside the kernel\n");
}

}  // namespace
}  // namespace qgpu
