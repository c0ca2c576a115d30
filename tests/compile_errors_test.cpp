// What the compiler rejects, and exactly what it says: every unsupported construct of
// ptx.md §6 (floats, 64-bit values, local memory and -O0, 8/16-bit data, vectors, warp
// intrinsics, printf), the machine's limits (registers, memory words, ROM blocks), the
// launch arguments and kernel choice, and the clang driver. A diagnostic points at the CUDA
// line behind the PTX instruction (clang's .loc directives): "FILE.cu:LINE:COL: message",
// the CUDA line (tabs shown as spaces) and a caret, then "PTX line N (see --dump=ptx): " and
// the instruction; where no .loc names a line of the file (hand-written PTX), "PTX line N
// (see --dump=ptx): message", the PTX line and a caret. All problems of a kernel come in one
// error. For clang's PTX the expected PTX lines and columns are found in the PTX itself
// (the CUDA line is the test's), so the tests do not depend on the clang version.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "base/error.h"
#include "compiler/clang_driver.h"
#include "compiler/compile.h"
#include "compiler/ptx_ops.h"

namespace qgpu {
namespace {

namespace fs = std::filesystem;

struct TempCu {
  fs::path path;
  explicit TempCu(std::string_view source) {
    std::string pattern = (fs::temp_directory_path() / "qgpu_compile_errors_XXXXXX.cu").string();
    int fd = mkstemps(pattern.data(), 3);
    EXPECT_GE(fd, 0);
    close(fd);
    path = pattern;
    std::ofstream(path) << source;
  }
  ~TempCu() { fs::remove(path); }
};

CompileOptions options(std::string file, const std::vector<std::string>& args, std::string kernel = "") {
  CompileOptions o{.file = std::move(file), .kernel = std::move(kernel)};
  for (const std::string& a : args) o.args.push_back(parse_kernel_arg(a));
  return o;
}

// The message f throws, or "no error".
template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

std::string ptx_error(std::string_view ptx, std::string_view source, const CompileOptions& o) {
  return error_of([&] { compile_ptx(ptx, source, o); });
}

// A CUDA kernel compiled with clang: its PTX and the error compiling it gives.
struct CudaResult {
  std::string file, source, ptx, error = "no error";
};

CudaResult compile_error(std::string_view source, const std::vector<std::string>& args,
                         const std::string& opt = "-Os", const std::string& kernel = "") {
  TempCu cu(source);
  CudaResult r{cu.path.string(), std::string(source)};
  CompileOptions o = options(r.file, args, kernel);
  o.opt_level = opt;
  r.ptx = compile_to_ptx(r.file, opt);
  r.error = error_of([&] { compile_cuda(source, o); });
  return r;
}

// The diagnostic at a PTX line no .loc maps to the CUDA file, spelled out: the PTX line,
// the message, the line and a caret under col.
std::string diag(int line, int col, const std::string& message, std::string src) {
  std::replace(src.begin(), src.end(), '\t', ' ');
  return fmt::format("PTX line {} (see --dump=ptx): {}\n  {}\n  {}^", line, message, src, std::string(col - 1, ' '));
}

// The diagnostic at CUDA line:col (col 0: the line only), behind PTX line ptx_line (text
// `instr`, its blanks collapsed).
std::string cuda_diag(const std::string& file, const std::string& source_line, int line, int col,
                      const std::string& message, int ptx_line, const std::string& instr) {
  const std::string where = col > 0 ? fmt::format("{}:{}:{}: {}\n  {}\n  {}^", file, line, col, message, source_line,
                                                  std::string(col - 1, ' '))
                                    : fmt::format("{}:{}: {}\n  {}", file, line, message, source_line);
  return fmt::format("{}\n  PTX line {} (see --dump=ptx): {}", where, ptx_line, instr);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The words of a line, split at blanks.
std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// One expected diagnostic per PTX instruction line starting with `opcode` (after the
// indent), at CUDA line `cuda_line`: the line of the `.loc` before it, whose column it
// takes: (PTX line, text).
using Diags = std::vector<std::pair<int, std::string>>;

void expect_at(Diags& out, const CudaResult& r, const std::string& opcode, const std::string& message, int cuda_line) {
  const std::vector<std::string> lines = lines_of(r.ptx), source = lines_of(r.source);
  int found = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::vector<std::string> w = words(lines[i]);
    if (w.empty() || !w[0].starts_with(opcode)) continue;
    size_t loc = i;
    while (loc > 0 && !lines[loc - 1].starts_with("\t.loc\t")) --loc;
    ASSERT_GT(loc, 0u) << "no .loc before PTX line " << i + 1 << " in\n" << r.ptx;
    const std::vector<std::string> l = words(lines[loc - 1]);  // .loc FILE LINE COL
    EXPECT_NE(r.ptx.find(fmt::format(".file\t{} \"{}\"", l[1], r.file)), std::string::npos) << lines[loc - 1];
    EXPECT_EQ(std::stoi(l[2]), cuda_line) << lines[loc - 1];
    std::string instr;
    for (const std::string& x : w) instr += (instr.empty() ? "" : " ") + x;
    out.emplace_back(i + 1, cuda_diag(r.file, source.at(cuda_line - 1), cuda_line, std::stoi(l[3]), message,
                                      static_cast<int>(i + 1), instr));
    ++found;
  }
  EXPECT_GT(found, 0) << "no '" << opcode << "' in\n" << r.ptx;
}

std::string joined(Diags d) {
  std::stable_sort(d.begin(), d.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string out;
  for (const auto& [line, text] : d) out += (out.empty() ? "" : "\n") + text;
  return out;
}

std::string unsupported(const std::string& opcode, const std::string& why) {
  return fmt::format("unsupported instruction '{}': {}", opcode, why);
}

const std::string kApprox = "approximate float ops (fast math: -ffast-math, __fdividef, __expf, __sinf, rsqrtf) are "
                            "not supported: PTX does not define their results bit for bit; compile without fast math";
const std::string kOptLevelZero =
    "at -O0 clang keeps every variable in a stack of 64-bit words, which the machine cannot hold: compile at -Os "
    "(the default) or -O1, -O2, -O3, -Oz";
const std::string kMem64 = "a 64-bit store of a value computed in 64 bits (a long long, or a pointer stored in "
                           "memory) is not supported; a 64-bit copy of loaded data is";
const std::string kWarp = "the warp functions without _sync (__shfl, __ballot, __any, __all) are not supported: use "
                          "__shfl_sync, __ballot_sync, __any_sync, __all_sync";
const std::string kShr64 =
    "a 64-bit shift right is supported only by a constant; long long arithmetic is not supported";
std::string breaks64(const std::string& what) {
  return what + " on 64-bit values is not supported (long long arithmetic; addresses are fine)";
}

// ---- Hand-written PTX: one line per construct, every diagnostic checked in full.

// A kernel k(out, x) whose body is `lines` (4-space indent), starting at line kFirstLine.
constexpr std::string_view kHead = R"(.version 6.3
.target sm_75
.address_size 64

.visible .entry k(
    .param .u64 k_param_0,
    .param .u32 k_param_1
)
{
    .reg .pred %p<8>;
    .reg .b32 %r<16>;
    .reg .f32 %f<24>;
    .reg .b64 %rd<16>;
    .reg .b16 %rs<8>;
    .shared .align 4 .b8 sf[16];

    ld.param.u64 %rd1, [k_param_0];
    cvta.to.global.u64 %rd2, %rd1;
    ld.param.u32 %r1, [k_param_1];
    mov.u32 %r2, %tid.x;
)";
constexpr int kFirstLine = 21;
constexpr std::string_view kSignature = "extern \"C\" __global__ void k(int *out, int x);";

struct Rejected {
  std::string line;     // the PTX instruction
  std::string message;  // its diagnostic; the caret goes under `at`, or the opcode
  std::string at;
};

// Compiles the lines and checks the one error lists each rejected line, in order.
void expect_rejected(const std::vector<std::string>& lines, const std::vector<Rejected>& want,
                     const std::vector<std::string>& trailing = {}) {
  std::string ptx(kHead);
  for (const std::string& l : lines) ptx += "    " + l + "\n";
  ptx += "    ret;\n}\n";
  std::vector<std::string> expected;
  for (const Rejected& r : want) {
    auto it = std::find(lines.begin(), lines.end(), r.line);
    ASSERT_NE(it, lines.end()) << r.line;
    int line = kFirstLine + static_cast<int>(it - lines.begin());
    int col = 5 + static_cast<int>(r.at.empty() ? 0 : r.line.find(r.at));
    expected.push_back(diag(line, col, r.message, "    " + r.line));
  }
  expected.insert(expected.end(), trailing.begin(), trailing.end());
  std::string all;
  for (const std::string& e : expected) all += (all.empty() ? "" : "\n") + e;
  EXPECT_EQ(ptx_error(ptx, kSignature, options("k.cu", {"out=[0,0,0,0]", "x=1"})), all);
}

// Every float instruction clang emits without fast math compiles (the machine's binary32
// ops); what is left is refused with one line each: doubles, half precision, flush to
// zero, approximate ops, other roundings, saturation and float atomics.
TEST(CompileErrors, FloatsTheMachineLacks) {
  const std::vector<std::string> compiled = {
      "ld.param.f32 %f1, [k_param_1];",   "ld.global.f32 %f2, [%rd2];",
      "add.f32 %f3, %f1, %f2;",           "sub.f32 %f4, %f3, %f1;",
      "mul.f32 %f5, %f4, %f2;",           "neg.f32 %f6, %f5;",
      "min.f32 %f7, %f6, %f1;",           "max.f32 %f8, %f7, %f1;",
      "fma.rn.f32 %f9, %f8, %f2, %f1;",   "div.rn.f32 %f10, %f9, %f2;",
      "sqrt.rn.f32 %f11, %f10;",          "add.rn.f32 %f12, %f11, %f1;",
      "sub.rn.f32 %f13, %f12, %f1;",      "mul.rn.f32 %f14, %f13, %f1;",
      "mov.f32 %f15, 0f3FC00000;",        "setp.lt.f32 %p1, %f15, %f1;",
      "setp.leu.f32 %p2, %f15, %f1;",     "setp.nan.f32 %p3, %f15, %f1;",
      "setp.num.f32 %p4, %f15, %f15;",    "selp.f32 %f16, %f15, %f1, %p1;",
      "st.shared.f32 [sf], %f16;",        "ld.shared.f32 %f18, [sf+4];",
      "st.global.f32 [%rd2], %f18;",      "rcp.rn.f32 %f19, %f18;",
      "cvt.rn.f32.s32 %f17, %r1;",        "cvt.rzi.s32.f32 %r3, %f17;",
      "cvt.rmi.u32.f32 %r5, %f17;",       "cvt.rpi.f32.f32 %f20, %f17;",
      "mov.b32 %r4, %f16;",               "abs.f32 %f21, %f19;",
  };
  const std::vector<Rejected> lacking = {
      {"add.ftz.f32 %f3, %f1, %f2;", unsupported("add.ftz.f32", "flush-to-zero floats (-fgpu-flush-denormals-to-zero, "
                                     "-ffast-math, --use_fast_math) are not supported: the machine keeps subnormals")},
      {"div.approx.f32 %f4, %f1, %f2;", unsupported("div.approx.f32", kApprox)},
      {"div.full.f32 %f4, %f1, %f2;", unsupported("div.full.f32", kApprox)},
      {"sqrt.approx.f32 %f5, %f1;", unsupported("sqrt.approx.f32", kApprox)},
      {"ex2.approx.f32 %f6, %f1;", unsupported("ex2.approx.f32", kApprox)},
      {"add.rz.f32 %f7, %f1, %f2;", unsupported("add.rz.f32", "float ops rounded other than to nearest even "
                                                             "(__fadd_rz, __fmul_ru, ...) are not supported")},
      {"add.sat.f32 %f8, %f1, %f2;", unsupported("add.sat.f32", "saturating float ops (__saturatef, __fadd_rz with "
                                                               ".sat) are not supported")},
      {"mad.f32 %f9, %f1, %f2, %f1;", unsupported("mad.f32", "mad.f32 without .rn (an unfused multiply-add) is not "
                                                           "supported")},
      {"atom.global.add.f32 %f10, [%rd2], %f1;", unsupported("atom.global.add.f32", "atomics on floats (atomicAdd "
                                                                                 "on a float) are not supported")},
      {"cvt.rz.f32.s32 %f11, %r1;", unsupported("cvt.rz.f32.s32", "int to float conversions rounded other than to "
                                                                 "nearest even are not supported")},
      {"cvt.rn.f32.s64 %f12, %rd1;", unsupported("cvt.rn.f32.s64", "conversions between float and 64-bit, 8-bit or "
                                                 "16-bit integers (long long, short, char) are not supported")},
      {"cvt.f64.f32 %rd3, %f1;", unsupported("cvt.f64.f32", std::string(kNoDouble))},
      {"add.f64 %rd4, %rd1, %rd1;", unsupported("add.f64", std::string(kNoDouble))},
      {"cvt.rn.f16.f32 %r6, %f1;", unsupported("cvt.rn.f16.f32", "half precision (__half, __nv_bfloat16) is not "
                                                               "supported")},
  };
  std::vector<std::string> lines = compiled;
  for (const Rejected& r : lacking) lines.push_back(r.line);
  expect_rejected(lines, lacking);
  // The double constant: its own message, the caret under it.
  expect_rejected({"mov.f32 %f1, 0d3FF8000000000000;"},
                  {{"mov.f32 %f1, 0d3FF8000000000000;",
                    fmt::format("a double constant (0d3FF8000000000000): {}", kNoDouble), "0d3FF8"}});
}

TEST(CompileErrors, SixtyFourBitValues) {
  std::vector<std::string> lines = {
      "cvt.u64.u32 %rd3, %r1;",         "setp.lt.s64 %p1, %rd3, %rd2;", "div.s64 %rd4, %rd3, %rd2;",
      "div.u64 %rd5, %rd3, %rd2;",      "rem.u64 %rd6, %rd3, %rd2;",    "min.s64 %rd7, %rd3, %rd2;",
      "mul.hi.u64 %rd8, %rd3, %rd2;",   "abs.s64 %rd9, %rd3;",          "shr.u64 %rd10, %rd2, 3;",
      "shr.s64 %rd11, %rd3, %r1;",      "ld.global.u64 %rd12, [%rd2];", "st.global.u64 [%rd2], %rd7;",
      "mul.wide.u32 %rd13, %r2, %r1;",  "add.s64 %rd13, %rd13, 1;",     "shr.u64 %rd14, %rd13, 33;",
  };
  std::vector<Rejected> want = {
      {lines[2], unsupported("div.s64", breaks64("division"))},
      {lines[3], unsupported("div.u64", breaks64("division"))},
      {lines[4], unsupported("rem.u64", breaks64("remainder"))},
      {lines[5], unsupported("min.s64", breaks64("min/max"))},
      {lines[6], unsupported("mul.hi.u64", breaks64("mul.hi"))},
      {lines[7], unsupported("abs.s64", breaks64("abs"))},
      {lines[9], unsupported("shr.s64", kShr64)},   // by a variable
      {lines[11], unsupported("st.global.u64", kMem64)},  // min's result: no known high half
  };
  // The compare of a widened int with a pointer is exact: the kernel is lowered again with
  // every 64-bit value's high half (lower_wide.cpp), which also makes the shifts of a pointer
  // and of a product assigned twice exact; the rest stays refused.
  expect_rejected(lines, want);
}

TEST(CompileErrors, WarpIntrinsicsAndOtherMissingOps) {
  std::vector<std::string> lines = {
      "setp.gt.u32 %p1, %r2, 1;",
      "vote.ballot.b32 %r3, %p1;",
      "vote.sync.any.pred %p2, %p1, -1;",
      "shfl.idx.b32 %r4, %r2, 0, 31;",
      "shfl.sync.down.b32 %r5, %r2, 1, 31, -1;",
      "activemask.b32 %r6;",
      "mov.u32 %r7, %clock;",
      "ld.global.v2.u32 {%r8, %r9}, [%rd2];",
      "ld.global.u8 %r10, [%rd2];",
      "st.global.u16 [%rd2], %r2;",
      "st.local.u32 [%rd2], %r2;",  // a local array's element: compiles
      "mad.hi.u32 %r11, %r2, %r2, %r1;",
  };
  std::vector<Rejected> want = {
      {lines[1], unsupported("vote.ballot.b32", kWarp)},  // the .sync forms on lines 2, 4, 5 compile
      {lines[3], unsupported("shfl.idx.b32", kWarp)},
      {lines[6], "special register %clock is not supported (clocks and other hardware counters)", "%clock"},
      {lines[11], unsupported("mad.hi.u32", "mad.hi (the high half of a product, plus a value) is not "
                                            "supported")},
  };
  expect_rejected(lines, want);
}

// The whole text of a small case, written out: two problems reported together.
TEST(CompileErrors, SeveralProblemsInOneMessage) {
  std::string ptx(kHead);
  ptx += "    add.f64 %rd1, %rd2, %rd3;\n\tdiv.s64 %rd3, %rd2, 4;\n    ret;\n}\n";
  EXPECT_EQ(ptx_error(ptx, kSignature, options("k.cu", {"out=[0]", "x=1"})),
            "PTX line 21 (see --dump=ptx): unsupported instruction 'add.f64': double is not supported: the "
            "machine's floating point is binary32 (write float, 1.5f, sqrtf)\n"
            "      add.f64 %rd1, %rd2, %rd3;\n"
            "      ^\n"
            "PTX line 22 (see --dump=ptx): unsupported instruction 'div.s64': division on 64-bit values is not "
            "supported (long long arithmetic; addresses are fine)\n"
            "   div.s64 %rd3, %rd2, 4;\n"
            "   ^");
}

// The line directives clang writes with -gline-directives-only, by hand: a `.loc` of the
// compiled file gives the CUDA line and column (0: the line only); one of another file (a
// header) or of line 0 (code clang gives no line) leaves the PTX line. The directives and
// the empty .debug_loc section are not instructions: the kernel parses as without them.
TEST(CompileErrors, LineDirectivesPointAtTheCudaLine) {
  std::string ptx(kHead);
  for (const char* line : {"\t.loc\t1 3 17", "    add.f64 %rd1, %rd2, %rd3;", "\t.loc\t2 10 3", "    add.f64 %rd4, %rd2, %rd3;",
                           "\t.loc\t1 0 0", "    add.f64 %rd5, %rd2, %rd3;", "\t.loc\t1 2 0", "    add.f64 %rd6,  %rd2, %rd3;",
                           "    ret;", "}", "\t.section\t.debug_loc\t{\t}", "\t.file\t1 \"k.cu\"",
                           "\t.file\t2 \"/usr/include/header.h\""})
    ptx += std::string(line) + "\n";
  const std::string source = "extern \"C\" __global__ void k(int *out, int x) {\n  double d = x;\n\tout[0] = (int)(d + d);\n}\n";
  const std::string why = unsupported("add.f64", std::string(kNoDouble));
  EXPECT_EQ(ptx_error(ptx, source, options("k.cu", {"out=[0]", "x=1"})),
            "k.cu:3:17: " + why + "\n"
            "   out[0] = (int)(d + d);\n"
            "                  ^\n"
            "  PTX line 22 (see --dump=ptx): add.f64 %rd1, %rd2, %rd3;\n" +
            diag(24, 5, why, "    add.f64 %rd4, %rd2, %rd3;") + "\n" +
            diag(26, 5, why, "    add.f64 %rd5, %rd2, %rd3;") + "\n"
            "k.cu:2: " + why + "\n"
            "    double d = x;\n"
            "  PTX line 28 (see --dump=ptx): add.f64 %rd6, %rd2, %rd3;");
  // Without the rejected lines the same text compiles: the directives are not the parser's.
  std::string fine(kHead);
  fine += "\t.loc\t1 3 17\n    st.global.u32 [%rd2], %r2;\n    ret;\n}\n\t.section\t.debug_loc\t{\t}\n\t.file\t1 \"k.cu\"\n";
  EXPECT_EQ(ptx_error(fine, source, options("k.cu", {"out=[0]", "x=1"})), "no error");
  // A syntax error (PTX the parser does not know) names the PTX line the same way.
  EXPECT_EQ(ptx_error(std::string(kHead) + "    .bogus 1;\n    ret;\n}\n", source, options("k.cu", {"out=[0]", "x=1"})),
            diag(21, 5, "unknown directive '.bogus'", "    .bogus 1;"));
}

// ---- CUDA kernels through clang: the diagnostics point at the CUDA line behind clang's PTX.

// A double, which clang accepts and the machine lacks: each of its three instructions is
// named at the CUDA line and column clang gives it (not at a file FILE.cu.ptx, which does
// not exist), with its PTX line.
TEST(CompileErrors, DoubleKernelPointsAtTheCudaLine) {
  CudaResult r = compile_error(R"(extern "C" __global__ void k(double* a){ a[threadIdx.x] *= 2.0; }
)", {"a=[1,2,3,4]"});
  Diags want;
  for (const char* op : {"ld.global.f64", "add.f64", "st.global.f64"})
    expect_at(want, r, op, unsupported(op, std::string(kNoDouble)), 1);
  EXPECT_EQ(r.error, joined(want));
  EXPECT_TRUE(r.error.starts_with(r.file + ":1:57: unsupported instruction 'ld.global.f64'")) << r.error;  // at *=
  EXPECT_EQ(r.error.find(".ptx"), std::string::npos) << r.error;
}

// A float kernel that needs what the machine lacks: fast math's approximate division.
TEST(CompileErrors, FastMathKernel) {
  CudaResult r = compile_error(R"(
extern "C" __global__ void ratio(float *y, const float *x, int n) {
  int i = threadIdx.x;
  if (i < n) y[i] = __nvvm_div_approx_f(x[i], y[i]);
}
)", {"y=[1,2,3,4]", "x=[1,2,3,4]", "n=4"});
  Diags want;
  expect_at(want, r, "div.approx.f32", unsupported("div.approx.f32", kApprox), 4);
  EXPECT_EQ(r.error, joined(want));
}

TEST(CompileErrors, LongLongKernel) {
  CudaResult r = compile_error(R"(
extern "C" __global__ void lldiv(long long *a, long long d, int *out) {
  int t = threadIdx.x;
  out[t] = (int)(a[t] / d) + (a[t] < d);
}
)", {"a=[1,2,3,4,5,6,7,8]", "d=3", "out=[0,0,0,0]"});
  Diags want;
  expect_at(want, r, "div.s64", unsupported("div.s64", breaks64("division")), 4);  // a[t] < d is exact
  EXPECT_EQ(r.error, joined(want));
}

// 8- and 16-bit operations the machine has no form for are named (a 16-bit high product).
TEST(CompileErrors, SixteenBitOpsWithoutAForm) {
  expect_rejected({"mad.hi.s16 %rs3, %rs1, %rs2, %rs1;"},
                  {{"mad.hi.s16 %rs3, %rs1, %rs2, %rs1;", "unsupported instruction 'mad.hi.s16': a 16-bit mad.hi is not supported"}});
}

TEST(CompileErrors, WarpIntrinsicsWithoutSync) {
  CudaResult r = compile_error(R"(
extern "C" __global__ void warp(int *out) {
  int t = threadIdx.x;
  out[t] = __nvvm_vote_ballot(t > 1) + __nvvm_shfl_idx_i32(t, 0, 31);
}
)", {"out=[0,0,0,0]"});
  Diags want;
  for (const char* op : {"vote.ballot.b32", "shfl.idx.b32"}) expect_at(want, r, op, unsupported(op, kWarp), 4);
  EXPECT_EQ(r.error, joined(want));
}

// A local array indexed by a variable lives in .local memory, even at -Os.
TEST(CompileErrors, LocalArray) {
  CudaResult r = compile_error(R"(
extern "C" __global__ void local_array(int *out, int k) {
  int a[8];
  for (int i = 0; i < 8; i++) a[i] = out[i] * 3;
  out[threadIdx.x] = a[(threadIdx.x + k) & 7];
}
)", {"out=[1,2,3,4,5,6,7,8]", "k=1"});
  // A local array has a copy per lane of the machine (16): 8 words each pass its memory.
  EXPECT_EQ(r.error, "the kernel's memory needs 137 words (out 8, local array 8 x 16 lanes, k 1); global memory "
                     "has 126 (11 too many): use smaller arrays, or larger CUDA blocks (fewer __shared__ copies)");
}

// -O0 keeps every variable in a .local stack and uses generic 64-bit loads and stores.
TEST(CompileErrors, OptLevelZero) {
  CudaResult r = compile_error(R"(
extern "C" __global__ void vecadd(const int *a, int *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + 1;
}
)", {"a=[1,2,3,4]", "c=[0,0,0,0]", "n=4"}, "-O0");
  Diags want;
  expect_at(want, r, "st.u64", unsupported("st.u64", kMem64), 2);  // pointers kept on the stack: at entry
  EXPECT_EQ(r.error, joined(want) + "\n" + kOptLevelZero);
  EXPECT_NE(r.error.find("-O0"), std::string::npos);
}

TEST(CompileErrors, Printf) {
  CudaResult r = compile_error(R"(
extern "C" __device__ int printf(const char *, ...);
extern "C" __global__ void hello(int *out) {
  printf("t=%d\n", (int)threadIdx.x);
  out[threadIdx.x] = 1;
}
)", {"out=[0,0,0,0]"});
  Diags want;  // its arguments' local buffer is placed like a local array; the call is the problem
  expect_at(want, r, "call.uni", unsupported("call.uni", "'vprintf' has no body here (printf, malloc and "
                                                         "other library calls are not supported)"), 4);
  EXPECT_EQ(r.error, joined(want));
}

// ---- The machine's limits: kRegs registers, 4 predicates, 126 words, 256 ROM blocks.

// `n` values loaded from out[], all live across a barrier, then stored back reversed.
std::string many_live_values(int n) {
  std::string ptx = R"(.version 6.3
.target sm_75
.address_size 64

.visible .entry k(
    .param .u64 k_param_0,
    .param .u32 k_param_1
)
{
    .reg .b32 %r<40>;

)";
  for (int i = 0; i < n; ++i) ptx += fmt::format("    ld.global.u32 %r{}, [{}];\n", i + 1, 4 * i);
  ptx += "    bar.sync 0;\n";
  for (int i = 0; i < n; ++i) ptx += fmt::format("    st.global.u32 [{}], %r{};\n", 4 * (n - 1 - i), i + 1);
  return ptx + "    ret;\n}\n";
}

// "%r1 %r2 .. %rn", as the register error lists the live values.
std::string live_list(int n) {
  std::string out;
  for (int i = 1; i <= n; ++i) out += fmt::format("{}%r{}", i > 1 ? " " : "", i);
  return out;
}

// Past kRegs live values the allocator spills to memory words of their own (16 a value), so
// the limit is the registers and the free memory together: here `out` leaves 13 words.
TEST(CompileLimits, TooManyRegisters) {
  static_assert(kRegs + 5 < 40);  // many_live_values' %r<40>
  std::string out = "out=[0";
  for (int i = 1; i < 112; ++i) out += ",0";
  CompileOptions o = options("k.cu", {out + "]", "x=0"});
  EXPECT_EQ(compile_ptx(many_live_values(kRegs), kSignature, o).allocated.spill_words, 0);
  // kRegs + 1 live after that load (PTX line 12 + kRegs)
  EXPECT_EQ(ptx_error(many_live_values(kRegs + 1), kSignature, o),
            fmt::format("the kernel needs more than {} registers (PTX line {}: {} live: {}) and a spilled value needs 16 "
                        "free memory words (13 are free); simplify the kernel, use smaller arrays, or split it into "
                        "several launches",
                        kRegs, 12 + kRegs, kRegs + 1, live_list(kRegs + 1)));
  // kRegs + 5 live need at least 5 spills; 45 free words hold 2.
  std::string out80 = "out=[0";
  for (int i = 1; i < 80; ++i) out80 += ",0";
  EXPECT_EQ(ptx_error(many_live_values(kRegs + 5), kSignature, options("k.cu", {out80 + "]", "x=0"})),
            fmt::format("the kernel needs more than {} registers (PTX line {}: {} live: {}) and memory has room for 2 "
                        "spilled values of the 5 it needs (16 words each); simplify the kernel, use smaller arrays, or "
                        "split it into several launches",
                        kRegs, 16 + kRegs, kRegs + 5, live_list(kRegs + 5)));
  // With more words free, values go to memory (two here: where the first is loaded back, the
  // other kRegs are still live).
  CompileOptions roomy = options("k.cu", {"out=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]", "x=0"});
  EXPECT_EQ(compile_ptx(many_live_values(kRegs + 1), kSignature, roomy).allocated.spill_words, 32);
}

TEST(CompileLimits, TooManyRegistersFromCuda) {
  const int n = kRegs + 5;
  std::string v = "a=[0", load, store;
  for (int i = 1; i < 120; ++i) v += fmt::format(",{}", i);  // 6 words free: no value can spill
  for (int i = 0; i < n; ++i) load += fmt::format("  int v{} = a[{}];\n", i, i);
  for (int i = 0; i < n; ++i) store += fmt::format("  a[{}] = v{};\n", n - 1 - i, i);
  std::string src =
      "extern \"C\" __global__ void regs(int *a) {\n" + load + "  __syncthreads();\n" + store + "}\n";
  CudaResult r = compile_error(src, {v + "]"});
  std::smatch m;
  std::regex message(fmt::format("the kernel needs more than {} registers \\(PTX line (\\d+): (\\d+) live:( %r\\d+)+\\) "
                                 "and a spilled value needs 16 free memory words \\(6 are free\\); simplify the kernel, "
                                 "use smaller arrays, or split it into several launches",
                                 kRegs));
  ASSERT_TRUE(std::regex_match(r.error, m, message)) << r.error;
  EXPECT_GE(std::stoi(m[2]), kRegs + 1);
}

TEST(CompileLimits, TooManyPredicates) {
  std::string ptx(kHead);
  for (int i = 1; i <= 5; ++i) ptx += fmt::format("    setp.ne.s32 %p{}, %r2, {};\n", i, i);
  for (int i = 1; i <= 5; ++i)
    ptx += fmt::format("    selp.u32 %r{}, 1, 0, %p{};\n    st.global.u32 [{}], %r{};\n", i + 2, i, 4 * i, i + 2);
  ptx += "    ret;\n}\n";
  EXPECT_EQ(ptx_error(ptx, kSignature, options("k.cu", {"out=[0,0,0,0,0,0]", "x=1"})),
            "the kernel needs more than 4 predicates (PTX line 25: 5 live: %p1 %p2 %p3 %p4 %p5); simplify the "
            "kernel, or split it into several launches");
}

TEST(CompileLimits, TooMuchMemory) {
  std::string ptx = std::string(kHead) + "    ret;\n}\n";
  auto with_table = [&](int bytes) {
    size_t entry = ptx.find(".visible");
    std::string table = fmt::format(".visible .global .align 4 .b8 table[{}];\n", bytes);
    return ptx.substr(0, entry) + table + ptx.substr(entry);
  };
  std::string out = "out=[0";
  for (int i = 1; i < 99; ++i) out += ",0";
  CompileOptions o = options("k.cu", {out + "]", "x=1"});
  // out 99 + table 10 + 4 copies of sf (4 words each) + the scalar x = 126: full
  EXPECT_EQ(ptx_error(with_table(40), kSignature, o), "no error");
  EXPECT_EQ(ptx_error(with_table(41), kSignature, o),
            "the kernel's memory needs 127 words (out 99, table 11, __shared__ sf 4 x 4 copies, x 1); global memory "
            "has 126 (1 too many): use smaller arrays, or larger CUDA blocks (fewer __shared__ copies)");
}

// Four resident CUDA blocks of 4 threads: four copies of the __shared__ array.
TEST(CompileLimits, TooMuchMemoryWithSharedCopies) {
  std::string x = "x=[0", out = "out=[0";
  for (int i = 1; i < 52; ++i) x += ",0", out += ",0";
  CudaResult r = compile_error(R"(
extern "C" __global__ void rev(const int *x, int *out) {
  __shared__ int s[6];
  s[threadIdx.x] = x[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = s[3 - threadIdx.x];
}
)", {x + "]", out + "]"});
  EXPECT_EQ(r.error, "the kernel's memory needs 128 words (x 52, out 52, __shared__ s 6 x 4 copies); "
                     "global memory has 126 (2 too many): use smaller arrays, or larger CUDA blocks (fewer "
                     "__shared__ copies)");
}

TEST(CompileLimits, TooManyBlocks) {
  std::string a = "a=[1";
  for (int i = 2; i <= 100; ++i) a += fmt::format(",{}", i);
  CudaResult r = compile_error(R"(
extern "C" __global__ void unrolled(int *a) {
#pragma unroll
  for (int i = 0; i < 100; i++) a[i] += threadIdx.x;
}
)", {a + "]"});
  std::smatch m;
  ASSERT_TRUE(std::regex_match(r.error, m, std::regex("the compiled kernel does not fit the machine:\n"
                                                      "the program has (\\d+) blocks; the ROM holds 256 "
                                                      "\\((\\d+) too many\\): simplify the kernel or split it "
                                                      "into several launches")))
      << r.error;
  EXPECT_EQ(std::stoi(m[1]) - kBlocks, std::stoi(m[2]));
  EXPECT_GE(std::stoi(m[1]), 300);  // a load, an add and a store for each of the 100
}

// ---- Launch arguments and the kernel's choice.

TEST(CompileArgs, EachArgumentProblem) {
  std::string ptx = std::string(kHead) + "    ret;\n}\n";
  auto error = [&](const std::vector<std::string>& args) {
    return ptx_error(ptx, kSignature, options("k.cu", args));
  };
  EXPECT_EQ(error({"out=[1,2]", "x=3"}), "no error");
  EXPECT_EQ(error({"out=[1,2]"}), "kernel parameter 'x' needs a value: --arg x=N");
  EXPECT_EQ(error({"x=3"}), "kernel parameter 'out' needs a value: --arg out=[...]");
  EXPECT_EQ(error({"out=[1,2]", "x=3", "y=4"}), "--arg y: the kernel has no parameter 'y' (nor a __device__ or __constant__ variable of that name)");
  EXPECT_EQ(error({"out=[1,2]", "x=[3]"}), "--arg x: parameter 'x' is a scalar: give a number");
  EXPECT_EQ(error({"out=5", "x=3"}), "--arg out: parameter 'out' is a pointer: give a list like [1,2,3]");
}

// Values are typed by the parameter: an int takes integers only; a float takes decimals,
// inf, -inf, nan, raw bits, and integers (as floats).
TEST(CompileArgs, ValuesTypedByTheParameter) {
  std::string ptx = std::string(kHead) + "    ret;\n}\n";
  auto error = [&](std::string_view signature, const std::vector<std::string>& args) {
    return ptx_error(ptx, signature, options("k.cu", args));
  };
  const std::string_view ints = kSignature, floats = "extern \"C\" __global__ void k(float *out, float x);";
  EXPECT_EQ(error(ints, {"out=[1,2]", "x=2.5"}), "--arg x: '2.5' is not an integer (parameter 'x' is an int)");
  EXPECT_EQ(error(ints, {"out=[1,nan]", "x=2"}), "--arg out: 'nan' is not an integer (parameter 'out' is an int array)");
  EXPECT_EQ(error(ints, {"out=[1,1e3]", "x=2"}), "--arg out: '1e3' is not an integer (parameter 'out' is an int array)");
  EXPECT_EQ(error(ints, {"out=[1,2]", "x=4294967296"}), "--arg x: 4294967296 does not fit in 32 bits");
  EXPECT_EQ(error(ints, {"out=[1,2]", "x=99999999999999999999"}), "--arg x: 99999999999999999999 does not fit in 32 bits");
  EXPECT_EQ(error(ints, {"out=[1,-0x10000000000000000]", "x=1"}), "--arg out: -0x10000000000000000 does not fit in 32 bits");
  EXPECT_EQ(error(floats, {"out=[4294967296,-2147483904,-0x80000000]", "x=99999999999999999999"}), "no error");
  EXPECT_EQ(error(floats, {"out=[0x100000000]", "x=1"}), "--arg out: 0x100000000 does not fit in 32 bits");
  EXPECT_EQ(error(floats, {"out=[1.5,-0,3e-5,inf,-inf,nan,0f7fc00001,16777217,0x10]", "x=2"}), "no error");
  EXPECT_EQ(error(floats, {"out=[1e39]", "x=2"}),
            "--arg out: '1e39' is not a float (parameter 'out' is a float array): write a decimal like 1.5 or -2e-3, "
            "inf, -inf, nan, or raw bits like 0f3fc00000; the float range is +-3.4028235e+38");
}

TEST(CompileArgs, ArgumentSyntax) {
  auto error = [](std::string_view text) { return error_of([&] { parse_kernel_arg(text); }); };
  EXPECT_EQ(error("x=-0x10"), "no error");
  EXPECT_EQ(error("a=[]"), "no error");
  EXPECT_EQ(error("x"), "--arg 'x': expected NAME=VALUE (a number, or a list like [1,2,-3])");
  EXPECT_EQ(error("x=seven"), "--arg x: 'seven' is not a number (an integer, or for a float parameter a decimal like "
                              "1.5, inf, -inf, nan or raw bits like 0f3fc00000)");
  EXPECT_EQ(error("x=4294967296"), "no error");  // a float's value; an int refuses it (ValuesTypedByTheParameter)
  EXPECT_EQ(error("a=[1,2"), "--arg a: the list must end with ']'");
  EXPECT_EQ(parse_kernel_arg("a=[1, -2,0x10]").values, (std::vector<int64_t>{1, -2, 16}));
  // Found by fuzz/args.cpp: a number past 64 bits threw std::out_of_range out of std::stoll.
  EXPECT_EQ(error("x=99999999999999999999"), "no error");
  EXPECT_EQ(parse_kernel_arg("x=[1, -0x10000000000000000 ]").items, (std::vector<std::string>{"1", "-0x10000000000000000"}));
  EXPECT_EQ(error("x=["), "--arg x: the list must end with ']'");
  EXPECT_EQ(error("x=[1,,2]"), "--arg x: '' is not a number (an integer, or for a float parameter a decimal like "
                                "1.5, inf, -inf, nan or raw bits like 0f3fc00000)");
  EXPECT_EQ(parse_kernel_arg("x=[-2147483648, 4294967295]").values, (std::vector<int64_t>{INT32_MIN, UINT32_MAX}));
  std::string list = "x=[0";
  for (int i = 1; i < 4 * kMemWords; ++i) list += ",0";  // a char array's 4 a word
  EXPECT_EQ(parse_kernel_arg(list + "]").values.size(), size_t{4 * kMemWords});
  EXPECT_EQ(error(list + ",0]"), "--arg x: more than 504 values; the machine's memory holds 126 words in all");
}

TEST(CompileArgs, DimensionSyntax) {
  auto error = [](const std::string& text) { return error_of([&] { parse_dims(text, "grid"); }); };
  EXPECT_EQ(parse_dims("4", "grid"), std::make_pair(4, 1));
  EXPECT_EQ(parse_dims(" 4 , 2 ", "grid"), std::make_pair(4, 2));
  for (const char* bad : {"", "0", "-1", "4,", ",2", "4,2,1", "4x2", "0x", "4,0"})
    EXPECT_EQ(error(bad), fmt::format("--grid '{}': expected X or X,Y with positive integers", bad)) << bad;
  // sscanf's %d had undefined behaviour past INT_MAX.
  EXPECT_EQ(error("2147483648"), "--grid '2147483648': expected X or X,Y with positive integers");
}

constexpr std::string_view kTwoKernels = R"(.version 6.3
.target sm_75
.address_size 64

.visible .entry first(
    .param .u32 first_param_0
)
{
    ret;
}
.visible .entry second(
    .param .u32 second_param_0
)
{
    ret;
}
)";
constexpr std::string_view kTwoSignatures =
    "extern \"C\" __global__ void first(int a) {}\nextern \"C\" __global__ void second(int b) {}\n";

