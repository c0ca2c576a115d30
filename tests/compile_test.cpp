// The compiler's supported subset, construct by construct: every opcode of ptx.md §6 (the
// census table and its list of rarer opcodes) that the machine supports is compiled here,
// run on the interpreter, and checked against values worked out by hand in the comments.
// Hand-written PTX pins down one opcode exactly (whatever clang is installed); the CUDA
// kernels show the same constructs as clang emits them and check that the PTX has them.
// The unsupported constructs and their diagnostics are in compile_errors_test.cpp.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "gpu/alu.h"
#include "gpu/interp.h"

namespace qgpu {
namespace {

namespace fs = std::filesystem;
using Values = std::vector<int32_t>;

// A CUDA source in a temporary .cu file, removed when the test ends.
struct TempCu {
  fs::path path;
  explicit TempCu(std::string_view source) {
    std::string pattern = (fs::temp_directory_path() / "qgpu_compile_test_XXXXXX.cu").string();
    int fd = mkstemps(pattern.data(), 3);
    EXPECT_GE(fd, 0);
    close(fd);
    path = pattern;
    std::ofstream(path) << source;
  }
  ~TempCu() { fs::remove(path); }
};

struct Launched {
  CompiledKernel k;
  std::map<std::string, Values> mem;  // every array after the launch, by name
};

Launched launch(CompiledKernel k) {
  Trace t = run(k.program, k.program.launch);
  Launched out{std::move(k), {}};
  for (const Array& a : out.k.program.arrays) {
    std::vector<uint32_t> words = read_array(t.final, a);
    out.mem[a.name] = Values(words.begin(), words.end());
  }
  return out;
}

CompileOptions options(std::string file, Launch l, const std::vector<std::string>& args) {
  CompileOptions o{.file = std::move(file), .launch = l};
  for (const std::string& a : args) o.args.push_back(parse_kernel_arg(a));
  return o;
}

// Compiles CUDA source at an optimisation level and runs it.
Launched run_cuda(std::string_view source, Launch l, const std::vector<std::string>& args,
                  const std::string& opt = "-Os") {
  TempCu cu(source);
  CompileOptions o = options(cu.path.string(), l, args);
  o.opt_level = opt;
  return launch(compile_cuda(source, o));
}

Launched run_ptx(std::string_view ptx, std::string_view signature, Launch l,
                 const std::vector<std::string>& args) {
  return launch(compile_ptx(ptx, signature, options("hand.cu", l, args)));
}

bool has(const std::string& ptx, std::string_view op) { return ptx.find(op) != std::string::npos; }

// ---- One opcode at a time: out[tid] = %r10 computed from x (%r1) and tid (%r2).

constexpr std::string_view kHead = R"(.version 6.3
.target sm_75
.address_size 64

.visible .entry k(
    .param .u64 k_param_0,
    .param .u32 k_param_1
)
{
    .reg .pred %p<8>;
    .reg .b32 %r<32>;
    .reg .b64 %rd<16>;
    .reg .b16 %rs<4>;

    ld.param.u64 %rd1, [k_param_0];
    cvta.to.global.u64 %rd2, %rd1;
    ld.param.u32 %r1, [k_param_1];
    mov.u32 %r2, %tid.x;
)";
constexpr std::string_view kTail = R"(
    mul.wide.u32 %rd3, %r2, 4;
    add.s64 %rd4, %rd2, %rd3;
    st.global.u32 [%rd4], %r10;
    ret;
}
)";
constexpr std::string_view kSignature = "extern \"C\" __global__ void k(int *out, int x);";

struct OpCase {
  std::string opcode;  // the construct under test (the test's name)
  std::string body;    // PTX lines writing %r10
  int64_t x;
  Values want;         // out[0..3]; out[4..7] keep 50..80
};

void PrintTo(const OpCase& c, std::ostream* os) { *os << c.opcode; }

class CompileOps : public testing::TestWithParam<OpCase> {};

TEST_P(CompileOps, RunsToHandComputedValues) {
  const OpCase& c = GetParam();
  std::string ptx = std::string(kHead) + c.body + std::string(kTail);
  ASSERT_TRUE(has(ptx, c.opcode));
  Launched r = run_ptx(ptx, kSignature, Launch{}, {"out=[10,20,30,40,50,60,70,80]", fmt::format("x={}", c.x)});
  Values want = c.want;
  want.insert(want.end(), {50, 60, 70, 80});
  EXPECT_EQ(r.mem["out"], want) << ptx;
}

// %r3 = tid - 2 = -2, -1, 0, 1: the compares' left operand.
const std::string kMinus2 = "    sub.s32 %r3, %r2, 2;\n";
// %r3 = 10 * tid - 15 = -15, -5, 5, 15: the dividends.
const std::string kDividend = "    mad.lo.s32 %r3, %r2, 10, -15;\n";

OpCase compare(const std::string& op, int64_t x, Values want) {
  return {op, kMinus2 + "    " + op + " %p1, %r3, %r1;\n    selp.u32 %r10, 1, 0, %p1;", x, want};
}

