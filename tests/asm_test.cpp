// The assembler and printer: every operand form parses to the expected fields, printed
// programs assemble back to equal programs, and every diagnostic has its exact text
// (file:line:col, the source line and a caret), several problems in one throw.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "base/error.h"
#include "gpu/program.h"

namespace qgpu {

// For readable failures.
void PrintTo(const Instr& in, std::ostream* os) {
  *os << instr_text(in) << " (imm " << in.imm << ")";
}
void PrintTo(const Launch& l, std::ostream* os) {
  *os << "grid " << l.grid_x << "x" << l.grid_y << " block " << l.block_x << "x" << l.block_y;
}
void PrintTo(const Array& a, std::ostream* os) {
  *os << a.name << " " << a.size << " @" << a.base << " =";
  for (uint32_t v : a.init) *os << " " << v;
}

namespace {

// The message assemble() throws for text, or "(no error)".
std::string asm_error(std::string_view text) {
  try {
    assemble(text, "t.qasm");
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// The first instruction of prelude + line, followed by an exit.
Instr parse_one(std::string_view line) {
  std::string text = ".array x 4\n.array y 3\n" + std::string(line) + "\nexit\n";
  Program p = assemble(text, "t.qasm");
  EXPECT_EQ(p.code.size(), 2u) << line;
  return p.code.at(0);
}

void expect_same_program(const Program& got, const Program& want) {
  EXPECT_EQ(got.kernel, want.kernel);
  ASSERT_EQ(got.code.size(), want.code.size());
  for (size_t i = 0; i < got.code.size(); ++i)
    EXPECT_EQ(got.code[i], want.code[i]) << "block " << i;
  EXPECT_EQ(got.arrays, want.arrays);
  EXPECT_EQ(got.launch, want.launch);
}

// assemble(disassemble(p)) == p, and printing is stable.
void expect_round_trip(const Program& p) {
  std::string text = disassemble(p);
  Program back = assemble(text, "round-trip");
  expect_same_program(back, p);
  EXPECT_EQ(disassemble(back), text);
}

// ---- Operand forms.

struct FormCase {
  std::string line;
  Instr want;
};

// With the prelude's arrays: x at word 0 (4 words), y at word 4 (3 words). An array's name
// stands for its byte address, as in PTX: x = 0, y = 16.
const std::vector<FormCase> kForms = {
    {"mov r0, %tid.x", {.op = Op::kMov, .d = reg(0), .a = special(Special::kTidX)}},
    {"add r1, r2, r3", {.op = Op::kAdd, .d = reg(1), .a = reg(2), .b = reg(3)}},
    {"add r14, r2, 0x10", {.op = Op::kAdd, .d = reg(14), .a = reg(2), .b = imm(), .imm = 16}},
    {"add r1, r2, -0x10", {.op = Op::kAdd, .d = reg(1), .a = reg(2), .b = imm(), .imm = -16}},
    {"sub r1, -7, r2", {.op = Op::kSub, .d = reg(1), .a = imm(), .b = reg(2), .imm = -7}},
    {"mov r1, 0xffffffff", {.op = Op::kMov, .d = reg(1), .a = imm(), .imm = -1}},
    {"mov r1, 4294967295", {.op = Op::kMov, .d = reg(1), .a = imm(), .imm = -1}},
    {"mov r1, 0x80000000", {.op = Op::kMov, .d = reg(1), .a = imm(), .imm = INT32_MIN}},
    {"mov r1, -2147483648", {.op = Op::kMov, .d = reg(1), .a = imm(), .imm = INT32_MIN}},
    {"mov r1, +5", {.op = Op::kMov, .d = reg(1), .a = imm(), .imm = 5}},
    {"mov r1, y", {.op = Op::kMov, .d = reg(1), .a = imm(), .imm = 16}},
    {"mov r1, y+8", {.op = Op::kMov, .d = reg(1), .a = imm(), .imm = 24}},
    {"ld r1, [r2+5]", {.op = Op::kLd, .d = reg(1), .a = reg(2), .imm = 5}},
    {"ld r1, [r2-5]", {.op = Op::kLd, .d = reg(1), .a = reg(2), .imm = -5}},
    {"ld r1, [r2]", {.op = Op::kLd, .d = reg(1), .a = reg(2)}},
    {"ld r1, [ r2 + 5 ]", {.op = Op::kLd, .d = reg(1), .a = reg(2), .imm = 5}},
    {"ld r1, [r2+0x7f]", {.op = Op::kLd, .d = reg(1), .a = reg(2), .imm = 127}},
    {"ld r1, [7]", {.op = Op::kLd, .d = reg(1), .imm = 7}},
    {"ld r1, [-3]", {.op = Op::kLd, .d = reg(1), .imm = -3}},
    {"ld r1, [y]", {.op = Op::kLd, .d = reg(1), .imm = 16}},
    {"ld r1, [y+8]", {.op = Op::kLd, .d = reg(1), .imm = 24}},
    {"ld r1, [y-4]", {.op = Op::kLd, .d = reg(1), .imm = 12}},
    {"ld r1, [r2+y]", {.op = Op::kLd, .d = reg(1), .a = reg(2), .imm = 16}},
    {"ld r1, [r2+y+4]", {.op = Op::kLd, .d = reg(1), .a = reg(2), .imm = 20}},
    {"ld r1, [%ctaid.x+8]",
     {.op = Op::kLd, .d = reg(1), .a = special(Special::kCtaidX), .imm = 8}},
    {"st [r3+2], r4", {.op = Op::kSt, .a = reg(3), .b = reg(4), .imm = 2}},
    {"st [y], %laneid", {.op = Op::kSt, .b = special(Special::kLaneid), .imm = 16}},
    {"atom.add r0, [r1+12], r2",
     {.op = Op::kAtomAdd, .d = reg(0), .a = reg(1), .b = reg(2), .imm = 12}},
    {"atom.cas r0, [x+4], r2, r3",
     {.op = Op::kAtomCas, .d = reg(0), .b = reg(2), .c = reg(3), .imm = 4}},
    {"selp r1, r2, 5, p3",
     {.op = Op::kSelp, .d = reg(1), .a = reg(2), .b = imm(), .c = pred(3), .imm = 5}},
    {"mad.lo r1, r2, r3, 9",
     {.op = Op::kMadLo, .d = reg(1), .a = reg(2), .b = reg(3), .c = imm(), .imm = 9}},
    {"setp.lt.u p2, r1, -1",
     {.op = Op::kSetpLtU, .d = pred(2), .a = reg(1), .b = imm(), .imm = -1}},
    {"and.pred p0, p1, 1", {.op = Op::kAndPred, .d = pred(0), .a = pred(1), .b = imm(), .imm = 1}},
    {"not.pred p3, p0", {.op = Op::kNotPred, .d = pred(3), .a = pred(0)}},
    {"mov.pred p1, 0", {.op = Op::kMovPred, .d = pred(1), .a = imm()}},
    {"bar", {.op = Op::kBar}},
    {"exit", {.op = Op::kExit}},
    {"bra 1", {.op = Op::kBra, .imm = 1}},
    {"@p0 add r1, r2, r3",
     {.op = Op::kAdd, .guard = {0, false}, .d = reg(1), .a = reg(2), .b = reg(3)}},
    {"@!p3 exit", {.op = Op::kExit, .guard = {3, true}}},
    {"  @!p1   bar   ", {.op = Op::kBar, .guard = {1, true}}},
    {"add r1, r2, r3 ; a comment", {.op = Op::kAdd, .d = reg(1), .a = reg(2), .b = reg(3)}},
    {"add r1, r2, r3 // a comment", {.op = Op::kAdd, .d = reg(1), .a = reg(2), .b = reg(3)}},
};

TEST(Asm, OperandForms) {
  for (const FormCase& k : kForms) EXPECT_EQ(parse_one(k.line), k.want) << k.line;
}

TEST(Asm, EverySpecialRegister) {
  for (const SpecialInfo& s : kSpecials) {
    Instr want{.op = Op::kMov, .d = reg(3), .a = special(s.special)};
    EXPECT_EQ(parse_one("mov r3, " + std::string(s.name)), want) << s.name;
  }
}

TEST(Asm, SourceLinesAreRecorded) {
  Program p = assemble("; comment\n\nadd r1, r1, r1\n  exit\n");
  EXPECT_EQ(p.code[0].line, 3);
  EXPECT_EQ(p.code[1].line, 4);
}

TEST(Asm, LabelsForwardAndBackward) {
  Program p = assemble(
      "top:\n"
      "    add r0, r0, 1          ; block 0\n"
      "    setp.lt.s p0, r0, 10   // block 1\n"
      "    @p0 bra top            ; block 2: backward\n"
      "    bra done               ; block 3: forward\n"
      "mid: two: mov r1, 2        ; block 4: two labels\n"
      "    @!p0 bra two           ; block 5\n"
      "    bra mid                ; block 6\n"
      "done:\n"
      "\n"
      "    exit                   ; block 7\n");
  ASSERT_EQ(p.code.size(), 8u);
  EXPECT_EQ(p.code[2], (Instr{.op = Op::kBra, .guard = {0, false}, .imm = 0}));
  EXPECT_EQ(p.code[3], (Instr{.op = Op::kBra, .imm = 7}));
  EXPECT_EQ(p.code[5], (Instr{.op = Op::kBra, .guard = {0, true}, .imm = 4}));
  EXPECT_EQ(p.code[6], (Instr{.op = Op::kBra, .imm = 4}));
}

TEST(Asm, Directives) {
  Program p = assemble(
      ".kernel vec\n"
      ".grid 3 2\n"
      ".block 2 4\n"
      ".array late 2 @100\n"
      ".array a 3 = 1, -2, 0x10\n"
      ".array early 1 @0 = 0xffffffff\n"
      "exit\n");
  EXPECT_EQ(p.kernel, "vec");
  EXPECT_EQ(p.launch, (Launch{3, 2, 2, 4}));
  // Sorted by base; an array without @BASE follows the one before it in the text.
  EXPECT_EQ(p.arrays, (std::vector<Array>{{"early", 0, 1, {0xffffffffu}},
                                          {"late", 100, 2, {0, 0}},
                                          {"a", 102, 3, {1, 0xfffffffeu, 16}}}));
  EXPECT_EQ(assemble(".grid 5\n.block 16\nexit\n").launch, (Launch{5, 1, 16, 1}));
  EXPECT_EQ(assemble("exit\n").kernel, "main");
  EXPECT_EQ(assemble("exit\n").launch, (Launch{1, 1, 4, 1}));
}

// An array's name is its byte address, 4 * its word base; SIZE and @BASE stay in words.
TEST(Asm, ArraySymbolIsItsByteAddress) {
  Program p = assemble(
      ".array a 3\n"      // words 0..2: byte 0
      ".array b 2 @10\n"  // words 10..11: byte 40
      ".array c 1\n"      // follows b, word 12: byte 48
      "mov r0, a\n"
      "mov r1, b\n"
      "ld r2, [c]\n"
      "st [r0+b+4], r2\n"
      "mov r3, c-8\n"
      "exit\n");
  EXPECT_EQ(p.arrays, (std::vector<Array>{{"a", 0, 3, {0, 0, 0}},
                                          {"b", 10, 2, {0, 0}},
                                          {"c", 12, 1, {0}}}));
  EXPECT_EQ(p.code[0], (Instr{.op = Op::kMov, .d = reg(0), .a = imm(), .imm = 0}));
  EXPECT_EQ(p.code[1], (Instr{.op = Op::kMov, .d = reg(1), .a = imm(), .imm = 40}));
  EXPECT_EQ(p.code[2], (Instr{.op = Op::kLd, .d = reg(2), .imm = 48}));
  EXPECT_EQ(p.code[3], (Instr{.op = Op::kSt, .a = reg(0), .b = reg(2), .imm = 44}));
  EXPECT_EQ(p.code[4], (Instr{.op = Op::kMov, .d = reg(3), .a = imm(), .imm = 40}));
}

// ---- Printing and round trips.

TEST(Asm, DisassembleText) {
  Program p = assemble(
      ".kernel k\n"
      ".grid 2\n"
      ".array x 3 @1 = 1, -1, 0\n"
      ".array y 2 @8\n"
      "loop: ld r1, [r0+x]\n"
      "    @!p1 add r1, r1, -0x10\n"
      "    st [y+4], r1\n"
      "    ld r2, [r0-4]\n"
      "    setp.lt.u p1, r1, 3\n"
      "    @p1 bra loop\n"
      "    exit\n");
  EXPECT_EQ(disassemble(p),
            ".kernel k\n"
            ".grid 2 1\n"
            ".block 4 1\n"
            ".array x 3 @1 = 1, -1, 0\n"
            ".array y 2 @8\n"
            "L0:\n"
            "    ld r1, [r0+4]\n"
            "    @!p1 add r1, r1, -16\n"
            "    st [36], r1\n"
            "    ld r2, [r0-4]\n"
            "    setp.lt.u p1, r1, 3\n"
            "    @p1 bra L0\n"
            "    exit\n");
}

// One instruction of every op, in every operand form.
const char* const kEveryOp = R"(
.kernel every_op
.grid 2 3
.block 4 2
.array a 4 = 1, -2, 0x7fffffff, -2147483648
.array b 2 @10
.array c 3
top:
    mov r0, %tid.x
    add r1, r0, 1
    sub r2, r1, -1
    mul.lo r3, r2, 0x10
    mul.hi.s r4, r3, r2
    mul.hi.u r5, r3, %ntid.y
    mad.lo r6, r5, r4, 7
    div.s r7, r6, -3
    div.u r8, r7, r6
    rem.s r9, r8, 5
    rem.u r10, r9, r8
    neg r11, r10
    abs r12, -2147483648
    min.s r13, r12, r11
    min.u r14, r13, 0xffffffff
    max.s r0, r14, %ctaid.x
    max.u r1, %laneid, %warpid
    and r2, r1, 255
    or r3, r2, r1
    xor r4, r3, r2
    not r5, r4
    shl r6, r5, 31
    shr.u r7, r6, 33
    shr.s r8, r7, r6
    popc r9, r8
    clz r10, r9
    brev r11, r10
    selp r12, r11, 3, p0
    setp.eq p0, r12, 0
    setp.ne p1, r12, r11
    setp.lt.s p2, r0, -5
    setp.le.s p3, r0, r1
    setp.gt.s p0, %nctaid.x, r1
    setp.ge.s p1, r0, r1
    setp.lt.u p2, r0, r1
    setp.le.u p3, r0, 9
    setp.gt.u p0, r0, r1
    setp.ge.u p1, r0, %nctaid.y
    and.pred p2, p0, p1
    or.pred p3, p2, 1
    xor.pred p0, p3, p1
    not.pred p1, p0
    mov.pred p2, 0
    ld r1, [r0+a]
    ld r2, [b+4]
    ld r3, [r0-4]
    ld r4, [%ctaid.y+8]
    st [r0+c], r1
    st [48], r2
    atom.add r5, [r0+a], r1
    atom.min.s r6, [r0], r2
    atom.min.u r7, [a+12], r3
    atom.max.s r8, [r0+4], r4
    atom.max.u r9, [r0+8], r5
    atom.exch r10, [r0+12], r6
    atom.cas r11, [r0+c], r7, r8
    add.f32 r1, r0, 0f3fc00000
    sub.f32 r2, r1, r0
    mul.f32 r3, r2, 0x40000000
    fma.f32 r4, r3, r2, r1
    min.f32 r5, r4, r3
    max.f32 r6, r5, %tid.x
    neg.f32 r7, r6
    abs.f32 r8, r7
    div.f32 r9, r8, r7
    sqrt.f32 r10, r9
    cvt.f32.s32 r11, r0
    cvt.f32.u32 r12, r0
    cvt.s32.f32 r13, r12
    cvt.u32.f32 r14, r12
    cvt.rni.f32 r1, r2
    cvt.rmi.f32 r2, r3
    cvt.rpi.f32 r3, r4
    cvt.rzi.f32 r4, r5
    setp.eq.f32 p0, r1, r2
    setp.ne.f32 p1, r1, r2
    setp.lt.f32 p2, r1, r2
    setp.le.f32 p3, r1, 0f7f800000
    setp.gt.f32 p0, r1, r2
    setp.ge.f32 p1, r1, r2
    setp.equ.f32 p2, r1, r2
    setp.neu.f32 p3, r1, r2
    setp.ltu.f32 p0, r1, r2
    setp.leu.f32 p1, r1, r2
    setp.gtu.f32 p2, r1, r2
    setp.geu.f32 p3, r1, r2
    add.f32.sig r9, r5, r8
    add.f32.rnd r9, r9, r5, r8
    @p0 bra top
    @!p3 bra done
    bar
done:
    exit
)";

TEST(Asm, EveryOpProgramCoversTheTable) {
  Program p = assemble(kEveryOp);
  std::set<Op> seen;
  for (const Instr& in : p.code) seen.insert(in.op);
  for (const OpInfo& info : kOps) EXPECT_TRUE(seen.count(info.op)) << info.mnemonic;
}

TEST(Asm, RoundTripEveryOp) { expect_round_trip(assemble(kEveryOp)); }

TEST(Asm, RoundTripBuiltProgram) {
  Program p;
  p.kernel = "built";
  p.launch = {16, 16, 4, 4};
  p.arrays = {{"lo", 0, 2, {0x80000000u, 0xffffffffu}}, {"hi", 120, 6, {0, 0, 0, 0, 0, 7}}};
  p.code = {
      {.op = Op::kLd, .d = reg(0), .a = reg(14), .imm = INT32_MIN},
      {.op = Op::kLd, .d = reg(1), .imm = -3},
      {.op = Op::kSt, .a = special(Special::kWarpid), .b = reg(1), .imm = -1},
      {.op = Op::kAdd, .guard = {2, true}, .d = reg(2), .a = imm(), .b = reg(1), .imm = INT32_MAX},
      {.op = Op::kMovPred, .guard = {1, false}, .d = pred(3), .a = imm(), .imm = 1},
      {.op = Op::kAtomCas, .d = reg(5), .a = special(Special::kTidY), .b = reg(1), .c = reg(2)},
      {.op = Op::kBra, .guard = {3, false}, .imm = 0},
      {.op = Op::kBra, .imm = 5},
  };
  ASSERT_EQ(check_program(p), std::vector<std::string>{});
  expect_round_trip(p);
}

TEST(Asm, RoundTripExamples) {
  std::filesystem::path dir = std::filesystem::path(QGPU_SOURCE_DIR) / "examples";
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".qasm") continue;
    std::ifstream f(entry.path());
    std::stringstream text;
    text << f.rdbuf();
    SCOPED_TRACE(entry.path().filename().string());
    expect_round_trip(assemble(text.str(), entry.path().string()));
    ++n;
  }
  EXPECT_GE(n, 1);
}

// ---- Diagnostics, exact text.

TEST(AsmError, UnknownInstruction) {
  EXPECT_EQ(asm_error("    frob r1, r2\nexit\n"),
            "t.qasm:1:5: unknown instruction 'frob' (see `qgpu isa`)\n"
            "      frob r1, r2\n"
            "      ^");
}

TEST(AsmError, NoSuchRegister) {
  EXPECT_EQ(asm_error("add r24, r1, r2\nexit\n"),
            "t.qasm:1:5: 'r24' does not exist: a lane has r0..r23\n"
            "  add r24, r1, r2\n"
            "      ^");
  EXPECT_EQ(asm_error("ld r1, [r24+2]\nexit\n"),
            "t.qasm:1:8: 'r24' does not exist: a lane has r0..r23\n"
            "  ld r1, [r24+2]\n"
            "         ^");
}

TEST(AsmError, NoSuchPredicate) {
  EXPECT_EQ(asm_error("setp.eq p4, r1, r2\nexit\n"),
            "t.qasm:1:9: 'p4' does not exist: a lane has p0..p3\n"
            "  setp.eq p4, r1, r2\n"
            "          ^");
  EXPECT_EQ(asm_error("@p4 exit\nexit\n"),
            "t.qasm:1:2: guard must be @pN or @!pN with N in 0..3\n"
            "  @p4 exit\n"
            "   ^");
}

TEST(AsmError, UnknownSpecial) {
  EXPECT_EQ(asm_error("mov r0, %tid.z\nexit\n"),
            "t.qasm:1:9: unknown special register '%tid.z' (see `qgpu isa`)\n"
            "  mov r0, %tid.z\n"
            "          ^");
}

TEST(AsmError, WrongOperandCount) {
  EXPECT_EQ(asm_error("add r0, r1\nexit\n"),
            "t.qasm:1:1: 'add' takes 3 operands, got 2\n"
            "  add r0, r1\n"
            "  ^");
  EXPECT_EQ(asm_error("bra\nexit\n"),
            "t.qasm:1:1: 'bra' takes 1 operand, got 0\n"
            "  bra\n"
            "  ^");
  EXPECT_EQ(asm_error("exit r1\n"),
            "t.qasm:1:1: 'exit' takes 0 operands, got 1\n"
            "  exit r1\n"
            "  ^");
}

TEST(AsmError, TwoImmediates) {  // (two operands may read one: add r0, 3, 3)
  EXPECT_EQ(asm_error("add r0, 1, 2\nexit\n"),
            "t.qasm:1:12: at most one immediate value per instruction: move the others into registers\n"
            "  add r0, 1, 2\n"
            "             ^");
}

TEST(AsmError, OperandsDoNotFitTheForm) {
  EXPECT_EQ(asm_error("add p0, r1, r2\nexit\n"),
            "t.qasm:1:1: operands do not fit 'add rD, A, B'\n"
            "  add p0, r1, r2\n"
            "  ^");
  EXPECT_EQ(asm_error("ld r0, r1\nexit\n"),
            "t.qasm:1:8: expected an address [base+offset]\n"
            "  ld r0, r1\n"
            "         ^");
  EXPECT_EQ(asm_error("add r0, [r1], r2\nexit\n"),
            "t.qasm:1:9: an address [..] is not allowed here\n"
            "  add r0, [r1], r2\n"
            "          ^");
}

TEST(AsmError, MalformedOperands) {
  EXPECT_EQ(asm_error("ld r1, [r2+5\nexit\n"),
            "t.qasm:1:8: address must end with ']'\n"
            "  ld r1, [r2+5\n"
            "         ^");
  EXPECT_EQ(asm_error("add r1, , r2\nexit\n"),
            "t.qasm:1:8: missing operand\n"
            "  add r1, , r2\n"
            "         ^");
  EXPECT_EQ(asm_error("ld r1, []\nexit\n"),
            "t.qasm:1:8: missing immediate\n"
            "  ld r1, []\n"
            "         ^");
  EXPECT_EQ(asm_error("mov r1, 0x\nexit\n"),
            "t.qasm:1:9: '0x' is not an integer\n"
            "  mov r1, 0x\n"
            "          ^");
}

TEST(AsmError, UnknownLabelAndSymbol) {
  EXPECT_EQ(asm_error("bra nowhere\nexit\n"),
            "t.qasm:1:5: unknown label 'nowhere'\n"
            "  bra nowhere\n"
            "      ^");
  EXPECT_EQ(asm_error("ld r0, [r1+nope]\nexit\n"),
            "t.qasm:1:8: unknown symbol 'nope'\n"
            "  ld r0, [r1+nope]\n"
            "         ^");
}

TEST(AsmError, LabelDefinedTwice) {
  EXPECT_EQ(asm_error("a: exit\n  a: exit\n"),
            "t.qasm:2:3: label 'a' is defined twice\n"
            "    a: exit\n"
            "    ^");
}

TEST(AsmError, ImmediateTooWide) {
  EXPECT_EQ(asm_error("mov r0, 0x100000000\nexit\n"),
            "t.qasm:1:9: 4294967296 does not fit in 32 bits\n"
            "  mov r0, 0x100000000\n"
            "          ^");
}

TEST(AsmError, UnknownDirective) {
  EXPECT_EQ(asm_error(".frob 3\nexit\n"),
            "t.qasm:1:1: unknown directive '.frob' (expected .kernel, .grid, .block or .array)\n"
            "  .frob 3\n"
            "  ^");
}

TEST(AsmError, ArrayDirective) {
  EXPECT_EQ(asm_error(".array a 127\nexit\n"),
            "t.qasm:1:10: array size must be 1..126 words\n"
            "  .array a 127\n"
            "           ^");
  EXPECT_EQ(asm_error(".array a 2 = 1, 2, 3\nexit\n"),
            "t.qasm:1:20: array 'a' has 2 words but more values are given\n"
            "  .array a 2 = 1, 2, 3\n"
            "                     ^");
  EXPECT_EQ(asm_error(".array a 2 = 1, x\nexit\n"),
            "t.qasm:1:17: array contents must be 32-bit integers\n"
            "  .array a 2 = 1, x\n"
            "                  ^");
}

TEST(AsmError, ArraysOverflowMemory) {
  EXPECT_EQ(asm_error(".array a 100\n.array b 30\nexit\n"),
            "t.qasm:2:1: the arrays need words 0..129 (130 words in use); global memory has 126 "
            "words (4 too many): make the arrays smaller\n"
            "  .array b 30\n"
            "  ^");
}

TEST(AsmError, TooManyBlocks) {
  std::string text;
  for (int i = 0; i < 258; ++i) text += "exit\n";
  EXPECT_EQ(asm_error(text),
            "t.qasm:257:1: the program has 258 blocks; the ROM holds 256 (2 too many): simplify the "
            "kernel or split it into several launches\n"
            "  exit\n"
            "  ^");
  text.resize(128 * 5);
  EXPECT_EQ(asm_error(text), "(no error)");
}

TEST(AsmError, BranchTargetOutOfRange) {
  EXPECT_EQ(asm_error("bra 5\nexit\n"),
            "t.qasm:1:1: branch target 5 is outside the program (blocks 0..1)\n"
            "  bra 5\n"
            "  ^");
  EXPECT_EQ(asm_error("bra -1\nexit\n"),
            "t.qasm:1:1: branch target -1 is outside the program (blocks 0..1)\n"
            "  bra -1\n"
            "  ^");
  // A label after the last instruction names block n, one past the end.
  EXPECT_EQ(asm_error("bra end\nexit\nend:\n"),
            "t.qasm:1:1: branch target 2 is outside the program (blocks 0..1)\n"
            "  bra end\n"
            "  ^");
}

TEST(AsmError, LastBlockMustEndTheProgram) {
  EXPECT_EQ(asm_error("add r0, r0, 1\n"),
            "t.qasm:1:1: block 0 (add r0, r0, 1): the last block must be 'exit' or an unguarded "
            "'bra', or lanes run off the end of the program\n"
            "  add r0, r0, 1\n"
            "  ^");
  EXPECT_EQ(asm_error("exit\n@p0 exit\n"),
            "t.qasm:2:1: block 1 (@p0 exit): the last block must be 'exit' or an unguarded "
            "'bra', or lanes run off the end of the program\n"
            "  @p0 exit\n"
            "  ^");
  EXPECT_EQ(asm_error("; nothing\n"), "t.qasm: the program has no instructions");
}

TEST(AsmError, GuardWritesItsOwnPredicate) {
  EXPECT_EQ(asm_error("@p1 setp.eq p1, r0, r1\nexit\n"),
            "t.qasm:1:5: a guarded instruction cannot write its own guard predicate\n"
            "  @p1 setp.eq p1, r0, r1\n"
            "      ^");
  EXPECT_EQ(asm_error("@!p2 not.pred p2, p0\nexit\n"),
            "t.qasm:1:6: a guarded instruction cannot write its own guard predicate\n"
            "  @!p2 not.pred p2, p0\n"
            "       ^");
  EXPECT_EQ(asm_error("@p1 setp.eq p2, r0, r1\nexit\n"), "(no error)");
}

TEST(AsmError, PredicateImmediate) {
  EXPECT_EQ(asm_error("mov.pred p0, 2\nexit\n"),
            "t.qasm:1:1: predicate immediate must be 0 or 1, not 2\n"
            "  mov.pred p0, 2\n"
            "  ^");
  EXPECT_EQ(asm_error("and.pred p0, p1, -1\nexit\n"),
            "t.qasm:1:1: predicate immediate must be 0 or 1, not -1\n"
            "  and.pred p0, p1, -1\n"
            "  ^");
}

TEST(AsmError, SeveralErrorsInOneThrow) {
  EXPECT_EQ(asm_error("frob\n"
                      "add r0, r24, 1\n"
                      "exit\n"
                      "bra nowhere\n"
                      "mov.pred p0, 3\n"
                      "exit\n"),
            "t.qasm:1:1: unknown instruction 'frob' (see `qgpu isa`)\n"
            "  frob\n"
            "  ^\n"
            "t.qasm:2:9: 'r24' does not exist: a lane has r0..r23\n"
            "  add r0, r24, 1\n"
            "          ^\n"
            "t.qasm:4:5: unknown label 'nowhere'\n"
            "  bra nowhere\n"
            "      ^\n"
            "t.qasm:5:1: predicate immediate must be 0 or 1, not 3\n"
            "  mov.pred p0, 3\n"
            "  ^");
}

TEST(AsmError, LaunchLimitsFromTheText) {
  EXPECT_EQ(asm_error(".grid 400\nexit\n"),
            "t.qasm:1:1: grid 400x1 = 400 CUDA blocks; a launch runs at most 256 (144 too many): "
            "use fewer, larger CUDA blocks or loop inside the kernel\n"
            "  .grid 400\n"
            "  ^");
}

// ---- Launch checks.

TEST(CheckLaunch, Limits) {
  EXPECT_EQ(check_launch({20, 20, 4, 1}),
            std::vector<std::string>{"grid 20x20 = 400 CUDA blocks; a launch runs at most 256 "
                                     "(144 too many): use fewer, larger CUDA blocks or loop "
                                     "inside the kernel"});
  EXPECT_EQ(check_launch({1, 1, 32, 1}),
            std::vector<std::string>{"CUDA block 32x1 = 32 threads; the machine has 16 (4 warps "
                                     "of 4 lanes), 16 too many: use more CUDA blocks"});
  EXPECT_EQ(check_launch({0, 1, 4, 1}),
            std::vector<std::string>{"launch dimensions must be >= 1 (grid 0x1, block 4x1)"});
  EXPECT_EQ(check_launch({16, 16, 4, 4}), std::vector<std::string>{});
  EXPECT_EQ(check_launch({256, 2, 8, 4}).size(), 2u);
}

}  // namespace
}  // namespace qgpu