TEST(CompileArgs, ChoosingTheKernel) {
  EXPECT_EQ(ptx_error(kTwoKernels, kTwoSignatures, options("two.cu", {"a=1"})),
            "two.cu has several kernels (first, second): choose one with --kernel NAME");
  EXPECT_EQ(ptx_error(kTwoKernels, kTwoSignatures, options("two.cu", {"a=1"}, "third")),
            "two.cu has no kernel 'third' (kernels: first, second); a template kernel is named with its "
            "arguments, --kernel 'NAME<int,16>'");
  EXPECT_EQ(ptx_error(kTwoKernels, kTwoSignatures, options("two.cu", {"b=1"}, "second")), "no error");
  EXPECT_EQ(ptx_error(kTwoKernels, "void first(int a);", options("two.cu", {"a=1"}, "first")),
            "two.cu: cannot find the parameter list of kernel 'first' in the source");
  EXPECT_EQ(ptx_error(".version 6.3\n.target sm_75\n.address_size 64\n.func f()\n{\n    ret;\n}\n", "",
                      options("none.cu", {})),
            "none.cu: no __global__ kernel found (a template kernel is compiled for a launch that names its "
            "arguments: --kernel 'NAME<int,16>')");
}

// A C++ kernel (no extern "C") is found by its source name; a wrong name lists it demangled.
TEST(CompileArgs, CppKernelBySourceName) {
  EXPECT_EQ(compile_error("__global__ void scale(int *a) { a[threadIdx.x] *= 2; }\n", {"a=[1,2,3,4]"}, "-Os", "scale").error,
            "no error");
  CudaResult r = compile_error("__global__ void scale(int *a) { a[threadIdx.x] *= 2; }\n", {"a=[1,2,3,4]"}, "-Os",
                               "scal");
  EXPECT_EQ(r.error, r.file + " has no kernel 'scal' (kernels: scale(int*)); a template kernel is named with its "
                     "arguments, --kernel 'NAME<int,16>'");
}