const OpCase kOpCases[] = {
    // Census table, integer rows.
    {"add.s32", "    add.s32 %r10, %r2, %r1;", 5, {5, 6, 7, 8}},
    {"sub.s32", "    sub.s32 %r10, %r2, %r1;", 5, {-5, -4, -3, -2}},
    {"mul.lo.s32", "    mul.lo.s32 %r10, %r2, %r1;", -7, {0, -7, -14, -21}},
    {"mad.lo.s32", "    mad.lo.s32 %r10, %r2, %r1, 100;", 6, {100, 106, 112, 118}},
    {"shl.b32", "    shl.b32 %r10, %r1, %r2;", 3, {3, 6, 12, 24}},
    // 0xfffffff0 >> 1 = 0x7ffffff8, >> 2 = 0x3ffffffc, >> 3 = 0x1ffffffe
    {"shr.u32", "    shr.u32 %r10, %r1, %r2;", -16, {-16, 2147483640, 1073741820, 536870910}},
    {"shr.s32", "    shr.s32 %r10, %r1, %r2;", -16, {-16, -8, -4, -2}},
    {"and.b32", "    and.b32 %r10, %r1, %r2;", 6, {0, 0, 2, 2}},
    {"or.b32", "    or.b32 %r10, %r1, %r2;", 4, {4, 5, 6, 7}},
    {"neg.s32", "    neg.s32 %r10, %r2;", 0, {0, -1, -2, -3}},
    {"min.s32", kMinus2 + "    min.s32 %r10, %r3, %r1;", 0, {-2, -1, 0, 0}},
    {"max.s32", kMinus2 + "    max.s32 %r10, %r3, %r1;", 0, {0, 0, 0, 1}},
    {"max.u32", kMinus2 + "    max.u32 %r10, %r3, %r1;", 5, {-2, -1, 5, 5}},  // -2 is 0xfffffffe
    {"mov.b32", "    mov.b32 %r3, 300;\n    add.s32 %r10, %r3, %r2;", 0, {300, 301, 302, 303}},
    {"mov.u32", "    mov.u32 %r3, 7;\n    mov.u32 %r4, %ntid.x;\n    mad.lo.s32 %r10, %r3, %r4, %r2;", 0,
     {28, 29, 30, 31}},  // 7 * ntid.x (4) + tid
    compare("setp.lt.s32", 0, {1, 1, 0, 0}),
    compare("setp.ne.s32", 0, {1, 1, 0, 1}),
    compare("setp.ge.s32", 0, {0, 0, 1, 1}),
    compare("setp.eq.s32", 0, {0, 0, 1, 0}),
    compare("setp.gt.s32", 0, {0, 0, 0, 1}),
    compare("setp.le.s32", 0, {1, 1, 1, 0}),
    // unsigned: -2, -1, 0, 1 are 0xfffffffe, 0xffffffff, 0, 1
    compare("setp.lt.u32", 1, {0, 0, 1, 0}),
    compare("setp.gt.u32", 0, {1, 1, 0, 1}),
    {"selp.b32", kMinus2 + "    setp.lt.s32 %p1, %r3, 0;\n    selp.b32 %r10, %r2, %r1, %p1;", 9, {0, 1, 9, 9}},
    {"selp.u32", kMinus2 + "    setp.eq.s32 %p1, %r3, 0;\n    selp.u32 %r10, 1, 0, %p1;", 0, {0, 0, 1, 0}},
    // clang 14's parity idiom: (tid & 1) == 1 xor false
    {"mov.pred", "    and.b32 %r3, %r2, 1;\n    setp.eq.b32 %p1, %r3, 1;\n    mov.pred %p2, 0;\n"
                 "    xor.pred %p3, %p1, %p2;\n    selp.u32 %r10, 1, 0, %p3;", 0, {0, 1, 0, 1}},
    // clang 14 writes "true" as -1 (is_prime at -Os): p2 = true, so out = !(tid odd)
    {"mov.pred %p2, -1", "    and.b32 %r3, %r2, 1;\n    setp.eq.b32 %p1, %r3, 1;\n    mov.pred %p2, -1;\n"
                         "    xor.pred %p3, %p1, %p2;\n    selp.u32 %r10, 1, 0, %p3;", 0, {1, 0, 1, 0}},
    // Rarer integer opcodes.
    {"abs.s32", kMinus2 + "    abs.s32 %r10, %r3;", 0, {2, 1, 0, 1}},
    {"not.b32", "    not.b32 %r10, %r2;", 0, {-1, -2, -3, -4}},
    {"xor.b32", "    xor.b32 %r10, %r1, %r2;", 2, {2, 3, 0, 1}},
    // rotate 0x80000001 left by 4 * tid: 0x18, 0x180, 0x1800
    {"shf.l.wrap.b32", "    shl.b32 %r3, %r2, 2;\n    shf.l.wrap.b32 %r10, %r1, %r1, %r3;", 0x80000001,
     {-2147483647, 24, 384, 6144}},
    // rotate right: 0x18000000, 0x01800000, 0x00180000
    {"shf.r.wrap.b32", "    shl.b32 %r3, %r2, 2;\n    shf.r.wrap.b32 %r10, %r1, %r1, %r3;", 0x80000001,
     {-2147483647, 402653184, 25165824, 1572864}},
    // -15/7, -5/7, 5/7, 15/7 toward zero; remainders keep the dividend's sign
    {"div.s32", kDividend + "    div.s32 %r10, %r3, %r1;", 7, {-2, 0, 0, 2}},
    {"rem.s32", kDividend + "    rem.s32 %r10, %r3, %r1;", 7, {-1, -5, 5, 1}},
    // unsigned: 0xfffffff1 / 7 = 613566754 r 3, 0xfffffffb / 7 = 613566755 r 6
    {"div.u32", kDividend + "    div.u32 %r10, %r3, %r1;", 7, {613566754, 613566755, 0, 2}},
    {"rem.u32", kDividend + "    rem.u32 %r10, %r3, %r1;", 7, {3, 6, 5, 1}},
    // high halves of tid * -2^31 (0, -2^31, -2^32, -3 * 2^31) and tid * 2^31
    {"mul.hi.s32", "    mul.hi.s32 %r10, %r2, %r1;", -2147483648LL, {0, -1, -1, -2}},
    {"mul.hi.u32", "    mul.hi.u32 %r10, %r2, %r1;", 2147483648LL, {0, 0, 1, 1}},
    // Predicate logic.
    {"xor.pred", "    setp.ge.s32 %p1, %r2, 1;\n    setp.ge.s32 %p2, %r2, 3;\n    xor.pred %p3, %p1, %p2;\n"
                 "    selp.u32 %r10, 1, 0, %p3;", 0, {0, 1, 1, 0}},
    {"or.pred", "    setp.eq.s32 %p1, %r2, 0;\n    setp.eq.s32 %p2, %r2, 3;\n    or.pred %p3, %p1, %p2;\n"
                "    selp.u32 %r10, 1, 0, %p3;", 0, {1, 0, 0, 1}},
    {"and.pred", "    setp.ge.s32 %p1, %r2, 1;\n    setp.le.s32 %p2, %r2, 2;\n    and.pred %p3, %p1, %p2;\n"
                 "    selp.u32 %r10, 1, 0, %p3;", 0, {0, 1, 1, 0}},
    // Predicate logic on compares the optimiser folds to constants (%p1 true, %p6 false):
    // two constants in one xor.pred once reached legalise, which cannot move a predicate
    // immediate into a register. tid 1: 1 + 0 + 0 + 8; else 1 + 2 + 0 + 8.
    {"xor.pred %p7, %p1, %p6",
     "    mov.u32 %r3, 0;\n    setp.eq.s32 %p1, %r3, 0;\n    setp.ne.s32 %p6, %r3, 0;\n"
     "    setp.eq.s32 %p2, %r2, 1;\n    or.pred %p3, %p1, %p2;\n    xor.pred %p4, %p1, %p2;\n"
     "    and.pred %p5, %p6, %p2;\n    xor.pred %p7, %p1, %p6;\n    selp.u32 %r4, 1, 0, %p3;\n"
     "    selp.u32 %r5, 2, 0, %p4;\n    selp.u32 %r6, 4, 0, %p5;\n    selp.u32 %r7, 8, 0, %p7;\n"
     "    add.s32 %r8, %r4, %r5;\n    add.s32 %r9, %r6, %r7;\n    add.s32 %r10, %r8, %r9;",
     0, {11, 9, 11, 11}},
    {"not.pred", "    setp.lt.s32 %p1, %r2, 2;\n    not.pred %p2, %p1;\n    selp.u32 %r10, 1, 0, %p2;", 0,
     {0, 0, 1, 1}},
    // Rarer compares.
    compare("setp.eq.b32", 0, {0, 0, 1, 0}),
    compare("setp.ge.u32", 1, {1, 1, 0, 1}),
    // 64-bit address arithmetic, low 32 bits (ptx.md §7); out[] holds 10, 20, ..., 80.
    {"mul.wide.s32", "    mul.wide.s32 %rd5, %r2, 4;\n    add.s64 %rd6, %rd2, %rd5;\n"
                     "    ld.global.u32 %r10, [%rd6+16];", 0, {50, 60, 70, 80}},
    {"cvt.s64.s32", "    sub.s32 %r3, 3, %r2;\n    cvt.s64.s32 %rd5, %r3;\n    shl.b64 %rd6, %rd5, 2;\n"
                    "    add.s64 %rd7, %rd2, %rd6;\n    ld.global.u32 %r10, [%rd7];", 0, {40, 30, 20, 10}},
    {"cvt.u64.u32", "    cvt.u64.u32 %rd5, %r2;\n    shl.b64 %rd6, %rd5, 3;\n    add.s64 %rd7, %rd2, %rd6;\n"
                    "    ld.global.u32 %r10, [%rd7];", 0, {10, 30, 50, 70}},
    {"sub.s64", "    mul.wide.u32 %rd5, %r2, 4;\n    add.s64 %rd6, %rd2, 28;\n    sub.s64 %rd7, %rd6, %rd5;\n"
                "    ld.global.u32 %r10, [%rd7];", 0, {80, 70, 60, 50}},
    {"and.b64", "    cvt.u64.u32 %rd5, %r2;\n    and.b64 %rd6, %rd5, 2;\n    cvt.u32.u64 %r10, %rd6;", 0,
     {0, 0, 2, 2}},
    // shr.u64 of a product, exactly: (37 * tid + 5) * 0xcccccccd >> 35 = (5, 42, 79, 116) / 10
    {"shr.u64", "    mad.lo.s32 %r3, %r2, 37, 5;\n    mul.wide.u32 %rd5, %r3, %r1;\n"
                "    shr.u64 %rd6, %rd5, 35;\n    cvt.u32.u64 %r10, %rd6;", 0xcccccccdLL, {0, 4, 7, 11}},
    // (tid - 2) * 1000 * -7 = 14000, 7000, 0, -7000; >> 4 rounds down
    {"shr.s64", kMinus2 + "    mul.lo.s32 %r4, %r3, 1000;\n    mul.wide.s32 %rd5, %r4, %r1;\n"
                          "    shr.s64 %rd6, %rd5, 4;\n    cvt.u32.u64 %r10, %rd6;", -7, {875, 437, 0, -438}},
    // A guarded instruction that lowers to several: only the last one is guarded.
    {"@%p1 shf.l.wrap.b32", "    mov.b32 %r10, 5;\n    setp.lt.s32 %p1, %r2, 2;\n"
                            "    @%p1 shf.l.wrap.b32 %r10, %r1, %r1, %r2;", 0x80000001, {-2147483647, 3, 5, 5}},
    {"@%p1 bfe.u32", "    mov.b32 %r10, 5;\n    setp.lt.s32 %p1, %r2, 2;\n    @%p1 bfe.u32 %r10, %r1, 4, 8;",
     0x12345678, {0x67, 0x67, 5, 5}},
    {"@%p1 cvt.s32.s8", "    mov.b32 %r10, 5;\n    setp.lt.s32 %p1, %r2, 2;\n    @%p1 cvt.s32.s8 %r10, %r1;",
     0x80, {-128, -128, 5, 5}},
    // Control flow: both label styles, both guard polarities, bra.uni, a loop.
    {"$L__BB", "    mov.b32 %r10, 10;\n    setp.lt.s32 %p1, %r2, 2;\n    @%p1 bra $L__BB0_2;\n"
               "    mov.b32 %r10, 20;\n$L__BB0_2:", 0, {10, 10, 20, 20}},
    {"LBB", "    mov.b32 %r10, 10;\n    setp.lt.s32 %p1, %r2, 2;\n    @%p1 bra LBB0_2;\n"
            "    mov.b32 %r10, 20;\nLBB0_2:", 0, {10, 10, 20, 20}},
    {"@!%p1", "    mov.b32 %r10, 10;\n    setp.lt.s32 %p1, %r2, 2;\n    @!%p1 bra $L__BB0_2;\n"
              "    mov.b32 %r10, 20;\n$L__BB0_2:", 0, {20, 20, 10, 10}},
    // What clang 19 and LLVM's canonical forms emit (found by scripts/difftest.sh): a 64-bit
    // product's high half split off with mov.b64 {lo, hi} in a block of its own, a word loaded
    // into a 64-bit register (zero-extended), a 16-bit mad, atomics that cannot change their
    // word rewritten as `atom.or 0` (an atomic read). x = 0xc0000000.
    {"mov.b64 {tmp", "    cvt.u64.u32 %rd10, %r1;\n    cvt.u64.u32 %rd11, %r2;\n    mul.lo.s64 %rd12, %rd10, %rd11;\n"
                     "    { .reg .b32 tmp; mov.b64 {tmp, %r10}, %rd12; }", -1073741824, {0, 0, 1, 2}},
    {"ld.global.u32 %rd10", "    ld.global.u32 %rd10, [%rd2+16];\n    cvt.u64.u32 %rd11, %r1;\n"
                            "    mul.lo.s64 %rd12, %rd10, %rd11;\n    shr.u64 %rd13, %rd12, 32;\n    cvt.u32.u64 %r10, %rd13;",
     -1073741824, {37, 37, 37, 37}},
    {"mad.lo.s16", "    cvt.u16.u32 %rs1, %r1;\n    cvt.u16.u32 %rs2, %r2;\n    mad.lo.s16 %rs3, %rs1, %rs2, 86;\n"
                   "    cvt.s32.s16 %r10, %rs3;", 30000, {86, 30086, -5450, 24550}},
    {"mov.b32 %r10, {", "    cvt.u16.u32 %rs1, %r1;\n    cvt.u16.u32 %rs2, %r2;\n    mov.b32 %r10, {%rs2, %rs1};",
     0x12345678, {0x56780000, 0x56780001, 0x56780002, 0x56780003}},
    {"mov.b32 {%rs1", "    mov.b32 {%rs1, %rs2}, %r1;\n    cvt.u32.u16 %r3, %rs1;\n    cvt.u32.u16 %r4, %rs2;\n"
                      "    mad.lo.s32 %r10, %r3, %r2, %r4;", 0x00030010, {3, 19, 35, 51}},
    {"mul.hi.u16", "    cvt.u16.u32 %rs1, %r1;\n    mul.hi.u16 %rs2, %rs1, 2115;\n    cvt.u32.u16 %r10, %rs2;", 60000,
     {1936, 1936, 1936, 1936}},
    {"mul.hi.s16", "    cvt.u16.u32 %rs1, %r1;\n    mul.hi.s16 %rs2, %rs1, -3000;\n    cvt.s32.s16 %r10, %rs2;", -20000,
     {915, 915, 915, 915}},
    {"ld.param.u16 %rs1, [k_param_1+2]", "    ld.param.u16 %rs1, [k_param_1+2];\n    cvt.s32.s16 %r10, %rs1;",
     -1412623820, {-21555, -21555, -21555, -21555}},
    {"ld.param.s8 %r10, [k_param_1+3]", "    ld.param.s8 %r10, [k_param_1+3];", -2130739456, {-128, -128, -128, -128}},
    {"atom.global.or.b32", "    atom.global.or.b32 %r10, [%rd2+16], 0;", 0, {50, 50, 50, 50}},
    {"atom.global.and.b32", "    atom.global.and.b32 %r10, [%rd2+20], -1;", 0, {60, 60, 60, 60}},
    // sum of 0..tid, top-tested loop with a bra.uni back edge (clang -Oz's shape)
    {"bra.uni", "    mov.b32 %r10, 0;\n    mov.b32 %r3, 0;\n$L__BB0_1:\n    setp.gt.s32 %p1, %r3, %r2;\n"
                "    @%p1 bra $L__BB0_2;\n    add.s32 %r10, %r10, %r3;\n    add.s32 %r3, %r3, 1;\n"
                "    bra.uni $L__BB0_1;\n$L__BB0_2:", 0, {0, 1, 3, 6}},
};

