// The PTX parser against real compiler output and hand-written snippets. The fixtures in
// tests/fixtures/ptx/ are clang 14 / clang 19 / nvcc 13 output for the .cu files beside
// them (README.md there has the command lines); tests assert concrete facts about the
// tree. Syntax errors are checked by their exact text.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "compiler/ptx.h"
#include "compiler/ptx_lines.h"

namespace qgpu {
namespace {

using K = PtxOperandKind;

const std::filesystem::path kFixtures =
    std::filesystem::path(QGPU_SOURCE_DIR) / "tests" / "fixtures" / "ptx";

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

PtxModule parse_fixture(const std::string& name) {
  return parse_ptx(read_text(kFixtures / name), name);
}

// The message parse_ptx throws, or "no error".
std::string parse_error(std::string_view text) {
  try {
    parse_ptx(text, "t.ptx");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

std::vector<const PtxInstr*> instrs(const PtxFunction& f) {
  std::vector<const PtxInstr*> out;
  for (const PtxStmt& s : f.body)
    if (s.instr) out.push_back(&*s.instr);
  return out;
}

std::vector<std::string> labels(const PtxFunction& f) {
  std::vector<std::string> out;
  for (const PtxStmt& s : f.body)
    if (s.label) out.push_back(*s.label);
  return out;
}

// The n-th instruction (0-based) with this opcode; fails the test when there is none.
const PtxInstr& find(const PtxFunction& f, std::string_view opcode, int n = 0) {
  for (const PtxInstr* in : instrs(f))
    if (in->opcode == opcode && n-- == 0) return *in;
  ADD_FAILURE() << "no " << opcode << " in " << f.name;
  static const PtxInstr kNone;
  return kNone;
}

int count(const PtxFunction& f, std::string_view opcode) {
  int n = 0;
  for (const PtxInstr* in : instrs(f)) n += in->opcode == opcode;
  return n;
}

const PtxFunction& only_function(const PtxModule& m) {
  EXPECT_EQ(m.functions.size(), 1u);
  return m.functions.at(0);
}

constexpr std::string_view kHeader = ".version 6.3\n.target sm_75\n.address_size 64\n";

// A module with one kernel `k` whose body is `body` (lines from 6 on).
std::string kernel(std::string_view body) {
  return std::string(kHeader) + ".visible .entry k()\n{\n" + std::string(body) + "}\n";
}

// ---- Fixtures: clang output -----------------------------------------------------------

TEST(PtxParser, EveryFixtureParses) {
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kFixtures)) {
    if (entry.path().extension() != ".ptx") continue;
    PtxModule m = parse_fixture(entry.path().filename().string());
    EXPECT_FALSE(m.functions.empty()) << entry.path();
    ++n;
  }
  EXPECT_GE(n, 10);
}

TEST(PtxParser, VecaddHeaderParamsAndRegisters) {
  PtxModule m = parse_fixture("vecadd.clang14.Os.ptx");
  EXPECT_EQ(m.version, "6.3");
  EXPECT_EQ(m.target, "sm_75");
  EXPECT_EQ(m.address_size, 64);
  const std::vector<std::string> lines = text_lines(read_text(kFixtures / "vecadd.clang14.Os.ptx"));
  EXPECT_EQ(lines.size(), 46u);
  EXPECT_EQ(lines[21], "\tld.param.u32 \t%r1, [vecadd_param_3];");
  const PtxFunction& f = only_function(m);
  EXPECT_TRUE(f.is_entry);
  EXPECT_EQ(f.name, "vecadd");
  EXPECT_EQ(f.line, 11);
  ASSERT_EQ(f.params.size(), 4u);
  EXPECT_EQ(f.params[0].space, ".param");
  EXPECT_EQ(f.params[0].type, ".u64");
  EXPECT_EQ(f.params[0].name, "vecadd_param_0");
  EXPECT_EQ(f.params[3].type, ".u32");
  EXPECT_EQ(f.params[3].name, "vecadd_param_3");
  ASSERT_EQ(f.locals.size(), 3u);
  EXPECT_EQ(f.locals[0].space, ".reg");
  EXPECT_EQ(f.locals[0].type, ".pred");
  EXPECT_EQ(f.locals[0].name, "%p");
  EXPECT_EQ(f.locals[0].count, 2);
  EXPECT_EQ(f.locals[2].type, ".b64");
  EXPECT_EQ(f.locals[2].name, "%rd");
  EXPECT_EQ(f.locals[2].count, 11);
  EXPECT_TRUE(f.returns.empty());
  EXPECT_TRUE(f.directives.empty());
}

TEST(PtxParser, VecaddInstructionsOperandsAndPositions) {
  const PtxFunction f = only_function(parse_fixture("vecadd.clang14.Os.ptx"));
  EXPECT_EQ(instrs(f).size(), 22u);
  EXPECT_EQ(labels(f), std::vector<std::string>{"LBB0_2"});

  const PtxInstr& ld = *instrs(f)[0];
  EXPECT_EQ(ld.opcode, "ld.param.u32");
  EXPECT_EQ(ld.parts, (std::vector<std::string>{"ld", "param", "u32"}));
  EXPECT_EQ(ld.line, 22);
  EXPECT_EQ(ld.col, 2);
  ASSERT_EQ(ld.operands.size(), 2u);
  EXPECT_EQ(ld.operands[0].kind, K::kReg);
  EXPECT_EQ(ld.operands[0].name, "%r1");
  EXPECT_EQ(ld.operands[0].col, 16);
  EXPECT_EQ(ld.operands[0].line, 22);
  EXPECT_EQ(ld.operands[1].kind, K::kAddress);
  EXPECT_EQ(ld.operands[1].name, "vecadd_param_3");
  EXPECT_FALSE(ld.operands[1].base_is_reg);
  EXPECT_EQ(ld.operands[1].imm, 0);
  EXPECT_EQ(ld.operands[1].col, 21);

  EXPECT_EQ(instrs(f)[1]->operands[1].kind, K::kSpecial);
  EXPECT_EQ(instrs(f)[1]->operands[1].name, "%ctaid.x");
  EXPECT_EQ(instrs(f)[2]->operands[1].name, "%ntid.x");
  EXPECT_EQ(instrs(f)[3]->operands[1].name, "%tid.x");

  const PtxInstr& bra = find(f, "bra");
  EXPECT_EQ(bra.guard, "%p1");
  EXPECT_FALSE(bra.guard_negated);
  EXPECT_EQ(bra.line, 28);
  EXPECT_EQ(bra.col, 2);  // the guard's column
  ASSERT_EQ(bra.operands.size(), 1u);
  EXPECT_EQ(bra.operands[0].kind, K::kSymbol);
  EXPECT_EQ(bra.operands[0].name, "LBB0_2");

  const PtxInstr& load = find(f, "ld.global.u32");
  EXPECT_EQ(load.operands[1].kind, K::kAddress);
  EXPECT_EQ(load.operands[1].name, "%rd3");
  EXPECT_TRUE(load.operands[1].base_is_reg);
  EXPECT_EQ(find(f, "mad.lo.s32").operands.size(), 4u);
  EXPECT_TRUE(find(f, "ret").operands.empty());
}

TEST(PtxParser, SharedReductionClang14) {
  const PtxFunction f = only_function(parse_fixture("reduce.clang14.Os.ptx"));
  EXPECT_EQ(f.name, "reduce");
  EXPECT_EQ(f.params.size(), 2u);
  ASSERT_EQ(f.locals.size(), 4u);
  const PtxVar& s = f.locals[3];
  EXPECT_EQ(s.space, ".shared");
  EXPECT_EQ(s.align, 4);
  EXPECT_EQ(s.type, ".b8");
  EXPECT_EQ(s.name, "_ZZ6reduceE1s");
  EXPECT_EQ(s.array_size, 64);
  EXPECT_EQ(s.line, 21);
  EXPECT_EQ(labels(f), (std::vector<std::string>{"LBB0_1", "LBB0_3", "LBB0_4", "LBB0_5",
                                                 "LBB0_6"}));
  EXPECT_EQ(instrs(f).size(), 38u);
  EXPECT_EQ(count(f, "bar.sync"), 2);
  const PtxInstr& bar = find(f, "bar.sync");
  ASSERT_EQ(bar.operands.size(), 1u);
  EXPECT_EQ(bar.operands[0].kind, K::kImm);
  EXPECT_EQ(bar.operands[0].imm, 0);
  EXPECT_EQ(find(f, "mov.u64").operands[1].kind, K::kSymbol);
  EXPECT_EQ(find(f, "mov.u64").operands[1].name, "_ZZ6reduceE1s");
  const PtxInstr& direct = find(f, "ld.shared.u32", 1);  // ld.shared.u32 %r13, [_ZZ6reduceE1s]
  EXPECT_EQ(direct.operands[1].name, "_ZZ6reduceE1s");
  EXPECT_FALSE(direct.operands[1].base_is_reg);
  EXPECT_EQ(find(f, "bra.uni").operands[0].name, "LBB0_1");
  EXPECT_EQ(find(f, "bra", 1).guard, "%p2");
}

TEST(PtxParser, SharedReductionClang19HasDollarLabelsAndComments) {
  const PtxFunction f = only_function(parse_fixture("reduce.clang19.Os.ptx"));
  EXPECT_EQ(labels(f), (std::vector<std::string>{"$L__BB0_1", "$L__BB0_3", "$L__BB0_4",
                                                 "$L__BB0_5", "$L__BB0_6"}));
  EXPECT_EQ(find(f, "bra").operands[0].name, "$L__BB0_3");
  const PtxInstr& mov = find(f, "mov.b32");
  EXPECT_EQ(mov.operands[1].kind, K::kImm);
  EXPECT_EQ(mov.operands[1].imm, 8);
  EXPECT_EQ(f.locals[3].array_size, 64);
  EXPECT_EQ(count(f, "bar.sync"), 2);
}

TEST(PtxParser, NvccReductionUsesThirtyTwoBitSharedAddresses) {
  PtxModule m = parse_fixture("reduce.nvcc.ptx");
  EXPECT_EQ(m.version, "9.0");
  const PtxFunction& f = only_function(m);
  EXPECT_EQ(count(f, "bar.sync"), 5);
  EXPECT_EQ(labels(f).size(), 5u);
  EXPECT_EQ(labels(f).back(), "$L__BB0_10");
  const PtxInstr& ld = find(f, "ld.shared.u32", 1);  // ld.shared.u32 %r10, [%r3+32]
  EXPECT_EQ(ld.operands[1].name, "%r3");
  EXPECT_TRUE(ld.operands[1].base_is_reg);
  EXPECT_EQ(ld.operands[1].imm, 32);
  EXPECT_EQ(find(f, "mov.u32", 2).operands[1].kind, K::kSymbol);  // mov.u32 %r8, _ZZ6reduceE1s
}

TEST(PtxParser, Atomics) {
  const PtxFunction f = only_function(parse_fixture("atomics.clang14.Os.ptx"));
  EXPECT_EQ(f.params.size(), 4u);
  EXPECT_EQ(instrs(f).size(), 16u);
  const PtxInstr& add = find(f, "atom.global.add.u32");
  EXPECT_EQ(add.parts, (std::vector<std::string>{"atom", "global", "add", "u32"}));
  ASSERT_EQ(add.operands.size(), 3u);
  EXPECT_EQ(add.operands[0].name, "%r3");
  EXPECT_EQ(add.operands[1].kind, K::kAddress);
  EXPECT_EQ(add.operands[1].name, "%rd7");
  EXPECT_EQ(add.operands[2].name, "%r2");
  EXPECT_EQ(count(f, "atom.global.max.s32"), 1);
  EXPECT_EQ(count(f, "atom.global.min.s32"), 1);
}

TEST(PtxParser, NoinlineCallAtOzWithCallSequences) {
  PtxModule m = parse_fixture("call.clang14.Oz.ptx");
  ASSERT_EQ(m.functions.size(), 2u);  // the prototype of _ZL3mixii is not a function
  const PtxFunction& k = m.functions[0];
  const PtxFunction& mix = m.functions[1];
  EXPECT_EQ(k.name, "call");
  EXPECT_TRUE(k.is_entry);
  EXPECT_EQ(mix.name, "_ZL3mixii");
  EXPECT_FALSE(mix.is_entry);
  ASSERT_EQ(mix.returns.size(), 1u);
  EXPECT_EQ(mix.returns[0].type, ".b32");
  EXPECT_EQ(mix.returns[0].name, "func_retval0");
  ASSERT_EQ(mix.params.size(), 2u);
  EXPECT_EQ(mix.params[1].name, "_ZL3mixii_param_1");
  EXPECT_EQ(mix.line, 66);

  // Two call sequences: each declares temp_param_reg, param0, param1 and retval0.
  ASSERT_EQ(k.locals.size(), 10u);
  EXPECT_EQ(k.locals[2].space, ".reg");
  EXPECT_EQ(k.locals[2].name, "temp_param_reg");
  EXPECT_EQ(k.locals[3].space, ".param");
  EXPECT_EQ(k.locals[3].name, "param0");
  EXPECT_EQ(k.locals[5].name, "retval0");
  EXPECT_EQ(instrs(k).size(), 18u);
  EXPECT_EQ(count(k, "call.uni"), 2);

  const PtxInstr& call = find(k, "call.uni");
  EXPECT_EQ(call.line, 35);
  ASSERT_EQ(call.operands.size(), 3u);
  EXPECT_EQ(call.operands[0].kind, K::kList);
  EXPECT_EQ(call.operands[0].list, std::vector<std::string>{"retval0"});
  EXPECT_EQ(call.operands[1].kind, K::kSymbol);
  EXPECT_EQ(call.operands[1].name, "_ZL3mixii");
  EXPECT_EQ(call.operands[1].line, 36);
  EXPECT_EQ(call.operands[2].kind, K::kList);
  EXPECT_EQ(call.operands[2].list, (std::vector<std::string>{"param0", "param1"}));
  EXPECT_EQ(call.operands[2].line, 37);

  const PtxInstr& st = find(k, "st.param.b32");
  EXPECT_EQ(st.operands[0].name, "param0");
  EXPECT_EQ(st.operands[0].imm, 0);
  EXPECT_EQ(find(k, "ld.param.b32").operands[1].name, "retval0");
  EXPECT_EQ(find(mix, "st.param.b32").operands[0].name, "func_retval0");
  EXPECT_EQ(instrs(mix).size(), 5u);
}

TEST(PtxParser, CallWithoutReturnValueAndStructParam) {
  PtxModule m = parse_fixture("params.clang19.Os.ptx");
  ASSERT_EQ(m.functions.size(), 2u);
  const PtxFunction& k = m.functions[0];
  ASSERT_EQ(k.params.size(), 5u);
  EXPECT_EQ(k.params[0].align, 4);
  EXPECT_EQ(k.params[0].type, ".b8");
  EXPECT_EQ(k.params[0].array_size, 12);
  EXPECT_EQ(k.params[1].type, ".u8");
  EXPECT_EQ(k.params[2].type, ".u16");
  EXPECT_EQ(k.params[3].type, ".f32");
  EXPECT_EQ(k.params[4].type, ".u64");
  EXPECT_EQ(find(k, "ld.param.u32", 1).operands[1].imm, 4);  // [params_param_0+4]
  EXPECT_EQ(find(k, "ld.param.s8").operands[0].name, "%rs1");
  EXPECT_EQ(find(k, "add.f32").operands[2].kind, K::kFloatImm);
  EXPECT_EQ(find(k, "add.f32").operands[2].imm, 0x3E800000);  // 0.25f

  const PtxInstr& call = find(k, "call.uni");
  ASSERT_EQ(call.operands.size(), 2u);
  EXPECT_EQ(call.operands[0].kind, K::kSymbol);
  EXPECT_EQ(call.operands[0].name, "_ZL3putPii");
  EXPECT_EQ(call.operands[1].list, (std::vector<std::string>{"param0", "param1"}));
  EXPECT_TRUE(m.functions[1].returns.empty());
  EXPECT_EQ(m.functions[1].params[0].type, ".b64");
}

TEST(PtxParser, ModuleGlobalsWithInitialisers) {
  PtxModule m = parse_fixture("globals.clang14.Os.ptx");
  ASSERT_EQ(m.globals.size(), 4u);
  const PtxVar& coeff = m.globals[0];
  EXPECT_EQ(coeff.space, ".const");
  EXPECT_TRUE(coeff.visible);
  EXPECT_EQ(coeff.align, 4);
  EXPECT_EQ(coeff.type, ".b8");
  EXPECT_EQ(coeff.name, "coeff");
  EXPECT_EQ(coeff.array_size, 16);
  EXPECT_EQ(coeff.init,
            (std::vector<int64_t>{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(m.globals[1].name, "counter");
  EXPECT_EQ(m.globals[1].space, ".global");
  EXPECT_EQ(m.globals[1].type, ".u32");
  EXPECT_EQ(m.globals[1].array_size, -1);
  EXPECT_TRUE(m.globals[1].init.empty());
  EXPECT_EQ(m.globals[2].name, "table");
  EXPECT_EQ(m.globals[2].array_size, 32);
  EXPECT_EQ(m.globals[3].name, "five");
  EXPECT_EQ(m.globals[3].init, std::vector<int64_t>{5});

  const PtxFunction& f = only_function(m);
  EXPECT_EQ(find(f, "mov.u64").operands[1].name, "coeff");
  EXPECT_EQ(find(f, "ld.global.u32").operands[1].name, "five");
  EXPECT_EQ(find(f, "atom.global.add.u32").operands[2].imm, 1);
}

TEST(PtxParser, Clang19DropsTrailingZeroBytesOfInitialisers) {
  PtxModule m = parse_fixture("globals.clang19.Os.ptx");
  EXPECT_EQ(m.globals[0].array_size, 16);
  EXPECT_EQ(m.globals[0].init, (std::vector<int64_t>{1, 0, 0, 0, 2, 0, 0, 0, 3}));
}

TEST(PtxParser, TwoDimensionalKernelWithLaunchBounds) {
  const PtxFunction f = only_function(parse_fixture("transpose2d.clang14.Os.ptx"));
  EXPECT_EQ(f.name, "transpose2d");
  EXPECT_EQ(f.directives, std::vector<std::string>{".maxntid 16, 1, 1"});
  ASSERT_EQ(f.params.size(), 4u);
  EXPECT_EQ(f.params[2].type, ".u32");
  EXPECT_EQ(f.locals[2].type, ".f32");
  EXPECT_EQ(f.locals[2].name, "%f");
  EXPECT_EQ(find(f, "mov.u32", 3).operands[1].name, "%ctaid.y");
  EXPECT_EQ(find(f, "mov.u32", 5).operands[1].name, "%tid.y");
  EXPECT_EQ(find(f, "mov.u32", 5).operands[1].kind, K::kSpecial);
  const PtxInstr& mul = find(f, "mul.f32");
  EXPECT_EQ(mul.operands[2].kind, K::kFloatImm);
  EXPECT_EQ(mul.operands[2].imm, 0x3FC00000);  // 1.5f
  EXPECT_EQ(find(f, "or.pred").operands.size(), 3u);
  EXPECT_EQ(find(f, "st.global.f32").operands[0].name, "%rd8");
}

TEST(PtxParser, LoopWithPragmaAtO1) {
  const PtxFunction f = only_function(parse_fixture("loop.clang14.O1.ptx"));
  EXPECT_EQ(f.directives, std::vector<std::string>{".pragma \"nounroll\""});
  EXPECT_EQ(labels(f), (std::vector<std::string>{"LBB0_2", "LBB0_3"}));
  // The pragma is not a statement: the label is followed by the load.
  auto at_label = std::find_if(f.body.begin(), f.body.end(),
                               [](const PtxStmt& s) { return s.label == "LBB0_2"; });
  ASSERT_NE(at_label, f.body.end());
  EXPECT_EQ((at_label + 1)->instr->opcode, "ld.global.u32");
  const PtxInstr& dec = find(f, "add.s32");
  EXPECT_EQ(dec.operands[2].kind, K::kImm);
  EXPECT_EQ(dec.operands[2].imm, -1);
  EXPECT_EQ(find(f, "add.s64").operands[2].imm, 4);
}

// ---- Hand-written snippets: nvcc forms and the rarer syntax ---------------------------

TEST(PtxParser, NvccOneLineBlocksAndPredicateLogic) {
  PtxModule m = parse_ptx(kernel("  .reg .pred %p<4>;\n"
                                 "  { .reg .b64 %tmp; cvta.shared.u64 %rd9, %tmp; }\n"
                                 "  and.pred %p3, %p1, %p2;\n"
                                 "  mov.pred %p1, 0;\n"
                                 "  @!%p3 bra $L__BB0_3;\n"
                                 "$L__BB0_3:\n"
                                 "  ret;\n"),
                          "t.ptx");
  const PtxFunction& f = only_function(m);
  ASSERT_EQ(f.locals.size(), 2u);
  EXPECT_EQ(f.locals[1].name, "%tmp");
  EXPECT_EQ(f.locals[1].type, ".b64");
  EXPECT_EQ(f.locals[1].count, 0);
  EXPECT_EQ(instrs(f).size(), 5u);
  EXPECT_EQ(instrs(f)[0]->opcode, "cvta.shared.u64");
  EXPECT_EQ(instrs(f)[0]->line, 7);
  EXPECT_EQ(instrs(f)[0]->col, 21);
  EXPECT_EQ(find(f, "and.pred").operands[2].name, "%p2");
  EXPECT_EQ(find(f, "mov.pred").operands[1].kind, K::kImm);
  const PtxInstr& bra = find(f, "bra");
  EXPECT_EQ(bra.guard, "%p3");
  EXPECT_TRUE(bra.guard_negated);
  EXPECT_EQ(labels(f), std::vector<std::string>{"$L__BB0_3"});
}

TEST(PtxParser, ImmediatesAddressesAndSpecials) {
  PtxModule m = parse_ptx(kernel("  mul.hi.s32 %r4, %r3, -1840700269;\n"
                                 "  and.b32 %r1, %r2, 0x1F;\n"
                                 "  add.f64 %fd1, %fd2, 0d3FF8000000000000;\n"
                                 "  ld.u32 %r1, [%rd1+-4];\n"
                                 "  ld.u32 %r1, [%rd1-8];\n"
                                 "  ld.u32 %r1, [12];\n"
                                 "  ld.const.u32 %r1, [coeff+4];\n"
                                 "  ld.global.v2.u32 {%r1, %r2}, [%rd1];\n"
                                 "  mov.u32 %r1, %laneid;\n"
                                 "  mov.u32 %r1, %nctaid.x;\n"
                                 "  mov.u64 %rd1, %clock64;\n"
                                 "  st.u64 [%SP+8], %rd3;\n"
                                 "  exit;\n"),
                          "t.ptx");
  std::vector<const PtxInstr*> in = instrs(only_function(m));
  ASSERT_EQ(in.size(), 13u);
  EXPECT_EQ(in[0]->operands[2].imm, -1840700269);
  EXPECT_EQ(in[1]->operands[2].imm, 31);
  EXPECT_EQ(in[2]->operands[2].kind, K::kFloatImm);
  EXPECT_EQ(in[2]->operands[2].imm, 0x3FF8000000000000);  // 1.5
  EXPECT_EQ(in[3]->operands[1].imm, -4);
  EXPECT_EQ(in[4]->operands[1].imm, -8);
  EXPECT_EQ(in[5]->operands[1].name, "");
  EXPECT_EQ(in[5]->operands[1].imm, 12);
  EXPECT_FALSE(in[5]->operands[1].base_is_reg);
  EXPECT_EQ(in[6]->operands[1].name, "coeff");
  EXPECT_EQ(in[6]->operands[1].imm, 4);
  EXPECT_EQ(in[7]->operands[0].kind, K::kList);
  EXPECT_EQ(in[7]->operands[0].list, (std::vector<std::string>{"%r1", "%r2"}));
  EXPECT_EQ(in[8]->operands[1].kind, K::kSpecial);
  EXPECT_EQ(in[9]->operands[1].kind, K::kSpecial);
  EXPECT_EQ(in[10]->operands[1].kind, K::kSpecial);
  EXPECT_EQ(in[11]->operands[0].name, "%SP");
  EXPECT_TRUE(in[11]->operands[0].base_is_reg);
  EXPECT_EQ(in[12]->opcode, "exit");
}

TEST(PtxParser, DeclarationsDirectivesAndComments) {
  PtxModule m = parse_ptx(std::string(kHeader) +
                              "/* a block\n   comment */ .extern .shared .align 16 .b8 smem[];\n"
                              ".global .s32 vals[2][3] = {{-1, 2, 3}, {4, 5, 0x10}};\n"
                              ".const .f32 one = 0f3F800000;\n"
                              ".func f()\n{\n  ret; // done\n}\n"
                              ".entry k(.param .u64 .ptr .global .align 1 k_param_0)\n"
                              ".reqntid 32, 1, 1\n.minnctapersm 2\n{\n"
                              "  .reg .b32 %a, %b;\n  .local .align 4 .b8 depot[8];\n"
                              "L1: L2: ret;\n}\n",
                          "t.ptx");
  ASSERT_EQ(m.globals.size(), 3u);
  EXPECT_EQ(m.globals[0].name, "smem");
  EXPECT_EQ(m.globals[0].space, ".shared");
  EXPECT_TRUE(m.globals[0].visible);
  EXPECT_EQ(m.globals[0].array_size, 0);
  EXPECT_EQ(m.globals[0].line, 5);
  EXPECT_FALSE(m.globals[1].visible);
  EXPECT_EQ(m.globals[1].array_size, 6);
  EXPECT_EQ(m.globals[1].init, (std::vector<int64_t>{-1, 2, 3, 4, 5, 16}));
  EXPECT_EQ(m.globals[2].init, std::vector<int64_t>{0x3F800000});
  ASSERT_EQ(m.functions.size(), 2u);
  EXPECT_TRUE(m.functions[0].params.empty());
  const PtxFunction& k = m.functions[1];
  EXPECT_EQ(k.params[0].type, ".u64");
  EXPECT_EQ(k.params[0].align, 1);
  EXPECT_EQ(k.directives, (std::vector<std::string>{".reqntid 32, 1, 1", ".minnctapersm 2"}));
  ASSERT_EQ(k.locals.size(), 3u);
  EXPECT_EQ(k.locals[1].name, "%b");
  EXPECT_EQ(k.locals[2].space, ".local");
  EXPECT_EQ(labels(k), (std::vector<std::string>{"L1", "L2"}));
  EXPECT_EQ(instrs(k)[0]->line, 18);
  EXPECT_EQ(instrs(k)[0]->col, 9);
}

TEST(PtxParser, UnknownOpcodesAndCrlfAreAccepted) {
  const std::string text = ".version 6.3\r\n.target sm_75\r\n.address_size 64\r\n"
                           ".visible .entry k()\r\n{\r\n  frobnicate.wide.u7 %r1, %r2;\r\n}\r\n";
  PtxModule m = parse_ptx(text, "t.ptx");
  EXPECT_EQ(text_lines(text)[5], "  frobnicate.wide.u7 %r1, %r2;");
  const PtxInstr& in = *instrs(only_function(m))[0];
  EXPECT_EQ(in.opcode, "frobnicate.wide.u7");
  EXPECT_EQ(in.parts, (std::vector<std::string>{"frobnicate", "wide", "u7"}));
}

// ---- Syntax errors, by their exact text -----------------------------------------------

TEST(PtxParserErrors, MissingSemicolonPointsAtTheEndOfTheLine) {
  EXPECT_EQ(parse_error(kernel("  mov.u32 %r1, %tid.x\n  ret;\n")),
            "t.ptx:6:22: expected ';' before 'ret'\n"
            "    mov.u32 %r1, %tid.x\n"
            "                       ^");
}

TEST(PtxParserErrors, UnterminatedAddress) {
  EXPECT_EQ(parse_error(kernel("  ld.global.u32 %r2, [%rd1;\n  ret;\n")),
            "t.ptx:6:27: expected ']' before ';'\n"
            "    ld.global.u32 %r2, [%rd1;\n"
            "                            ^");
}

TEST(PtxParserErrors, BadRegisterList) {
  EXPECT_EQ(parse_error(kernel("  .reg .b32 %r<9;\n")),
            "t.ptx:6:17: expected '>' before ';'\n"
            "    .reg .b32 %r<9;\n"
            "                  ^");
  EXPECT_EQ(parse_error(kernel("  .reg .b32 %r<n>;\n")),
            "t.ptx:6:16: expected an integer before 'n'\n"
            "    .reg .b32 %r<n>;\n"
            "                 ^");
}

TEST(PtxParserErrors, GarbageDirectives) {
  EXPECT_EQ(parse_error(std::string(kHeader) + ".bogus 1, 2;\n"),
            "t.ptx:4:1: unknown directive '.bogus'\n"
            "  .bogus 1, 2;\n"
            "  ^");
  EXPECT_EQ(parse_error(kernel("  .loc 1 2 3\n  ret;\n")),
            "t.ptx:6:3: unknown directive '.loc'\n"
            "    .loc 1 2 3\n"
            "    ^");
  EXPECT_EQ(parse_error(kernel("  .reg .b33 %r<2>;\n")),
            "t.ptx:6:8: unknown attribute '.b33' in a declaration\n"
            "    .reg .b33 %r<2>;\n"
            "         ^");
}

TEST(PtxParserErrors, BadOperands) {
  EXPECT_EQ(parse_error(kernel("  add.s32 %r1, %r2, ;\n")),
            "t.ptx:6:21: expected an operand before ';'\n"
            "    add.s32 %r1, %r2, ;\n"
            "                      ^");
  EXPECT_EQ(parse_error(kernel("  mov.u32 %r1, 12abc;\n")),
            "t.ptx:6:16: malformed integer '12abc'\n"
            "    mov.u32 %r1, 12abc;\n"
            "                 ^");
  EXPECT_EQ(parse_error(kernel("  mul.f32 %f1, %f2, 0f3FC0;\n")),
            "t.ptx:6:21: malformed float '0f3FC0': 0f needs 8 hex digits, 0d 16\n"
            "    mul.f32 %f1, %f2, 0f3FC0;\n"
            "                      ^");
  EXPECT_EQ(parse_error(kernel("  add.s32 %r1, %r2, #3;\n")),
            "t.ptx:6:21: unexpected character '#'\n"
            "    add.s32 %r1, %r2, #3;\n"
            "                      ^");
  EXPECT_EQ(parse_error(kernel("  @ bra L1;\n")),
            "t.ptx:6:5: expected a predicate register before 'bra'\n"
            "    @ bra L1;\n"
            "      ^");
}

TEST(PtxParserErrors, TabsAreShownAsSpacesSoTheCaretLinesUp) {
  EXPECT_EQ(parse_error(kernel("\tld.u32 \t%r1, [%rd1+%r2];\n")),
            "t.ptx:6:21: expected an integer before '%r2'\n"
            "   ld.u32  %r1, [%rd1+%r2];\n"
            "                      ^");
}

TEST(PtxParserErrors, SeveralErrorsAreReportedTogetherInSourceOrder) {
  std::string text = kernel("  .reg .b32 %r<4>;\n"
                            "  mov.u32 %r1, %tid.x\n"
                            "  add.s32 %r2, %r1, 1;\n"
                            "  ld.global.u32 %r3, [%rd1;\n"
                            "  st.global.u32 [%rd1], %r3;\n"
                            "  .bogus;\n"
                            "  ret;\n"
                            "  `\n");
  EXPECT_EQ(parse_error(text),
            "t.ptx:7:22: expected ';' before 'add.s32'\n"
            "    mov.u32 %r1, %tid.x\n"
            "                       ^\n"
            "t.ptx:9:27: expected ']' before ';'\n"
            "    ld.global.u32 %r3, [%rd1;\n"
            "                            ^\n"
            "t.ptx:11:3: unknown directive '.bogus'\n"
            "    .bogus;\n"
            "    ^\n"
            "t.ptx:13:3: unexpected character '`'\n"
            "    `\n"
            "    ^");
}

TEST(PtxParserErrors, BrokenHeaderStillChecksTheBody) {
  std::string text = std::string(kHeader) +
                     ".visible .entry k(\n"
                     "  .param .u64 k_param_0\n"
                     "  .param .u32 k_param_1\n"
                     ")\n{\n"
                     "  ld.param.u32 %r1, [k_param_1;\n"
                     "  ret;\n}\n";
  EXPECT_EQ(parse_error(text),
            "t.ptx:5:24: expected ')' before '.param'\n"
            "    .param .u64 k_param_0\n"
            "                         ^\n"
            "t.ptx:9:31: expected ']' before ';'\n"
            "    ld.param.u32 %r1, [k_param_1;\n"
            "                                ^");
}

TEST(PtxParserErrors, MissingBraceAndUnterminatedText) {
  EXPECT_EQ(parse_error(std::string(kHeader) + ".entry k()\n{\n  ret;\n"),
            "t.ptx:6:7: expected '}' before end of file\n"
            "    ret;\n"
            "        ^");
  EXPECT_EQ(parse_error(std::string(kHeader) + ".entry a()\n{\n  ret;\n.entry b()\n{\n}\n"),
            "t.ptx:6:7: expected '}' before '.entry'\n"
            "    ret;\n"
            "        ^");
  EXPECT_EQ(parse_error(kernel("  .pragma \"nounroll;\n")),
            "t.ptx:6:11: unterminated string\n"
            "    .pragma \"nounroll;\n"
            "            ^\n"
            "t.ptx:6:21: expected ';' before '}'\n"
            "    .pragma \"nounroll;\n"
            "                      ^");
  EXPECT_EQ(parse_error(std::string(kHeader) + "/* open\n"),
            "t.ptx:4:1: unterminated /* comment\n"
            "  /* open\n"
            "  ^");
}

TEST(PtxParserErrors, SymbolInitialisersAreNotSupported) {
  EXPECT_EQ(parse_error(std::string(kHeader) + ".global .u64 p = table;\n"),
            "t.ptx:4:18: initialisers naming a symbol ('table') are not supported\n"
            "  .global .u64 p = table;\n"
            "                   ^");
}

}  // namespace
}  // namespace qgpu
