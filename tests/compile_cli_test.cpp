// `qgpu run FILE.cu`, driven as a user would: the --json report, each --dump stage, the -O
// levels, and the one-line errors on stderr for options the build does not support yet.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "test_util.h"
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>

#include "compiler/compile.h"
#include "gpu/program.h"

namespace qgpu {
namespace {

using qgpu::test_util::qgpu;
using qgpu::test_util::read_file;
using qgpu::test_util::Result;
using qgpu::test_util::TempFile;

namespace fs = std::filesystem;
using nlohmann::json;

// A kernel with a loop and a guard, launched over 2 blocks by kArgs.
constexpr std::string_view kPrefix = R"(
extern "C" __global__ void prefix(const int *x, int *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int acc = 0;
  for (int k = 0; k <= t && k < n; k++) acc += x[k] * (k + 1);
  if (t < n) out[t] = acc;
}
)";
const std::string kArgs = "--grid 2 --arg 'x=[1,2,3,4,5,6]' --arg 'out=[0,0,0,0,0,0,0,0]' --arg n=6";

struct CompileCli : testing::Test {
  TempFile cu{kPrefix, ".cu"};
  std::string run(const std::string& more) { return "run '" + cu.path.string() + "' " + more; }
};

TEST_F(CompileCli, JsonReport) {
  Result r = qgpu(run(kArgs + " --json"));
  ASSERT_EQ(r.status, 0) << r.err;
  json j = json::parse(r.out);
  for (const char* key : {"kernel", "engine", "outputs", "tokens"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_EQ(j["kernel"], "prefix");
  EXPECT_EQ(j["engine"], "interp");
  // No model runs on the interpreter, so no dtype is reported (it said "f32"), even with --dtype.
  EXPECT_FALSE(j.contains("dtype")) << r.out;
  Result typed = qgpu(run(kArgs + " --json --dtype bf16"));
  ASSERT_EQ(typed.status, 0) << typed.err;
  EXPECT_FALSE(json::parse(typed.out).contains("dtype")) << typed.out;
  // the pointer parameters, in order; 1, 1+4, 1+4+9, ... (sums of squares)
  EXPECT_EQ(j["outputs"], json::parse(R"({"x": [1, 2, 3, 4, 5, 6], "out": [1, 5, 14, 30, 55, 91, 0, 0]})"));
  EXPECT_GT(j["tokens"].get<int>(), 0);
}

// --trace prints the records first, then what they computed: the summary line and the
// arrays come last, where a terminal leaves them in view (they came before the records).
TEST_F(CompileCli, TraceComesBeforeTheResults) {
  Result plain = qgpu(run(kArgs));
  Result traced = qgpu(run(kArgs + " --trace"));
  ASSERT_EQ(plain.status, 0) << plain.err;
  ASSERT_EQ(traced.status, 0) << traced.err;
  ASSERT_TRUE(traced.out.ends_with(plain.out)) << traced.out;
  const std::string records = traced.out.substr(0, traced.out.size() - plain.out.size());
  EXPECT_TRUE(records.starts_with("  sched w0 b0 ")) << records;
  EXPECT_TRUE(records.ends_with("  end\n")) << records;
  EXPECT_TRUE(plain.out.starts_with("prefix: grid 2x1, block 4x1, 1 wave; ")) << plain.out;
  EXPECT_TRUE(plain.out.ends_with("  out = 1 5 14 30 55 91 0 0\n  n = 6\n")) << plain.out;
}

TEST_F(CompileCli, EveryOptLevelGivesTheSameOutputs) {
  for (const char* level : {"1", "2", "3", "s", "z"}) {
    Result r = qgpu(run(kArgs + " --json -O " + level));
    ASSERT_EQ(r.status, 0) << level << r.err;
    EXPECT_EQ(json::parse(r.out)["outputs"]["out"], json::parse("[1, 5, 14, 30, 55, 91, 0, 0]")) << level;
  }
}

TEST_F(CompileCli, OptLevelZeroIsRejected) {
  Result r = qgpu(run(kArgs + " -O 0"));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  // Its stack of 64-bit words does not fit (the first error found), and the message says why.
  EXPECT_EQ(r.err.rfind("qgpu: error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("at -O0 clang keeps every variable in a stack of 64-bit words, which the machine cannot "
                       "hold: compile at -Os (the default) or -O1, -O2, -O3, -Oz"),
            std::string::npos)
      << r.err;
}

TEST_F(CompileCli, DumpPtx) {
  Result r = qgpu(run(kArgs + " --dump=ptx"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find(".visible .entry prefix("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("%tid.x"), std::string::npos) << r.out;
}

// A kernel the machine refuses (a double): the error names the CUDA line, and the PTX line it
// cites is that instruction's line in --dump=ptx, which prints the PTX even though the
// later stages refuse it (it named FILE.cu.ptx:LINE:COL, a file that does not exist, and
// --dump=ptx failed with the same error).
TEST(CompileCliErrors, ErrorNamesTheCudaLineAndDumpPtxShowsThePtxLine) {
  TempFile cu{"extern \"C\" __global__ void k(double* a){ a[threadIdx.x] *= 2.0; }\n", ".cu"};
  const std::string run = "run '" + cu.path.string() + "' --arg 'a=[1,2,3,4]'";
  Result r = qgpu(run);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  const std::string head = "qgpu: error: " + cu.path.string() + ":1:57: unsupported instruction 'ld.global.f64': ";
  ASSERT_TRUE(r.err.starts_with(head)) << r.err;
  EXPECT_EQ(r.err.find(".ptx"), std::string::npos) << r.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.err, m, std::regex("\n  PTX line (\\d+) \\(see --dump=ptx\\): (ld\\.global\\.f64 [^\\n]*)\n")))
      << r.err;
  Result ptx = qgpu(run + " --dump=ptx");
  ASSERT_EQ(ptx.status, 0) << ptx.err;
  const std::vector<std::string> lines = [&] {
    std::vector<std::string> out;
    std::istringstream in(ptx.out);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }();
  const size_t n = std::stoul(m[1]);
  ASSERT_LE(n, lines.size());
  std::string instr = std::regex_replace(lines[n - 1], std::regex("\\s+"), " ");
  EXPECT_EQ(instr, " " + m[2].str()) << lines[n - 1];
}

// IR: numbered machine ops over PTX's registers; after allocation, over r0..r23 and p0..p3.
TEST_F(CompileCli, DumpIrAndAlloc) {
  Result ir = qgpu(run(kArgs + " --dump=ir"));
  Result alloc = qgpu(run(kArgs + " --dump=alloc"));
  ASSERT_EQ(ir.status, 0) << ir.err;
  ASSERT_EQ(alloc.status, 0) << alloc.err;
  std::regex numbered("( *\\d+: [^\\n]+\\n)+");
  EXPECT_TRUE(std::regex_match(ir.out, numbered)) << ir.out;
  EXPECT_TRUE(std::regex_match(alloc.out, numbered)) << alloc.out;
  EXPECT_NE(ir.out.find("%r"), std::string::npos) << ir.out;
  EXPECT_NE(ir.out.find("%tid.x"), std::string::npos) << ir.out;
  EXPECT_EQ(alloc.out.find("%r"), std::string::npos) << alloc.out;
  EXPECT_NE(alloc.out.find(" r0"), std::string::npos) << alloc.out;
  EXPECT_FALSE(std::regex_search(alloc.out, std::regex("\\br(1[5-9]|[2-9]\\d)\\b|\\bp[4-9]\\b"))) << alloc.out;
}

// --dump=blocks prints .qasm that assembles back to the compiled program.
TEST_F(CompileCli, DumpBlocksReassembles) {
  Result r = qgpu(run(kArgs + " --dump=blocks"));
  ASSERT_EQ(r.status, 0) << r.err;
  Program p = assemble(r.out, "blocks.qasm");
  CompileOptions o{.file = cu.path.string(), .launch = {.grid_x = 2}};
  for (const char* a : {"x=[1,2,3,4,5,6]", "out=[0,0,0,0,0,0,0,0]", "n=6"})
    o.args.push_back(parse_kernel_arg(a));
  Program compiled = compile_cuda(kPrefix, o).program;
  EXPECT_EQ(p.kernel, "prefix");
  EXPECT_EQ(p.code, compiled.code);
  EXPECT_EQ(p.arrays, compiled.arrays);
  EXPECT_EQ(p.launch, compiled.launch);
}

TEST_F(CompileCli, OptionErrors) {
  struct Case {
    std::string options, err;
    std::string args = kArgs;
  };
  const Case cases[] = {
      {" --engine model", "--engine model: prefix: the compiled model cannot generate this kernel's records yet: "
                          "block 1: reads %ctaid on a grid 17 wide and 2 tall (the model has %ctaid for grids at most 16 "
                          "wide, or one row). "
                          "Use --engine interp, or --check to compare the state the model holds with the interpreter's "
                          "for any kernel",
       "--grid 17,2 --arg 'x=[1,2,3,4,5,6]' --arg 'out=[0,0,0,0,0,0,0,0]' --arg n=6"},
      {" --check --rounding bf16", "--rounding bf16: expected llama or transformers"},
      {" --engine gpu", "--engine gpu: expected interp or model"},
      {" --dtype f64", "--dtype f64: expected f32, bf16 or f16"},
      {" --dump=asm", "--dump=asm: expected ptx, ir, alloc or blocks"},
      {" --kernel scan", cu.path.string() + " has no kernel 'scan' (kernels: prefix); a template kernel is "
                                            "named with its arguments, --kernel 'NAME<int,16>'"},
  };
  for (const Case& c : cases) {
    Result r = qgpu(run(c.args + c.options));
    EXPECT_EQ(r.status, 1) << c.options;
    EXPECT_EQ(r.out, "") << c.options;
    EXPECT_EQ(r.err, "qgpu: error: " + c.err + "\n") << c.options;
  }
  Result missing = qgpu(run("--arg 'x=[1]' --arg 'out=[0]'"));
  EXPECT_EQ(missing.status, 1);
  EXPECT_EQ(missing.err, "qgpu: error: kernel parameter 'n' needs a value: --arg n=N\n");
}

// --check runs on the GPU-only model, constructed in memory at start: nothing is read from
// or written to the cache directory (an unwritable one is no obstacle); the teacher-forced
// comparison is reported; a named model that is not there is one error.
// Scalar parameters are inputs the GPU computes with (issue 25): `out[0] = a + b` is an
// add step the model generates, reading a and b from their memory words; the 12 appears in
// no instruction of the program.
// An unsigned array is printed unsigned, in the text and in --json; an int array signed;
// an unsigned argument may be written either way.
TEST(CompileCliParams, UnsignedArraysPrintUnsigned) {
  TempFile cu{R"(#include <stdint.h>
__global__ void k(const unsigned *a, unsigned int *out, int *s, uint32_t u) {
  out[threadIdx.x] = a[threadIdx.x] * 2u + u;
  s[threadIdx.x] = (int)out[threadIdx.x];
})", ".cu"};
  const std::string args = "run '" + cu.path.string() +
                           "' --grid 1 --block 2 --arg 'a=[3000000000,-5]' --arg 'out=[0,0]' --arg 's=[0,0]' --arg u=4000000000";
  Result text = qgpu(args);
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("  a = 3000000000 4294967291\n"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("  out = 1410065408 3999999990\n"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("  s = 1410065408 -294967306\n"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("  u = 4000000000\n"), std::string::npos) << text.out;
  Result j = qgpu(args + " --json");
  ASSERT_EQ(j.status, 0) << j.err;
  EXPECT_EQ(json::parse(j.out)["outputs"]["out"], json::parse("[1410065408, 3999999990]"));
  EXPECT_EQ(json::parse(j.out)["outputs"]["s"], json::parse("[1410065408, -294967306]"));
}

TEST(CompileCliParams, AddOfTwoScalarsIsAStepInTheModelsRecords) {
  TempFile cu{R"(extern "C" __global__ void add2(int *out, int a, int b) { out[0] = a + b; })", ".cu"};
  const std::string args = "run '" + cu.path.string() + "' --grid 1 --block 1 --arg 'out=[0]' --arg a=5 --arg b=7";
  Result blocks = qgpu(args + " --dump=blocks");
  ASSERT_EQ(blocks.status, 0) << blocks.err;
  Program p = assemble(blocks.out, "add2.qasm");
  int add = -1, loads = 0;
  for (size_t i = 0; i < p.code.size(); ++i) {
    EXPECT_NE(p.code[i].imm, 12) << instr_text(p.code[i]);
    if (p.code[i].op == Op::kAdd) add = static_cast<int>(i);
    loads += p.code[i].op == Op::kLd;
  }
  ASSERT_GE(add, 0) << blocks.out;
  EXPECT_EQ(loads, 2) << blocks.out;
  Result r = qgpu(args + " --engine model --dtype bf16 --json --trace");
  ASSERT_EQ(r.status, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["outputs"]["out"], json::parse("[12]"));
  bool stepped = false;
  for (const json& rec : j["records"]) stepped |= rec.get<std::string>().rfind(fmt::format("sched w0 b{} ", add), 0) == 0;
  EXPECT_TRUE(stepped) << j["records"].dump();
}

TEST_F(CompileCli, CheckComparesTheModelWithTheInterpreter) {
  test_util::TempDir cache;
  std::filesystem::permissions(cache.path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
  const std::string env = "QGPU_CACHE_DIR='" + cache.path.string() + "/none' HOME='" + cache.path.string() + "' ";
  Result r = test_util::qgpu_env(env, run(kArgs + " --check --json --dtype bf16"));
  ASSERT_EQ(r.status, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["equal"], true);
  EXPECT_GT(j["tokens"].get<int>(), j["prompt_tokens"].get<int>());
  EXPECT_TRUE(std::filesystem::is_empty(cache.path));
  std::filesystem::permissions(cache.path, std::filesystem::perms::owner_all);
  Result missing = qgpu(run(kArgs + " --check --model /nonexistent/qgpu-model"));
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.err.find("/nonexistent/qgpu-model"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace qgpu