std::string case_name(const testing::TestParamInfo<OpCase>& info) {
  std::string name;
  for (char c : info.param.opcode) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Census, CompileOps, testing::ValuesIn(kOpCases), case_name);

// ---- Whole hand-written kernels: calls, returns, 32-bit PTX, memory spaces.

// clang -Oz's call shape: a callseq block per call, a .func with an early `ret`.
// f(a, b) = a < 2 ? b : 2a + b; out[t] = f(f(t, 100), t).
constexpr std::string_view kCallPtx = R"(.version 6.3
.target sm_75
.address_size 64

.func  (.param .b32 func_retval0) f(
    .param .b32 f_param_0,
    .param .b32 f_param_1
)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;

    ld.param.u32 %r1, [f_param_0];
    ld.param.u32 %r2, [f_param_1];
    setp.lt.s32 %p1, %r1, 2;
    @%p1 bra $L__BB0_2;
    mad.lo.s32 %r3, %r1, 2, %r2;
    st.param.b32 [func_retval0+0], %r3;
    ret;
$L__BB0_2:
    st.param.b32 [func_retval0+0], %r2;
    ret;
}
.visible .entry calls(
    .param .u64 calls_param_0
)
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<5>;

    ld.param.u64 %rd1, [calls_param_0];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, 100;
    { // callseq 0, 0
    .param .b32 param0;
    st.param.b32 [param0+0], %r1;
    .param .b32 param1;
    st.param.b32 [param1+0], %r2;
    .param .b32 retval0;
    call.uni (retval0),
    f,
    (
    param0,
    param1
    );
    ld.param.b32 %r3, [retval0+0];
    } // callseq 0
    { // callseq 1, 0
    .param .b32 param0;
    st.param.b32 [param0+0], %r3;
    .param .b32 param1;
    st.param.b32 [param1+0], %r1;
    .param .b32 retval0;
    call.uni (retval0), f, (param0, param1);
    ld.param.b32 %r4, [retval0+0];
    } // callseq 1
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd2, %rd3;
    st.global.u32 [%rd4], %r4;
    ret;
}
)";