// ---- The clang driver.

// Sets an environment variable for one test, then restores it.
struct ScopedEnv {
  std::string name;
  std::optional<std::string> saved;
  ScopedEnv(std::string n, const char* value) : name(std::move(n)) {
    if (const char* old = std::getenv(name.c_str())) saved = old;
    value ? setenv(name.c_str(), value, 1) : unsetenv(name.c_str());
  }
  ~ScopedEnv() { saved ? setenv(name.c_str(), saved->c_str(), 1) : unsetenv(name.c_str()); }
};

TEST(CompileClang, ClangVariableNotAnExecutable) {
  ScopedEnv clang("CLANG", "/nonexistent/clang");
  std::string src = "extern \"C\" __global__ void k(int *a) {}\n";
  TempCu cu(src);
  EXPECT_EQ(error_of([&] { compile_cuda(src, options(cu.path.string(), {"a=[1]"})); }),
            "CLANG=/nonexistent/clang is not an executable: point it at a clang with the NVPTX backend "
            "(Debian/Ubuntu: apt-get install clang; macOS: brew install llvm), or unset it to search PATH");
}

TEST(CompileClang, NoClangOnPath) {
  for (const char* brew : {"/opt/homebrew/opt/llvm/bin/clang", "/usr/local/opt/llvm/bin/clang"})
    if (access(brew, X_OK) == 0) GTEST_SKIP() << brew << " exists";
  ScopedEnv clang("CLANG", nullptr);
  ScopedEnv path("PATH", "/nonexistent");
  EXPECT_EQ(error_of([] { find_clang(); }),
            "no clang found: qgpu compiles CUDA with clang's NVPTX backend. Install one (Debian/Ubuntu: "
            "apt-get install clang; macOS: brew install llvm) or set CLANG=/path/to/clang");
}

