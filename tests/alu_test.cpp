// The arithmetic half of the spec against hand-computed answers. Every expected value
// below is a literal worked out by hand from the meaning column of kOps (isa.h), never
// recomputed with the formula under test; the coverage tests at the end fail when an op
// is added to the table without a case here.
#include "gpu/alu.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <set>
#include <string>
#include <vector>

namespace qgpu {
namespace {

constexpr uint32_t kMin = 0x80000000u;  // INT_MIN
constexpr uint32_t kMax = 0x7fffffffu;  // INT_MAX
constexpr uint32_t kM1 = 0xffffffffu;   // -1

struct ValueCase {
  Op op;
  uint32_t a, b, c;
  uint32_t want;
};

std::string case_text(Op op, uint32_t a, uint32_t b, uint32_t c) {
  return fmt::format("{} a={:#010x} b={:#010x} c={:#010x}", op_info(op).mnemonic, a, b, c);
}

void expect_values(const std::vector<ValueCase>& cases) {
  for (const ValueCase& k : cases)
    EXPECT_EQ(alu(k.op, k.a, k.b, k.c), k.want) << case_text(k.op, k.a, k.b, k.c);
}

const std::vector<ValueCase> kArithmetic = {
    {Op::kMov, 0xdeadbeefu, 0, 0, 0xdeadbeefu},
    {Op::kMov, kM1, 7, 7, kM1},
    {Op::kAdd, 3, 4, 0, 7},
    {Op::kAdd, kM1, 1, 0, 0},                  // wraps to 0
    {Op::kAdd, kMax, 1, 0, kMin},              // INT_MAX + 1 = INT_MIN
    {Op::kAdd, kMin, kMin, 0, 0},
    {Op::kSub, 10, 3, 0, 7},
    {Op::kSub, 0, 1, 0, kM1},                  // wraps below 0
    {Op::kSub, kMin, 1, 0, kMax},              // INT_MIN - 1 = INT_MAX
    {Op::kSub, 3, 10, 0, 0xfffffff9u},         // -7
    {Op::kMulLo, 12345, 6789, 0, 83810205},
    {Op::kMulLo, 0x10000, 0x10000, 0, 0},      // 2^32 wraps to 0
    {Op::kMulLo, kM1, kM1, 0, 1},              // (-1) * (-1)
    {Op::kMulLo, kMin, 2, 0, 0},
    {Op::kMulLo, 0x12345678u, 0x10, 0, 0x23456780u},
    {Op::kMulLo, 0xfffffffeu, 3, 0, 0xfffffffau},  // -2 * 3 = -6
    {Op::kMulHiS, 0x10000, 0x10000, 0, 1},     // 2^32
    {Op::kMulHiS, kM1, kM1, 0, 0},             // 1
    {Op::kMulHiS, kM1, 1, 0, kM1},             // -1: high word all ones
    {Op::kMulHiS, 0xfffffffeu, 3, 0, kM1},     // -6
    {Op::kMulHiS, kMin, kMin, 0, 0x40000000u}, // 2^62
    {Op::kMulHiS, kMin, kMax, 0, 0xc0000000u}, // -2^62 + 2^31 = 0xc0000000'80000000
    {Op::kMulHiS, kMax, kMax, 0, 0x3fffffffu}, // 0x3fffffff'00000001
    {Op::kMulHiS, kMin, 2, 0, kM1},            // -2^32 = 0xffffffff'00000000
    {Op::kMulHiU, 0x10000, 0x10000, 0, 1},
    {Op::kMulHiU, kM1, kM1, 0, 0xfffffffeu},   // 0xfffffffe'00000001
    {Op::kMulHiU, kM1, 1, 0, 0},               // unsigned: 0x00000000'ffffffff
    {Op::kMulHiU, kMin, kMin, 0, 0x40000000u},
    {Op::kMulHiU, kMin, 2, 0, 1},              // 2^32
    {Op::kMulHiU, 0xfffffffeu, 3, 0, 2},       // 0x2'fffffffa
    {Op::kMadLo, 3, 4, 5, 17},
    {Op::kMadLo, 0x10000, 0x10000, 5, 5},      // product wraps to 0
    {Op::kMadLo, kM1, 2, 3, 1},                // 0xfffffffe + 3 wraps to 1
    {Op::kMadLo, kM1, kM1, kM1, 0},            // 1 + 0xffffffff wraps to 0
    {Op::kMadLo, 0xfffffffdu, 4, 100, 88},     // -3 * 4 + 100
    {Op::kNeg, 5, 0, 0, 0xfffffffbu},
    {Op::kNeg, 0, 0, 0, 0},
    {Op::kNeg, kM1, 0, 0, 1},
    {Op::kNeg, kMin, 0, 0, kMin},              // neg INT_MIN = INT_MIN
    {Op::kNeg, kMax, 0, 0, 0x80000001u},
    {Op::kAbs, 0xfffffffbu, 0, 0, 5},
    {Op::kAbs, 5, 0, 0, 5},
    {Op::kAbs, 0, 0, 0, 0},
    {Op::kAbs, kMin, 0, 0, kMin},              // abs INT_MIN = INT_MIN
    {Op::kAbs, 0x80000001u, 0, 0, kMax},
};

const std::vector<ValueCase> kDivision = {
    {Op::kDivS, 7, 2, 0, 3},
    {Op::kDivS, 0xfffffff9u, 2, 0, 0xfffffffdu},             // -7 / 2 = -3 (toward zero)
    {Op::kDivS, 7, 0xfffffffeu, 0, 0xfffffffdu},             // 7 / -2 = -3
    {Op::kDivS, 0xfffffff9u, 0xfffffffeu, 0, 3},             // -7 / -2 = 3
    {Op::kDivS, kM1, 2, 0, 0},                               // -1 / 2 = 0, not -1
    {Op::kDivS, kMin, 2, 0, 0xc0000000u},
    {Op::kDivS, kMin, kM1, 0, kMin},                         // INT_MIN / -1 = INT_MIN
    {Op::kDivS, kMin, 1, 0, kMin},
    {Op::kDivS, 5, 0, 0, kM1},                               // a >= 0: -1
    {Op::kDivS, 0, 0, 0, kM1},
    {Op::kDivS, kMax, 0, 0, kM1},
    {Op::kDivS, 0xfffffffbu, 0, 0, 1},                       // a < 0: 1
    {Op::kDivS, kMin, 0, 0, 1},
    {Op::kDivU, 7, 2, 0, 3},
    {Op::kDivU, kM1, 2, 0, kMax},
    {Op::kDivU, 0xfffffff9u, 2, 0, 0x7ffffffcu},             // 4294967289 / 2
    {Op::kDivU, kMin, kM1, 0, 0},
    {Op::kDivU, kM1, kM1, 0, 1},
    {Op::kDivU, 5, 0, 0, kM1},
    {Op::kDivU, 0, 0, 0, kM1},
    {Op::kRemS, 7, 2, 0, 1},
    {Op::kRemS, 0xfffffff9u, 2, 0, kM1},                     // -7 % 2 = -1 (sign of a)
    {Op::kRemS, 7, 0xfffffffeu, 0, 1},                       // 7 % -2 = 1
    {Op::kRemS, 0xfffffff9u, 0xfffffffeu, 0, kM1},           // -7 % -2 = -1
    {Op::kRemS, kMin, 3, 0, 0xfffffffeu},                    // -2147483648 % 3 = -2
    {Op::kRemS, kMin, kM1, 0, 0},                            // INT_MIN % -1 = 0
    {Op::kRemS, 5, 0, 0, 5},                                 // a % 0 = a
    {Op::kRemS, 0xfffffffbu, 0, 0, 0xfffffffbu},
    {Op::kRemS, kMin, 0, 0, kMin},
    {Op::kRemU, 7, 2, 0, 1},
    {Op::kRemU, 0xfffffff9u, 2, 0, 1},
    {Op::kRemU, kM1, 10, 0, 5},                              // 4294967295 % 10
    {Op::kRemU, kMin, 3, 0, 2},                              // 2147483648 % 3
    {Op::kRemU, 5, 0, 0, 5},
    {Op::kRemU, 0xfffffffbu, 0, 0, 0xfffffffbu},
};

const std::vector<ValueCase> kMinMax = {
    {Op::kMinS, kM1, 1, 0, kM1},               // -1 < 1 signed
    {Op::kMinS, 1, kM1, 0, kM1},
    {Op::kMinS, kMin, kMax, 0, kMin},
    {Op::kMinS, 3, 3, 0, 3},
    {Op::kMinU, kM1, 1, 0, 1},                 // 0xffffffff > 1 unsigned
    {Op::kMinU, 1, kM1, 0, 1},
    {Op::kMinU, kMin, kMax, 0, kMax},
    {Op::kMaxS, kM1, 1, 0, 1},
    {Op::kMaxS, 1, kM1, 0, 1},
    {Op::kMaxS, kMin, kMax, 0, kMax},
    {Op::kMaxU, kM1, 1, 0, kM1},
    {Op::kMaxU, 1, kM1, 0, kM1},
    {Op::kMaxU, kMin, kMax, 0, kMin},
};

const std::vector<ValueCase> kBits = {
    {Op::kAnd, 0xf0f0f0f0u, 0x0ff00ff0u, 0, 0x00f000f0u},
    {Op::kOr, 0xf0f0f0f0u, 0x0ff00ff0u, 0, 0xfff0fff0u},
    {Op::kXor, 0xf0f0f0f0u, 0x0ff00ff0u, 0, 0xff00ff00u},
    {Op::kXor, kM1, kM1, 0, 0},
    {Op::kNot, 0xf0f0f0f0u, 0, 0, 0x0f0f0f0fu},
    {Op::kNot, 0, 0, 0, kM1},
    // The float microcode (a + b = add.f32.rnd(add.f32.sig(a, b), a, b)): 1 + 1, 1 + 2 (x is
    // b: bit 31), 1 + -1 (an exact +0), the smallest subnormal twice, FLT_MAX twice (inf).
    {Op::kAddFSig, 0x3f800000u, 0x3f800000u, 0, 0x40000000u},
    {Op::kAddFRnd, 0x40000000u, 0x3f800000u, 0x3f800000u, 0x40000000u},
    {Op::kAddFSig, 0x3f800000u, 0x40000000u, 0, 0xb0000000u},
    {Op::kAddFRnd, 0xb0000000u, 0x3f800000u, 0x40000000u, 0x40400000u},
    {Op::kAddFSig, 0x3f800000u, 0xbf800000u, 0, 0},
    {Op::kAddFRnd, 0, 0x3f800000u, 0xbf800000u, 0},
    {Op::kAddFSig, 1, 1, 0, 128},
    {Op::kAddFRnd, 128, 1, 1, 2},
    {Op::kAddFSig, 0x7f7fffffu, 0x7f7fffffu, 0, 0x7fffff80u},
    {Op::kAddFRnd, 0x7fffff80u, 0x7f7fffffu, 0x7f7fffffu, 0x7f800000u},
    {Op::kPopc, 0, 0, 0, 0},
    {Op::kPopc, kM1, 0, 0, 32},
    {Op::kPopc, 0xf0f0f0f0u, 0, 0, 16},
    {Op::kPopc, 0x80000001u, 0, 0, 2},
    {Op::kPopc, 0x12345678u, 0, 0, 13},
    {Op::kClz, 0, 0, 0, 32},                   // clz 0 = 32
    {Op::kClz, 1, 0, 0, 31},
    {Op::kClz, 0x0000ffffu, 0, 0, 16},
    {Op::kClz, 0x00010000u, 0, 0, 15},
    {Op::kClz, kMin, 0, 0, 0},
    {Op::kClz, kM1, 0, 0, 0},
    {Op::kBrev, 0, 0, 0, 0},
    {Op::kBrev, 1, 0, 0, kMin},
    {Op::kBrev, kMin, 0, 0, 1},
    {Op::kBrev, 0x0000000fu, 0, 0, 0xf0000000u},
    {Op::kBrev, 6, 0, 0, 0x60000000u},
    {Op::kBrev, 0x12345678u, 0, 0, 0x1e6a2c48u},
    {Op::kBrev, kM1, 0, 0, kM1},
    {Op::kSelp, 10, 20, 1, 10},
    {Op::kSelp, 10, 20, 0, 20},
    {Op::kSelp, kM1, kMin, 1, kM1},
};

// Shift counts are unsigned; 32 or more clamps (PTX): 0, or the sign for shr.s.
const std::vector<ValueCase> kShifts = {
    {Op::kShl, 1, 0, 0, 1},
    {Op::kShl, 1, 31, 0, kMin},
    {Op::kShl, 1, 32, 0, 0},
    {Op::kShl, 1, 33, 0, 0},
    {Op::kShl, 1, kM1, 0, 0},
    {Op::kShl, 0x12345678u, 4, 0, 0x23456780u},
    {Op::kShl, kM1, 31, 0, kMin},
    {Op::kShrU, kMin, 0, 0, kMin},
    {Op::kShrU, kMin, 31, 0, 1},
    {Op::kShrU, kMin, 32, 0, 0},
    {Op::kShrU, kM1, 33, 0, 0},
    {Op::kShrU, kM1, kM1, 0, 0},
    {Op::kShrU, kM1, 4, 0, 0x0fffffffu},
    {Op::kShrS, kMin, 0, 0, kMin},
    {Op::kShrS, kMin, 4, 0, 0xf8000000u},
    {Op::kShrS, kMin, 31, 0, kM1},
    {Op::kShrS, kMin, 32, 0, kM1},             // sign fill
    {Op::kShrS, kMin, 33, 0, kM1},
    {Op::kShrS, kMin, kM1, 0, kM1},
    {Op::kShrS, 0xfffffff0u, 2, 0, 0xfffffffcu},  // -16 >> 2 = -4
    {Op::kShrS, 0x40000000u, 30, 0, 1},
    {Op::kShrS, kMax, 0, 0, kMax},
    {Op::kShrS, kMax, 31, 0, 0},
    {Op::kShrS, kMax, 32, 0, 0},
    {Op::kShrS, kMax, 33, 0, 0},
    {Op::kShrS, kMax, kM1, 0, 0},
};

TEST(Alu, Arithmetic) { expect_values(kArithmetic); }
TEST(Alu, Division) { expect_values(kDivision); }
TEST(Alu, MinMax) { expect_values(kMinMax); }
TEST(Alu, Bits) { expect_values(kBits); }
TEST(Alu, Shifts) { expect_values(kShifts); }

struct CompareCase {
  Op op;
  uint32_t a, b;
  bool want;
};

// -1 vs 1 tells the signed compares from the unsigned ones.
const std::vector<CompareCase> kCompares = {
    {Op::kSetpEq, kM1, 1, false},  {Op::kSetpEq, 5, 5, true},
    {Op::kSetpNe, kM1, 1, true},   {Op::kSetpNe, 5, 5, false},
    {Op::kSetpLtS, kM1, 1, true},  {Op::kSetpLtS, 1, kM1, false}, {Op::kSetpLtS, 5, 5, false},
    {Op::kSetpLeS, kM1, 1, true},  {Op::kSetpLeS, 1, kM1, false}, {Op::kSetpLeS, 5, 5, true},
    {Op::kSetpGtS, kM1, 1, false}, {Op::kSetpGtS, 1, kM1, true},  {Op::kSetpGtS, 5, 5, false},
    {Op::kSetpGeS, kM1, 1, false}, {Op::kSetpGeS, 1, kM1, true},  {Op::kSetpGeS, 5, 5, true},
    {Op::kSetpLtU, kM1, 1, false}, {Op::kSetpLtU, 1, kM1, true},  {Op::kSetpLtU, 5, 5, false},
    {Op::kSetpLeU, kM1, 1, false}, {Op::kSetpLeU, 1, kM1, true},  {Op::kSetpLeU, 5, 5, true},
    {Op::kSetpGtU, kM1, 1, true},  {Op::kSetpGtU, 1, kM1, false}, {Op::kSetpGtU, 5, 5, false},
    {Op::kSetpGeU, kM1, 1, true},  {Op::kSetpGeU, 1, kM1, false}, {Op::kSetpGeU, 5, 5, true},
    {Op::kSetpLtS, kMin, kMax, true},  {Op::kSetpLtU, kMin, kMax, false},
    {Op::kSetpGtS, kMin, kMax, false}, {Op::kSetpGtU, kMin, kMax, true},
};

TEST(Alu, Compare) {
  for (const CompareCase& k : kCompares)
    EXPECT_EQ(compare(k.op, k.a, k.b), k.want) << case_text(k.op, k.a, k.b, 0);
}

struct PredCase {
  Op op;
  bool a, b;
  bool want;
};

// Full truth tables; b is ignored by the one-operand ops.
const std::vector<PredCase> kPredLogic = {
    {Op::kAndPred, false, false, false}, {Op::kAndPred, false, true, false},
    {Op::kAndPred, true, false, false},  {Op::kAndPred, true, true, true},
    {Op::kOrPred, false, false, false},  {Op::kOrPred, false, true, true},
    {Op::kOrPred, true, false, true},    {Op::kOrPred, true, true, true},
    {Op::kXorPred, false, false, false}, {Op::kXorPred, false, true, true},
    {Op::kXorPred, true, false, true},   {Op::kXorPred, true, true, false},
    {Op::kNotPred, false, true, true},   {Op::kNotPred, true, false, false},
    {Op::kNotPred, true, true, false},   {Op::kNotPred, false, false, true},
    {Op::kMovPred, false, true, false},  {Op::kMovPred, true, false, true},
    {Op::kMovPred, true, true, true},    {Op::kMovPred, false, false, false},
};

TEST(Alu, PredLogic) {
  for (const PredCase& k : kPredLogic)
    EXPECT_EQ(pred_logic(k.op, k.a, k.b), k.want)
        << op_info(k.op).mnemonic << " " << k.a << " " << k.b;
}

struct AtomCase {
  Op op;
  uint32_t old, b, c;
  uint32_t want;  // the new memory word
};

const std::vector<AtomCase> kAtomics = {
    {Op::kAtomAdd, 5, 3, 0, 8},
    {Op::kAtomAdd, kM1, 2, 0, 1},          // wraps
    {Op::kAtomAdd, kMax, 1, 0, kMin},
    {Op::kAtomMinS, kM1, 1, 0, kM1},
    {Op::kAtomMinS, 1, kM1, 0, kM1},
    {Op::kAtomMinU, kM1, 1, 0, 1},
    {Op::kAtomMinU, 1, kM1, 0, 1},
    {Op::kAtomMaxS, kM1, 1, 0, 1},
    {Op::kAtomMaxS, kMin, kMax, 0, kMax},
    {Op::kAtomMaxU, kM1, 1, 0, kM1},
    {Op::kAtomMaxU, kMax, kMin, 0, kMin},
    {Op::kAtomExch, 5, 9, 0, 9},
    {Op::kAtomExch, kM1, 0, 7, 0},
    {Op::kAtomCas, 5, 5, 9, 9},            // match: swap in c
    {Op::kAtomCas, 5, 6, 9, 5},            // mismatch: keep old
    {Op::kAtomCas, kM1, kM1, 0, 0},
    {Op::kAtomCas, kM1, 1, 0, kM1},
};

TEST(Alu, AtomicUpdate) {
  for (const AtomCase& k : kAtomics)
    EXPECT_EQ(atomic_update(k.op, k.old, k.b, k.c), k.want)
        << case_text(k.op, k.old, k.b, k.c);
}

// ---- Coverage: every op of the table has hand-computed cases above.

std::set<Op> value_ops_with_cases() {
  std::set<Op> ops;
  for (const auto* cases : {&kArithmetic, &kDivision, &kMinMax, &kBits, &kShifts})
    for (const ValueCase& k : *cases) ops.insert(k.op);
  return ops;
}

TEST(Alu, EveryValueOpIsHandledAndHasCases) {
  std::set<Op> covered = value_ops_with_cases();
  for (const OpInfo& info : kOps) {
    if (info.effect != Effect::kValue || info.op == Op::kLd) continue;
    alu(info.op, 1, 2, 1);  // aborts (CHECK) when alu() has no case for the op
    if (is_float_op(info.op)) continue;  // float_test.cpp has the binary32 ops' cases
    EXPECT_TRUE(covered.count(info.op)) << info.mnemonic << " has no hand-computed case";
  }
}

TEST(Alu, EveryPredOpHasCases) {
  std::set<Op> covered;
  for (const CompareCase& k : kCompares) covered.insert(k.op);
  for (const PredCase& k : kPredLogic) covered.insert(k.op);
  for (const OpInfo& info : kOps)
    EXPECT_TRUE(info.effect != Effect::kPred || is_float_op(info.op) || covered.count(info.op))
        << info.mnemonic << " has no hand-computed case";  // float_test.cpp: every float compare
}

TEST(Alu, EveryAtomicOpHasCases) {
  std::set<Op> covered;
  for (const AtomCase& k : kAtomics) covered.insert(k.op);
  for (const OpInfo& info : kOps)
    EXPECT_TRUE(info.effect != Effect::kAtomic || covered.count(info.op))
        << info.mnemonic << " has no hand-computed case";
}

TEST(AluDeathTest, WrongOpKindIsABug) {
  EXPECT_DEATH(alu(Op::kLd, 1, 2, 3), "alu: not a value op");
  EXPECT_DEATH(compare(Op::kAdd, 1, 2), "compare: not a setp op");
  EXPECT_DEATH(pred_logic(Op::kSetpEq, true, false), "pred_logic: not a predicate op");
  EXPECT_DEATH(atomic_update(Op::kSt, 1, 2, 3), "atomic_update: not an atomic op");
}

}  // namespace
}  // namespace qgpu