TEST(CompileHandPtx, CallUniCallseqIsInlined) {
  Launched r = run_ptx(kCallPtx, "extern \"C\" __global__ void calls(int *out);", Launch{}, {"out=[0,0,0,0]"});
  // f(t, 100) = 100, 100, 104, 106; then 2 * that + t
  EXPECT_EQ(r.mem["out"], (Values{200, 201, 210, 215}));
  // two inline copies of f, each with its own registers
  const std::vector<std::string>& names = r.k.ir.vreg_names;
  EXPECT_NE(std::find(names.begin(), names.end(), "f#1/%r3"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "f#2/%r3"), names.end());
}

// An argument the callee never reads may never be stored: LLVM passes poison for it, and
// clang 19 writes no st.param (found by scripts/difftest.sh at -O1 with a __noinline__ helper).
TEST(CompileHandPtx, CallArgumentNeverStored) {
  constexpr std::string_view ptx = R"(.version 6.3
.target sm_75
.address_size 64

.func  (.param .b32 func_retval0) g(.param .b32 g_param_0, .param .b32 g_param_1)
{
    .reg .b32 %r<3>;

    ld.param.u32 %r1, [g_param_1];
    add.s32 %r2, %r1, 7;
    st.param.b32 [func_retval0+0], %r2;
    ret;
}
.visible .entry calls(.param .u64 calls_param_0)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<5>;

    ld.param.u64 %rd1, [calls_param_0];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, %tid.x;
    { // callseq 0, 0
    .param .b32 param0;
    .param .b32 param1;
    st.param.b32 [param1+0], %r1;
    .param .b32 retval0;
    call.uni (retval0), g, (param0, param1);
    ld.param.b32 %r3, [retval0+0];
    } // callseq 0
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd2, %rd3;
    st.global.u32 [%rd4], %r3;
    ret;
}
)";
  Launched r = run_ptx(ptx, "extern \"C\" __global__ void calls(int *out);", Launch{}, {"out=[0,0,0,0]"});
  EXPECT_EQ(r.mem["out"], (Values{7, 8, 9, 10}));
}

// The float -> int intrinsics saturate, also on constants: LLVM folds __nvvm_f2i_rz and
// friends of an out-of-range constant to poison and drops the store (a silent wrong answer
// scripts/difftest.sh found; reduced: kernels/difftest_13.cu).
TEST(CompileCuda, FloatToIntOfConstantsSaturates) {
  constexpr std::string_view src = R"(extern "C" __global__ void k(int *out, unsigned *uout) {
  out[0] = __float2int_rz(3e9f);
  out[1] = __float2int_rz(-3e9f);
  out[2] = __float2int_rn(__int_as_float(0x7fffffff));
  out[3] = __float2int_rn(2.5f);
  uout[0] = __float2uint_rz(-1.5f);
  uout[1] = __float2uint_rz(5e9f);
  uout[2] = __float2uint_rz((float)(int)2479065907u);
  uout[3] = __float2uint_rz(7.9f);
})";
  for (const char* level : {"-O1", "-Os", "-O2", "-O3", "-Oz"}) {
    Launched r = run_cuda(src, Launch{}, {"out=[9,9,9,9]", "uout=[9,9,9,9]"}, level);
    EXPECT_EQ(r.mem["out"], (Values{2147483647, INT32_MIN, 0, 2})) << level;
    EXPECT_EQ(r.mem["uout"], (Values{0, -1, 0, 7})) << level;
  }
}

// __mulhi(INT_MIN, -1) is 0: written as a 64-bit product, LLVM 14 and 15 emitted
// mul.wide.s32 x, -2147483648 for it, -1 at x = -1 (kernels/difftest_5114.cu).
TEST(CompileCuda, MulHiOfIntMinIsExact) {
  constexpr std::string_view src = R"(extern "C" __global__ void k(const int *a, int *out) {
  int v = blockIdx.y | 1, w = -2;
  out[0] = __mulhi((int)2147483648u, __mulhi(v, w));
  out[1] = __mulhi(a[0], a[1]);
  out[2] = (int)__umulhi(0xffffffffu, (unsigned)__mulhi(v, w));
})";
  for (const char* level : {"-O1", "-Os", "-O2", "-O3", "-Oz"}) {
    Launched r = run_cuda(src, Launch{}, {"a=[-2147483648,-1]", "out=[9,9,9]"}, level);
    EXPECT_EQ(r.mem["out"], (Values{0, 0, -2})) << level;
  }
}

// An atomic's d is early-clobber: the model writes the old word into d at the token
// whose registers still give the lane's address and operand b (docs/design.md §3). The
// operand and the base die at the atomic, so without the constraint d would take one of
// their registers.
TEST(CompileCuda, AtomicDestinationIsApartFromItsSources) {
  constexpr std::string_view source = R"(extern "C" __global__ void k(int *c, int *out) {
  int i = threadIdx.x;
  out[i] = atomicAdd(&c[out[i] & 1], out[i] + 1);
}
)";
  Launched r = run_cuda(source, Launch{.block_x = 4}, {"c=[10,20]", "out=[0,1,2,3]"});
  EXPECT_EQ(r.mem["c"], (Values{10 + 1 + 3, 20 + 2 + 4}));
  EXPECT_EQ(r.mem["out"], (Values{10, 20, 11, 22}));
  int atomics = 0;
  for (const Instr& in : r.k.program.code)
    if (op_info(in.op).effect == Effect::kAtomic) {
      ++atomics;
      EXPECT_NE(in.d, in.a) << instr_text(in);
      EXPECT_NE(in.d, in.b) << instr_text(in);
    }
  EXPECT_EQ(atomics, 1);
}

// mul.hi and division are compiled into sequences of other ops (the model has neither:
// compiler/lower_expand.h). Each of the six, on every pair of 16 edge values (zero, +-1,
// the 16-bit seams, INT_MIN, INT_MAX, 0xffffffff, divisors over 2^31, and mixed), equals
// the machine's own op (gpu/alu.h), which the interpreter's op tests pin down.
constexpr std::string_view kOneOp = R"(.version 6.3
.target sm_75
.address_size 64

.visible .entry one(.param .u64 p0, .param .u64 p1, .param .u64 p2)
{
    .reg .b32 %r<12>;
    .reg .b64 %rd<12>;

    ld.param.u64 %rd1, [p0];
    cvta.to.global.u64 %rd2, %rd1;
    ld.param.u64 %rd3, [p1];
    cvta.to.global.u64 %rd4, %rd3;
    ld.param.u64 %rd5, [p2];
    cvta.to.global.u64 %rd6, %rd5;
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mad.lo.s32 %r4, %r1, %r2, %r3;
    mul.wide.u32 %rd7, %r4, 4;
    add.s64 %rd8, %rd2, %rd7;
    ld.global.u32 %r5, [%rd8];
    add.s64 %rd9, %rd4, %rd7;
    ld.global.u32 %r6, [%rd9];
    OP %r7, %r5, %r6;
    add.s64 %rd10, %rd6, %rd7;
    st.global.u32 [%rd10], %r7;
    ret;
}
)";