TEST(CompileClang, SyntaxErrorIsPassedThrough) {
  TempCu cu("extern \"C\" __global__ void k(int *a) {\n  a[0] = ;\n}\n");
  std::string message = error_of([&] { compile_to_ptx(cu.path.string(), "-Os"); });
  std::string file = cu.path.string();
  std::string start = "clang could not compile " + file + ":\n" + file + ":2:10: error: expected expression\n";
  EXPECT_EQ(message.rfind(start, 0), 0u) << message;
  EXPECT_NE(message.find("  a[0] = ;\n"), std::string::npos) << message;
  EXPECT_NE(message.find("1 error generated"), std::string::npos) << message;
}

// The float functions qgpu has no exact definition of (libdevice's approximations, the
// hardware's approximate intrinsics) are declared unavailable: clang names the call and
// says what the machine has instead of "use of undeclared identifier".
TEST(CompileClang, TranscendentalsAndIntegerArgumentsAreUnavailable) {
  TempCu cu("__global__ void k(float *a) {\n  a[0] = expf(a[1]);\n  a[2] = __fdividef(a[0], a[3]);\n}\n");
  const std::string message = error_of([&] { compile_to_ptx(cu.path.string(), "-Os"); });
  const std::string file = cu.path.string();
  for (const char* fn : {"expf", "__fdividef"}) {
    const std::string what = fmt::format("error: '{}' is unavailable: qgpu has no {}: its machine computes +, -, *, /, fmaf, "
                                         "sqrtf, fminf, fmaxf, fabsf, floorf, ceilf, truncf, rintf, roundf and copysignf "
                                         "exactly",
                                         fn, fn);
    EXPECT_NE(message.find(what), std::string::npos) << message;
  }
  EXPECT_NE(message.find(file + ":2:10: error: 'expf' is unavailable"), std::string::npos) << message;
  EXPECT_NE(message.find(file + ":3:10: error: '__fdividef' is unavailable"), std::string::npos) << message;
  // sqrt of an int is CUDA's double sqrt: an error, not a float sqrt of the rounded int.
  TempCu of_int("__global__ void k(int *a, float *y) { y[0] = sqrt(a[0]); }\n");
  EXPECT_NE(error_of([&] { compile_to_ptx(of_int.path.string(), "-Os"); })
                .find("'sqrt' is unavailable: CUDA computes sqrt of an integer in double precision, which qgpu lacks: "
                      "write sqrtf((float)x) for the float function"),
            std::string::npos);
  // With <math.h>, whose host expf the device declaration overloads, the same error.
  TempCu with_math("#include <math.h>\n__global__ void k(float *a) { a[0] = expf(a[1]); }\n");
  EXPECT_NE(error_of([&] { compile_to_ptx(with_math.path.string(), "-Os"); }).find("'expf' is unavailable: qgpu has no expf"),
            std::string::npos);
}

}  // namespace
}  // namespace qgpu