TEST(CompileHandPtx, MulHiAndDivisionEqualTheMachineOpsOnEdgeValues) {
  const std::vector<uint32_t> edge = {0,          1,          0xffffffff, 2,          7,          0xfffffff9,
                                      0xffff,     0x10000,    0x7fffffff, 0x80000000, 0x80000001, 0xffff0000,
                                      123456789u, 0xc521974f, 0xfffffffe, 0x9e3779b9};
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  for (uint32_t a : edge)
    for (uint32_t b : edge) pairs.push_back({a, b});
  const std::pair<const char*, Op> ops[] = {{"div.s32", Op::kDivS},    {"div.u32", Op::kDivU},
                                            {"rem.s32", Op::kRemS},    {"rem.u32", Op::kRemU},
                                            {"mul.hi.s32", Op::kMulHiS}, {"mul.hi.u32", Op::kMulHiU}};
  constexpr size_t kPerLaunch = 40;  // 3 arrays of 40 words of the 126
  for (auto [mnemonic, op] : ops) {
    std::string ptx(kOneOp);
    ptx.replace(ptx.find("OP"), 2, mnemonic);
    for (size_t at = 0; at < pairs.size(); at += kPerLaunch) {
      const size_t n = std::min(kPerLaunch, pairs.size() - at);
      std::string a = "a=[", b = "b=[", out = "out=[";
      for (size_t i = 0; i < n; ++i) {
        a += fmt::format("{}{}", i ? "," : "", static_cast<int32_t>(pairs[at + i].first));
        b += fmt::format("{}{}", i ? "," : "", static_cast<int32_t>(pairs[at + i].second));
        out += i ? ",0" : "0";
      }
      Launched r = run_ptx(ptx, "extern \"C\" __global__ void one(const int *a, const int *b, int *out);",
                           Launch{.grid_x = static_cast<int>(n / 4)}, {a + "]", b + "]", out + "]"});
      for (const Instr& in : r.k.program.code) {
        ASSERT_NE(in.op, op) << "not expanded: " << instr_text(in);
      }
      for (size_t i = 0; i < n; ++i)
        EXPECT_EQ(static_cast<uint32_t>(r.mem["out"][i]), alu(op, pairs[at + i].first, pairs[at + i].second, 0))
            << mnemonic << " " << static_cast<int32_t>(pairs[at + i].first) << ", "
            << static_cast<int32_t>(pairs[at + i].second);
    }
  }
}

// `ret` in the middle, with the other path's block after it.
TEST(CompileHandPtx, RetMidFunction) {
  constexpr std::string_view ptx = R"(.version 6.3
.target sm_75
.address_size 64

.visible .entry early(
    .param .u64 early_param_0
)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<5>;

    ld.param.u64 %rd1, [early_param_0];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd2, %rd3;
    setp.ge.s32 %p1, %r1, 2;
    @%p1 bra $L__BB0_2;
    mov.b32 %r2, 111;
    st.global.u32 [%rd4], %r2;
    ret;
$L__BB0_2:
    mul.lo.s32 %r3, %r1, -3;
    st.global.u32 [%rd4], %r3;
    ret;
}
)";
  Launched r = run_ptx(ptx, "extern \"C\" __global__ void early(int *out);", Launch{}, {"out=[0,0,0,0]"});
  EXPECT_EQ(r.mem["out"], (Values{111, 111, -6, -9}));
}

// A kernel spill(int *out) of 16 threads (every lane of every warp resident at once) in which
// thread t keeps `loaded` values, out[i] + t, and then the values `made` computes from
// special registers alone (each a format string of one PTX op writing {}: %r30 is %tid.x,
// %r33 %ctaid.x, %r34 %ntid.x) live across a barrier, and stores the hash h = 3 h + value
// over all of them, in that order, at out[loaded + t]. Returns the launch and the hashes
// the threads must store.
std::pair<Launched, Values> live_across_a_barrier(int loaded, const std::vector<std::string>& made,
                                                  const std::function<uint32_t(int t, size_t m)>& made_value) {
  std::string ptx = R"(.version 6.3
.target sm_75
.address_size 64

.visible .entry spill(
    .param .u64 spill_param_0
)
{
    .reg .b32 %r<80>;
    .reg .b64 %rd<5>;

    ld.param.u64 %rd1, [spill_param_0];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r30, %tid.x;
    mov.u32 %r33, %ctaid.x;
    mov.u32 %r34, %ntid.x;
)";
  std::vector<std::string> values;
  for (int i = 1; i <= loaded; ++i) {
    ptx += fmt::format("    ld.global.u32 %r{0}, [%rd2+{1}];\n    add.s32 %r{0}, %r{0}, %r30;\n", i, 4 * (i - 1));
    values.push_back(fmt::format("%r{}", i));
  }
  for (size_t m = 0; m < made.size(); ++m) {
    values.push_back(fmt::format("%r{}", 40 + m));
    ptx += "    " + fmt::format(fmt::runtime(made[m]), values.back()) + ";\n";
  }
  ptx += "    bar.sync 0;\n    mov.u32 %r31, 0;\n";
  for (const std::string& v : values) ptx += fmt::format("    mad.lo.s32 %r31, %r31, 3, {};\n", v);
  ptx += fmt::format(R"(    mov.u32 %r32, %tid.x;
    mul.wide.u32 %rd3, %r32, 4;
    add.s64 %rd4, %rd2, %rd3;
    st.global.u32 [%rd4+{}], %r31;
    ret;
}}
)", 4 * loaded);
  std::string out = "out=[";
  Values in, want;
  for (int i = 0; i < loaded; ++i) in.push_back(7 * i + 1), out += fmt::format("{},", 7 * i + 1);
  for (int t = 0; t < 16; ++t) {
    uint32_t h = 0;
    for (int i = 0; i < loaded; ++i) h = 3 * h + static_cast<uint32_t>(in[static_cast<size_t>(i)] + t);
    for (size_t m = 0; m < made.size(); ++m) h = 3 * h + made_value(t, m);
    want.push_back(static_cast<int32_t>(h));
    out += t < 15 ? "0," : "0]";
  }
  return {run_ptx(ptx, "extern \"C\" __global__ void spill(int *out);", Launch{.block_x = 16}, {out}), want};
}

// kRegs + 3 values live across a barrier in each of 16 threads: the allocator spills some to memory
// words of their own, one per resident lane, and every thread still gets its own values back
// (a slot shared by two lanes, or a store that a branch into its def's successor reached,
// would mix them).
TEST(CompileHandPtx, ValuesPastTheRegistersSpillToWordsOfTheirOwn) {
  constexpr int kValues = kRegs + 3;
  static_assert(kValues < 30);  // live_across_a_barrier's %r30
  auto [r, want] = live_across_a_barrier(kValues, {}, {});
  // At least three values go (each reload still needs a register where the others are
  // live, so the allocator may spill more), 16 words each.
  EXPECT_GE(r.k.allocated.spill_words, 3 * 16);
  EXPECT_EQ(r.k.allocated.spill_words % 16, 0);
  EXPECT_EQ(Values(r.mem["out"].begin() + kValues, r.mem["out"].end()), want);
}

// kRegs - 1 loaded values and three made of special registers alone live across the
// barrier: kRegs + 2, and no spill, since each of the three is one op that can run again
// before its use (an index like blockIdx.x * blockDim.x + threadIdx.x); every thread's hash
// is its own.
TEST(CompileHandPtx, ValuesOfSpecialRegistersAreComputedAgainNotSpilled) {
  constexpr int kLoaded = kRegs - 1;
  const std::vector<std::string> made = {"mul.lo.s32 {}, %r30, 5", "add.s32 {}, %r30, 100",
                                         "mad.lo.s32 {}, %r33, %r34, %r30"};
  auto [r, want] = live_across_a_barrier(kLoaded, made, [](int t, size_t m) {
    return static_cast<uint32_t>(m == 0 ? 5 * t : m == 1 ? t + 100 : t);  // one CUDA block: %ctaid.x is 0
  });
  EXPECT_EQ(r.k.allocated.spill_words, 0);
  // The three ops of special registers run after the barrier, right before their uses.
  const std::vector<Instr>& code = r.k.program.code;
  const auto bar = std::find_if(code.begin(), code.end(), [](const Instr& in) { return in.op == Op::kBar; });
  ASSERT_NE(bar, code.end());
  EXPECT_EQ(std::count_if(bar, code.end(), [](const Instr& in) {
              return (in.op == Op::kMulLo && in.a == special(Special::kTidX) && in.imm == 5) ||
                     (in.op == Op::kAdd && in.a == special(Special::kTidX) && in.imm == 100) ||
                     (in.op == Op::kMadLo && in.a == special(Special::kCtaidX));
            }), 3);
  EXPECT_EQ(Values(r.mem["out"].begin() + kLoaded, r.mem["out"].end()), want);
}

// The i386-host variant (.address_size 32): cvta.to.global.u32 and 32-bit addresses.
TEST(CompileHandPtx, AddressSize32) {
  constexpr std::string_view ptx = R"(.version 6.3
.target sm_75
.address_size 32

.visible .entry m32(
    .param .u32 m32_param_0,
    .param .u32 m32_param_1
)
{
    .reg .b32 %r<9>;

    ld.param.u32 %r1, [m32_param_0];
    cvta.to.global.u32 %r2, %r1;
    ld.param.u32 %r3, [m32_param_1];
    mov.u32 %r4, %tid.x;
    shl.b32 %r5, %r4, 2;
    add.s32 %r6, %r2, %r5;
    ld.global.u32 %r7, [%r6];
    mad.lo.s32 %r8, %r7, %r3, %r4;
    st.global.u32 [%r6], %r8;
    ret;
}
)";
  Launched r =
      run_ptx(ptx, "extern \"C\" __global__ void m32(int *a, int x);", Launch{}, {"a=[1,2,3,4]", "x=10"});
  EXPECT_EQ(r.mem["a"], (Values{10, 21, 32, 43}));  // a[t] * 10 + t
}

// Module variables (byte-wise initialisers, trailing zeros left out as clang 19 does),
// ld.const, a symbol's address by mov.u64, [sym+imm], a guarded st.shared and
// atom.shared.add with 4 resident CUDA blocks, and the generic forms of -O0: ld.u32,
// ld.s32, st.u32, cvta.{global,const,shared}.u64 and atom.{add,max,min} without a space.
TEST(CompileHandPtx, MemorySpaces) {
  constexpr std::string_view ptx = R"(.version 6.3
.target sm_75
.address_size 64

.visible .global .align 4 .b8 table[16] = {5, 0, 0, 0, 250, 255, 255, 255, 7};
.visible .const .align 4 .b8 coeff[16] = {1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 44, 1};
.visible .global .align 4 .b8 acc[12] = {0, 0, 0, 0, 0, 1, 0, 0, 0, 255, 255, 127};
.visible .entry mem(
    .param .u64 mem_param_0
)
{
    .reg .pred %p<2>;
    .reg .b32 %r<20>;
    .reg .b64 %rd<20>;
    .shared .align 4 .u32 s;

    ld.param.u64 %rd1, [mem_param_0];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    mov.u64 %rd4, table;
    add.s64 %rd5, %rd4, %rd3;
    ld.global.u32 %r2, [%rd5];
    mov.u64 %rd6, coeff;
    add.s64 %rd7, %rd6, %rd3;
    ld.const.u32 %r3, [%rd7];
    mul.lo.s32 %r4, %r2, %r3;
    add.s64 %rd8, %rd2, %rd3;
    st.global.u32 [%rd8], %r4;
    ld.const.u32 %r5, [coeff+12];
    cvta.global.u64 %rd9, %rd8;
    ld.u32 %r6, [%rd9+16];
    ld.s32 %r7, [%rd9+32];
    add.s32 %r8, %r6, %r5;
    st.u32 [%rd9+16], %r8;
    mov.u64 %rd10, acc;
    cvta.global.u64 %rd11, %rd10;
    atom.add.u32 %r9, [%rd11], %r1;
    atom.max.s32 %r10, [%rd11+4], %r7;
    atom.min.s32 %r11, [%rd11+8], %r7;
    mov.u64 %rd12, coeff;
    cvta.const.u64 %rd13, %rd12;
    ld.u32 %r12, [%rd13+4];
    setp.eq.s32 %p1, %r1, 0;
    @%p1 st.shared.u32 [s], %r12;
    bar.sync 0;
    atom.shared.add.u32 %r13, [s], %r1;
    bar.sync 0;
    mov.u64 %rd14, s;
    cvta.shared.u64 %rd15, %rd14;
    ld.u32 %r14, [%rd15];
    st.global.u32 [%rd8+48], %r14;
    ret;
}
)";
  Launched r = run_ptx(ptx, "extern \"C\" __global__ void mem(int *out);", Launch{},
                       {"out=[0,0,0,0,1,2,3,4,-5,9,0,-1,0,0,0,0]"});
  // out[t] = table[t] * coeff[t] = 5*1, -6*2, 7*3, 0*300; out[4+t] += coeff[3] (300);
  // out[12+t] = 2 (coeff[1]) + 0+1+2+3 added atomically to s.
  EXPECT_EQ(r.mem["out"], (Values{5, -12, 21, 0, 301, 302, 303, 304, -5, 9, 0, -1, 8, 8, 8, 8}));
  // acc = {0 + 0+1+2+3, max(256, -5, 9, 0, -1), min(0x7fffff00, ...)}
  EXPECT_EQ(r.mem["acc"], (Values{6, 256, -5}));
  EXPECT_EQ(r.mem["table"], (Values{5, -6, 7, 0}));
  EXPECT_EQ(r.mem["coeff"], (Values{1, 2, 3, 300}));
}

// ---- CUDA kernels through clang: the census constructs as clang emits them.

constexpr std::string_view kWeightedPrefix = R"(
extern "C" __global__ void prefix(const int *x, int *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int acc = 0;
  for (int k = 0; k <= t && k < n; k++) acc += x[k] * (k + 1);
  if (t < n) out[t] = acc;
}
)";

// Every level but -O0 gives the same results (O2/O3 unroll, Oz keeps a bra.uni loop).
TEST(CompileCuda, SameResultsAtEveryOptLevel) {
  for (const char* opt : {"-O1", "-O2", "-O3", "-Os", "-Oz"}) {
    SCOPED_TRACE(opt);
    Launched r =
        run_cuda(kWeightedPrefix, Launch{.grid_x = 2}, {"x=[1,2,3,4,5,6]", "out=[0,0,0,0,0,0,0,0]", "n=6"}, opt);
    // out[t] = sum of (k+1)^2 for k <= t: 1, 5, 14, 30, 55, 91; threads 6 and 7 store nothing
    EXPECT_EQ(r.mem["out"], (Values{1, 5, 14, 30, 55, 91, 0, 0}));
    for (const char* op : {"ld.param.u64", "cvta.to.global.u64", "ld.param.u32", "%tid.x", "%ctaid.x",
                           "%ntid.x", "ld.global.u32", "st.global.u32", "add.s64", "add.s32", "setp.",
                           "bra", "ret;"})
      EXPECT_TRUE(has(r.k.ptx, op)) << op;
  }
}

// A __noinline__ helper stays a .func with call.uni at -Oz; the lowering inlines it. Its
// loop becomes clang's closed form, with mul.wide.u32 + shr.u64 + cvt.u32.u64.
TEST(CompileCuda, NoinlineHelperAtOzIsInlined) {
  constexpr std::string_view src = R"(
static __device__ __noinline__ int tri(int a, int b) {
  int s = 0;
  for (int k = a; k <= b; k++) s += k;
  return s;
}
extern "C" __global__ void calls(int *out) {
  int t = threadIdx.x;
  out[t] = tri(t, 2 * t) + tri(1, t);
}
)";
  Launched r = run_cuda(src, Launch{}, {"out=[9,9,9,9]"}, "-Oz");
  // t + ... + 2t = 3t(t+1)/2 = 0, 3, 9, 18; 1 + ... + t = 0, 1, 3, 6
  EXPECT_EQ(r.mem["out"], (Values{0, 4, 12, 24}));
  for (const char* op : {".func", "call.uni", "st.param.b32", "ld.param.b32", "shr.u64", "cvt.u32.u64"})
    EXPECT_TRUE(has(r.k.ptx, op)) << op;
}

// __device__ and __constant__ arrays are placed in memory with their initial values.
TEST(CompileCuda, ModuleGlobals) {
  constexpr std::string_view src = R"(
__device__ int table[4] = {5, -6, 7, 300};
__constant__ int coeff[4] = {1, 2, 3, 4};
__device__ int counter;
extern "C" __global__ void globals(const int *x, int *out) {
  int t = threadIdx.x;
  out[t] = table[t] * coeff[3 - t] + x[t];
  atomicAdd(&counter, t);
  table[t] = -t;
}
)";
  Launched r = run_cuda(src, Launch{}, {"x=[1,2,3,4]", "out=[0,0,0,0]"});
  EXPECT_EQ(r.mem["out"], (Values{21, -16, 17, 304}));  // 5*4+1, -6*3+2, 7*2+3, 300*1+4
  EXPECT_EQ(r.mem["table"], (Values{0, -1, -2, -3}));
  EXPECT_EQ(r.mem["coeff"], (Values{1, 2, 3, 4}));
  EXPECT_EQ(r.mem["counter"], (Values{6}));
  for (const char* op : {"mov.u64", "ld.const.u32", "atom.global.add.u32"}) EXPECT_TRUE(has(r.k.ptx, op)) << op;
}

// CUDA blocks of 4 threads: 4 resident at once, each with its own copy of __shared__.
TEST(CompileCuda, SharedArraysArePerBlock) {
  constexpr std::string_view src = R"(
extern "C" __global__ void rev_block(const int *x, int *out) {
  __shared__ int s[4];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = x[i] + blockIdx.x * 100;
  __syncthreads();
  out[i] = s[blockDim.x - 1 - threadIdx.x];
}
)";
  std::string x = "x=[0", out = "out=[0";
  for (int i = 1; i < 32; ++i) x += fmt::format(",{}", i), out += ",0";
  Launched r = run_cuda(src, Launch{.grid_x = 8}, {x + "]", out + "]"});
  Values want;  // block b reversed, plus 100 b: 3, 2, 1, 0, 107, 106, 105, 104, ...
  for (int b = 0; b < 8; ++b)
    for (int t = 0; t < 4; ++t) want.push_back(4 * b + 3 - t + 100 * b);
  EXPECT_EQ(r.mem["out"], want);
  for (int c = 0; c < 4; ++c) EXPECT_EQ(r.mem.count(fmt::format("s#{}", c)), 1u) << c;  // by its source name
  for (const char* op : {"st.shared.u32", "ld.shared.u32", "bar.sync"}) EXPECT_TRUE(has(r.k.ptx, op)) << op;
  // `qgpu run --dump blocks` prints the program as .qasm, which assembles back to it, the
  // copies' names (NAME#k) included.
  const Program again = assemble(disassemble(r.k.program), "dump.qasm");
  EXPECT_EQ(again.arrays, r.k.program.arrays);
  EXPECT_EQ(again.code, r.k.program.code);
}

// atomicAdd on a __shared__ counter (atom.shared.add.u32), one per block, two waves.
TEST(CompileCuda, SharedAtomicPerBlock) {
  constexpr std::string_view src = R"(
extern "C" __global__ void block_sum(const int *x, int *sums) {
  __shared__ int total;
  if (threadIdx.x == 0) total = 0;
  __syncthreads();
  atomicAdd(&total, x[blockIdx.x * blockDim.x + threadIdx.x]);
  __syncthreads();
  if (threadIdx.x == 0) sums[blockIdx.x] = total;
}
)";
  std::string x = "x=[1";
  for (int i = 2; i <= 32; ++i) x += fmt::format(",{}", i);
  Launched r = run_cuda(src, Launch{.grid_x = 8}, {x + "]", "sums=[0,0,0,0,0,0,0,0]"});
  // block b sums 4b+1 .. 4b+4 = 16b + 10
  EXPECT_EQ(r.mem["sums"], (Values{10, 26, 42, 58, 74, 90, 106, 122}));
  EXPECT_TRUE(has(r.k.ptx, "atom.shared.add.u32"));
}

// atomicMin/Max/Add on global words from two CUDA blocks.
TEST(CompileCuda, GlobalAtomics) {
  constexpr std::string_view src = R"(
extern "C" __global__ void extremes(const int *x, int *r) {
  int v = x[blockIdx.x * blockDim.x + threadIdx.x];
  atomicMin(&r[0], v);
  atomicMax(&r[1], v);
  atomicAdd(&r[2], v);
}
)";
  Launched r = run_cuda(src, Launch{.grid_x = 2}, {"x=[5,-3,12,7,-8,0,2,9]", "r=[1000,-1000,0]"});
  EXPECT_EQ(r.mem["r"], (Values{-8, 12, 24}));  // 5-3+12+7-8+0+2+9 = 24
  for (const char* op : {"atom.global.min.s32", "atom.global.max.s32", "atom.global.add.u32"})
    EXPECT_TRUE(has(r.k.ptx, op)) << op;
}

// clang's closed form of a sum: (n(n-1)/2 in 64 bits via mul.wide.u32, shr.u64 1,
// cvt.u32.u64) times tid; n(n-1) = 4899930000 needs the high half to be exact.
TEST(CompileCuda, SixtyFourBitShiftOfAProduct) {
  constexpr std::string_view src = R"(
extern "C" __global__ void tri_sum(int *out, int n) {
  unsigned acc = 0;
  for (unsigned i = 0; i < n; i++) acc += i * threadIdx.x;
  out[threadIdx.x] = acc;
}
)";
  Launched r = run_cuda(src, Launch{}, {"out=[0,0,0,0]", "n=70000"});
  // t * 2449965000 mod 2^32: 0, 2449965000 - 2^32, 4899930000 - 2^32, 7349895000 - 2^33
  EXPECT_EQ(r.mem["out"], (Values{0, -1845002296, 604962704, -1240039592}));
  for (const char* op : {"mul.wide.u32", "shr.u64", "cvt.u32.u64"}) EXPECT_TRUE(has(r.k.ptx, op)) << op;
  Launched small = run_cuda(src, Launch{}, {"out=[0,0,0,0]", "n=10"});
  EXPECT_EQ(small.mem["out"], (Values{0, 45, 90, 135}));
}

// Integer arithmetic as clang writes it: division by a constant (mul.hi), by a variable
// (div.s32), min/max/abs, a rotate (shf.l.wrap), not/xor and a bool (selp.u32).
TEST(CompileCuda, IntegerArithmetic) {
  constexpr std::string_view src = R"(
extern "C" __global__ void mix(const int *x, int *q7, int *qd, int *rd, unsigned *u10, int *mm,
                               int *ab, unsigned *rot, int *nx, int *pos, int d) {
  int t = threadIdx.x;
  int v = x[t];
  q7[t] = v / 7;
  qd[t] = v / d;
  rd[t] = v % d;
  u10[t] = (unsigned)v / 10u;
  mm[t] = max(min(v, 50), -50);
  ab[t] = abs(v);
  rot[t] = ((unsigned)v << 8) | ((unsigned)v >> 24);
  nx[t] = ~v ^ t;
  pos[t] = v > 0;
}
)";
  std::vector<std::string> args = {"x=[100,-100,45,-7]", "d=6"};
  for (const char* a : {"q7", "qd", "rd", "u10", "mm", "ab", "rot", "nx", "pos"})
    args.push_back(std::string(a) + "=[0,0,0,0]");
  Launched r = run_cuda(src, Launch{}, args);
  EXPECT_EQ(r.mem["q7"], (Values{14, -14, 6, -1}));
  EXPECT_EQ(r.mem["qd"], (Values{16, -16, 7, -1}));
  EXPECT_EQ(r.mem["rd"], (Values{4, -4, 3, -1}));
  EXPECT_EQ(r.mem["u10"], (Values{10, 429496719, 4, 429496728}));  // 0xffffff9c / 10, 0xfffffff9 / 10
  EXPECT_EQ(r.mem["mm"], (Values{50, -50, 45, -7}));
  EXPECT_EQ(r.mem["ab"], (Values{100, 100, 45, 7}));
  EXPECT_EQ(r.mem["rot"], (Values{25600, -25345, 11520, -1537}));  // 0x6400, 0xffff9cff, 0x2d00, 0xfffff9ff
  EXPECT_EQ(r.mem["nx"], (Values{-101, 98, -48, 5}));              // ~v: -101, 99, -46, 6; ^ t
  EXPECT_EQ(r.mem["pos"], (Values{1, 0, 1, 0}));
  for (const char* op : {"mul.hi.s32", "mul.hi.u32", "div.s32", "min.s32", "max.s32", "abs.s32",
                         "shf.l.wrap.b32", "not.b32", "xor.b32", "selp.u32", "shr.s32"})
    EXPECT_TRUE(has(r.k.ptx, op)) << op;
}

// Warp functions (warpSize 4) on a block of 6 threads: warp 1 has lanes 0-1 only, so a
// source lane 2 or 3 there reads a word no lane wrote (0: docs/isa.md).
TEST(CompileCuda, WarpShufflesAndVotes) {
  constexpr std::string_view src = R"(
extern "C" __global__ void ws(const int *x, int *out, int *bal) {
  int t = threadIdx.x;
  int v = x[t];
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);
  out[t] = v;
  out[t + 6] = __shfl_down_sync(0xffffffff, x[t], 1);
  out[t + 12] = __shfl_up_sync(0xffffffff, x[t], 2);
  out[t + 18] = __shfl_sync(0xffffffff, x[t], 5, 2);  // lane 5 of a 2-wide segment: its lane 1
  bal[t] = __ballot_sync(0xffffffff, x[t] > 3);
  bal[t + 6] = __activemask();
  bal[t + 12] = __any_sync(0xffffffff, x[t] > 5) * 10 + __all_sync(0xffffffff, x[t] > 0);
}
)";
  std::string out = "out=[0", bal = "bal=[0";
  for (int i = 1; i < 24; ++i) out += ",0";
  for (int i = 1; i < 18; ++i) bal += ",0";
  Launched r = run_cuda(src, Launch{.block_x = 6}, {"x=[1,2,3,4,5,6]", out + "]", bal + "]"});
  EXPECT_EQ(r.mem["out"], (Values{10, 10, 10, 10, 11, 11,  // warp sums; warp 1: 5 + 0, 6 + 0, then + each other
                                  2, 3, 4, 4, 6, 0,        // down 1: lane 3 keeps its own; warp 1 lane 1 reads lane 2's 0
                                  1, 2, 1, 2, 5, 6,        // up 2: lanes 0-1 keep theirs
                                  2, 2, 4, 4, 6, 6}));     // idx 5 width 2: lanes 1 and 3
  EXPECT_EQ(r.mem["bal"], (Values{8, 8, 8, 8, 3, 3, 15, 15, 15, 15, 3, 3, 1, 1, 1, 1, 11, 11}));
  for (const char* op : {"shfl.sync.bfly.b32", "shfl.sync.down.b32", "shfl.sync.up.b32", "shfl.sync.idx.b32",
                         "vote.sync.ballot.b32", "activemask.b32"})
    EXPECT_TRUE(has(r.k.ptx, op)) << op;
}

// docs/isa.md's source lane of a shuffle, written out here as the test's own reference.
int shfl_source(const std::string& mode, int lane, int b, int c) {
  const int seg = (c >> 8) & 3, clamp = c & 3, minl = lane & seg, maxl = minl | (clamp & ~seg & 3);
  int j = lane;
  bool ok = false;
  if (mode == "idx") j = minl | (b & ~seg & 3), ok = j <= maxl;
  if (mode == "bfly") j = lane ^ (b & 3), ok = j <= maxl;
  if (mode == "down") j = lane + (b & 31), ok = j <= maxl;
  if (mode == "up") j = lane - (b & 31), ok = j >= maxl;
  return ok ? j : lane;
}

// Every shuffle mode with its lane argument and c as constants (the optimiser folds them:
// constants, value ranges) and as loaded values (nothing folds), over a range of lane
// arguments and CUDA's c for widths 1, 2 and 4 and a few clamps: each lane gets lane j's
// value by the formula above.
TEST(CompileCuda, ShufflesFollowTheSourceLaneFormula) {
  for (const std::string mode : {"idx", "up", "down", "bfly"}) {
    std::vector<std::pair<int, int>> bc;
    for (int width : {1, 2, 4})
      for (int b : {-1, 0, 1, 2, 3, 5, 6})
        bc.push_back({b, ((4 - width) << 8) | (mode == "up" ? 0 : 0x1f)});
    bc.push_back({1, 0x102}), bc.push_back({2, 0x001}), bc.push_back({3, 0x200});  // other clamps
    constexpr size_t kPerLaunch = 2;  // 128 blocks
    for (size_t at = 0; at < bc.size(); at += kPerLaunch) {
      const size_t n = std::min(kPerLaunch, bc.size() - at);
      std::string body, cases = "k=[", out = "out=[0";
      for (size_t i = 0; i < n; ++i) {
        auto [b, c] = bc[at + i];
        body += fmt::format(
            "  asm volatile(\"shfl.sync.{0}.b32 %0, %1, %2, %3, -1;\" : \"=r\"(r) : \"r\"(v), \"r\"({1}), \"r\"({2}));\n"
            "  out[{3} * 4 + t] = r;\n"
            "  asm volatile(\"shfl.sync.{0}.b32 %0, %1, %2, %3, -1;\" : \"=r\"(r) : \"r\"(v), \"r\"(k[{3}]), \"r\"(k[{4}]));\n"
            "  out[{4} * 4 + t] = r;\n",
            mode, b, c, 2 * i, 2 * i + 1);
        cases += fmt::format("{}{},{}", i ? "," : "", b, c);
      }
      for (size_t i = 1; i < 8 * n; ++i) out += ",0";
      const std::string src = "extern \"C\" __global__ void s(const int *k, int *out) {\n"
                              "  int t = threadIdx.x, v = 100 + t, r;\n" + body + "}\n";
      Launched r = run_cuda(src, Launch{}, {cases + "]", out + "]"});
      for (size_t i = 0; i < n; ++i)
        for (int loaded : {0, 1})
          for (int lane = 0; lane < 4; ++lane) {
            auto [b, c] = bc[at + i];
            EXPECT_EQ(r.mem["out"][(2 * i + loaded) * 4 + lane], 100 + shfl_source(mode, lane, b, c))
                << mode << " b=" << b << " c=0x" << std::hex << c << std::dec << " lane " << lane
                << (loaded ? " (loaded)" : " (constant)");
          }
    }
  }
}

// Scalar parameters are loaded from their words (issue 25), never folded: the sum and
// product of two scalars are computed by the machine, and a kernel that would need more
// than 15 registers with its parameters held gets them loaded again where they are used.
TEST(CompileCuda, ScalarParametersAreLoadedNotFolded) {
  constexpr std::string_view src = R"(
extern "C" __global__ void two(int *out, int a, int b) { out[0] = a + b; out[1] = a * b - 3; }
)";
  Launched r = run_cuda(src, Launch{.block_x = 1}, {"out=[0,0]", "a=5", "b=7"});
  EXPECT_EQ(r.mem["out"], (Values{12, 32}));
  EXPECT_EQ(r.mem["a"], (Values{5}));
  EXPECT_EQ(r.mem["b"], (Values{7}));
  int loads = 0;
  for (const Instr& in : r.k.program.code) {
    loads += in.op == Op::kLd;
    if (in.op == Op::kLd) continue;  // a load's immediate is its word's address
    EXPECT_NE(in.imm, 12) << instr_text(in);
    EXPECT_NE(in.imm, 35) << instr_text(in);
  }
  EXPECT_EQ(loads, 2);
}

}  // namespace
}  // namespace qgpu
