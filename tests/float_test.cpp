// The machine's binary32 ops (gpu/alu_f32.cpp), their text form (gpu/f32.h) and floats
// through the compiler: edge cases worked out by hand, and random operands checked against
// a wider format, where one rounding of the exact result is the IEEE answer: double for
// + - * / sqrt (53 >= 2 * 24 + 2 bits, so rounding twice equals rounding once),
// __float128 for fma (the product is exact in it).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "compiler/lower_expand.h"
#include "gpu/alu.h"
#include "gpu/f32.h"
#include "gpu/interp.h"
#include "gpu/trace_json.h"
#include "lift/machine_model.h"
#include "test_util.h"

namespace qgpu {
namespace {

namespace fs = std::filesystem;

constexpr uint32_t kNaN = 0x7fffffffu, kInf = 0x7f800000u, kNegInf = 0xff800000u, kNegZero = 0x80000000u;
constexpr uint32_t kMinSub = 0x00000001u, kMaxSub = 0x007fffffu, kMinNormal = 0x00800000u, kMax = 0x7f7fffffu;
constexpr uint32_t kOne = 0x3f800000u, kTwo = 0x40000000u, kHalf = 0x3f000000u;

uint32_t b(float x) { return std::bit_cast<uint32_t>(x); }
float f(uint32_t v) { return std::bit_cast<float>(v); }
bool is_nan(uint32_t v) { return std::isnan(f(v)); }

struct Case {
  Op op;
  uint32_t a, b, c, want;
};

TEST(FloatAlu, EdgeCasesByHand) {
  const std::vector<Case> cases = {
      {Op::kAddF, kOne, kTwo, 0, b(3.0f)},
      {Op::kAddF, kInf, kNegInf, 0, kNaN},                 // inf - inf
      {Op::kAddF, 0x7fc00001u, kOne, 0, kNaN},             // any NaN operand: the canonical NaN
      {Op::kAddF, kNegZero, 0, 0, 0},                      // -0 + +0 = +0
      {Op::kAddF, kNegZero, kNegZero, 0, kNegZero},
      {Op::kSubF, kOne, kOne, 0, 0},                       // x - x = +0
      {Op::kAddF, kMax, 0x73000000u, 0, kInf},             // max + half an ulp: ties to even overflows
      {Op::kAddF, kMax, 0x72ffffffu, 0, kMax},             // just below the tie
      {Op::kAddF, kMaxSub, kMinSub, 0, kMinNormal},        // subnormals add exactly
      {Op::kMulF, kMinSub, kHalf, 0, 0},                   // 2^-150: a tie, to even (0)
      {Op::kMulF, 0x00000003u, kHalf, 0, 0x00000002u},     // 1.5 ulp: to even (2)
      {Op::kMulF, kMinNormal, kHalf, 0, 0x00400000u},      // normal to subnormal, exact (no flush to zero)
      {Op::kMulF, 0, kInf, 0, kNaN},
      {Op::kMulF, kNegZero, kTwo, 0, kNegZero},
      {Op::kFmaF, 0x3f800001u, 0x3f800001u, 0xbf800002u, 0x28800000u},  // (1+u)^2 - (1+2u) = u^2 = 2^-46, exact
      {Op::kMulF, 0x3f800001u, 0x3f800001u, 0, 0x3f800002u},            // unfused: u^2 is rounded away
      {Op::kFmaF, kInf, 0, kOne, kNaN},
      {Op::kFmaF, kOne, kOne, kNaN, kNaN},
      {Op::kFmaF, kNegZero, kOne, 0, 0},                   // -0 * 1 + +0 = +0
      {Op::kDivF, kOne, 0, 0, kInf},
      {Op::kDivF, kOne, kNegZero, 0, kNegInf},
      {Op::kDivF, 0, 0, 0, kNaN},
      {Op::kDivF, kOne, b(3.0f), 0, 0x3eaaaaabu},          // 1/3, rounded to nearest
      {Op::kDivF, kMinSub, kTwo, 0, 0},                    // a tie below the least subnormal
      {Op::kSqrtF, kNegZero, 0, 0, kNegZero},
      {Op::kSqrtF, b(-1.0f), 0, 0, kNaN},
      {Op::kSqrtF, kTwo, 0, 0, 0x3fb504f3u},
      {Op::kSqrtF, kMinSub, 0, 0, 0x1a3504f3u},            // sqrt(2^-149) = 2^-75 sqrt(2), correctly rounded
      {Op::kMinF, kNaN, kOne, 0, kOne},                    // one NaN: the other operand
      {Op::kMinF, kOne, 0x7fc00000u, 0, kOne},
      {Op::kMinF, 0x7fc00000u, 0xffc00000u, 0, kNaN},      // both: the canonical NaN
      {Op::kMinF, 0, kNegZero, 0, kNegZero},               // -0 < +0
      {Op::kMinF, kNegZero, 0, 0, kNegZero},
      {Op::kMaxF, kNegZero, 0, 0, 0},
      {Op::kMaxF, 0, kNegZero, 0, 0},
      {Op::kMaxF, kNegInf, kNaN, 0, kNegInf},
      {Op::kNegF, 0, 0, 0, kNegZero},
      {Op::kNegF, 0xffc00000u, 0, 0, kNaN},
      {Op::kAbsF, b(-2.5f), 0, 0, b(2.5f)},
      {Op::kAbsF, 0xffc00000u, 0, 0, kNaN},
      {Op::kCvtFS, 16777217u, 0, 0, b(16777216.0f)},       // ties to even
      {Op::kCvtFS, 16777219u, 0, 0, b(16777220.0f)},
      {Op::kCvtFS, 0x80000000u, 0, 0, 0xcf000000u},        // INT_MIN = -2^31 exactly
      {Op::kCvtFS, 0x7fffffffu, 0, 0, 0x4f000000u},        // INT_MAX rounds up to 2^31
      {Op::kCvtFU, 0xffffffffu, 0, 0, 0x4f800000u},        // 2^32 - 1 rounds up to 2^32
      {Op::kCvtFU, 0x80000000u, 0, 0, 0x4f000000u},
      {Op::kCvtSF, kNaN, 0, 0, 0},
      {Op::kCvtSF, kInf, 0, 0, 0x7fffffffu},
      {Op::kCvtSF, kNegInf, 0, 0, 0x80000000u},
      {Op::kCvtSF, 0x4f000000u, 0, 0, 0x7fffffffu},        // 2^31 saturates
      {Op::kCvtSF, 0xcf000000u, 0, 0, 0x80000000u},        // -2^31 is exact
      {Op::kCvtSF, b(-2.9f), 0, 0, static_cast<uint32_t>(-2)},
      {Op::kCvtSF, kMinSub, 0, 0, 0},
      {Op::kCvtUF, b(-0.9f), 0, 0, 0},
      {Op::kCvtUF, b(-5.0f), 0, 0, 0},                     // negatives saturate to 0
      {Op::kCvtUF, 0x4f800000u, 0, 0, 0xffffffffu},        // 2^32
      {Op::kCvtUF, 0x4f7fffffu, 0, 0, 0xffffff00u},        // the largest float below 2^32
      {Op::kCvtUF, kNaN, 0, 0, 0},
      {Op::kRndNF, b(2.5f), 0, 0, b(2.0f)},                // ties to even
      {Op::kRndNF, b(3.5f), 0, 0, b(4.0f)},
      {Op::kRndNF, b(-0.4f), 0, 0, kNegZero},              // the sign of a zero result stays
      {Op::kRndMF, b(-0.5f), 0, 0, b(-1.0f)},
      {Op::kRndMF, kNegZero, 0, 0, kNegZero},
      {Op::kRndPF, b(-0.5f), 0, 0, kNegZero},
      {Op::kRndPF, b(1.01f), 0, 0, b(2.0f)},
      {Op::kRndZF, b(-7.9f), 0, 0, b(-7.0f)},
      {Op::kRndZF, 0x7fc00001u, 0, 0, kNaN},
      {Op::kRndNF, b(8388609.0f), 0, 0, b(8388609.0f)},     // 2^23 + 1: already an integer
  };
  std::set<Op> covered;
  for (const Case& c : cases) {
    covered.insert(c.op);
    EXPECT_EQ(alu(c.op, c.a, c.b, c.c), c.want)
        << op_info(c.op).mnemonic << fmt::format(" {:08x} {:08x} {:08x}", c.a, c.b, c.c);
  }
  for (const OpInfo& info : kOps)  // every binary32 value op has a case here
    EXPECT_TRUE(!is_float_op(info.op) || info.effect != Effect::kValue || covered.count(info.op)) << info.mnemonic;
}

// Operands that reach every class: zeros, subnormals, normals near 1 and at the ends,
// infinities and NaNs, plus random bit patterns.
std::vector<uint32_t> sample_operands(std::mt19937& rng, int random) {
  std::vector<uint32_t> v = {0, kNegZero, kMinSub, kMaxSub, kMinNormal, kMax, kInf, kNegInf, kNaN, 0x7fc00000u,
                             kOne, kTwo, kHalf, 0x3f800001u, 0x3f7fffffu, 0x4b000000u, 0x4b7fffffu, 0x33800000u};
  for (size_t i = 0, n = v.size(); i < n; ++i) v.push_back(v[i] ^ 0x80000000u);
  std::uniform_int_distribution<uint32_t> any;
  for (int i = 0; i < random; ++i) {
    uint32_t x = any(rng);
    if (i % 3 == 1) x = (x & 0x807fffffu) | ((127 + static_cast<int>(x % 16) - 8) << 23);  // near 1: sums cancel
    if (i % 3 == 2) x &= 0x80ffffffu;  // small: subnormal results
    v.push_back(x);
  }
  return v;
}

uint32_t rounded(double x) { return std::isnan(x) ? kNaN : b(static_cast<float>(x)); }

TEST(FloatAlu, BasicOpsRoundOnceToNearestEven) {
  std::mt19937 rng(1234);
  const std::vector<uint32_t> xs = sample_operands(rng, 600);
  int checked = 0;
  for (uint32_t x : xs) {
    const double dx = f(x);
    ASSERT_EQ(alu(Op::kSqrtF, x, 0, 0), rounded(std::sqrt(dx))) << fmt::format("sqrt {:08x}", x);
    for (uint32_t y : xs) {
      const double dy = f(y);
      ASSERT_EQ(alu(Op::kAddF, x, y, 0), rounded(dx + dy)) << fmt::format("{:08x} + {:08x}", x, y);
      ASSERT_EQ(alu(Op::kSubF, x, y, 0), rounded(dx - dy)) << fmt::format("{:08x} - {:08x}", x, y);
      ASSERT_EQ(alu(Op::kMulF, x, y, 0), rounded(dx * dy)) << fmt::format("{:08x} * {:08x}", x, y);
      ASSERT_EQ(alu(Op::kDivF, x, y, 0), rounded(dx / dy)) << fmt::format("{:08x} / {:08x}", x, y);
      checked += 4;
    }
  }
  EXPECT_GT(checked, 1'000'000);
}

#if defined(__SIZEOF_FLOAT128__)
TEST(FloatAlu, FmaRoundsOnce) {
  std::mt19937 rng(99);
  const std::vector<uint32_t> xs = sample_operands(rng, 60);
  for (uint32_t x : xs)
    for (uint32_t y : xs)
      for (uint32_t z : xs) {
        const __float128 exact = static_cast<__float128>(f(x)) * f(y) + f(z);  // the product is exact
        const float want = static_cast<float>(exact);
        ASSERT_EQ(alu(Op::kFmaF, x, y, z), std::isnan(want) ? kNaN : b(want))
            << fmt::format("fma {:08x} {:08x} {:08x}", x, y, z);
      }
}
#endif

// One of lower_float.cpp's sequences, with vreg 0 = a, 1 = b and 2 = c, run op by op with
// the machine's alu() and compare() (the interpreter's arithmetic).
struct FloatSequence {
  std::vector<IrInstr> code;
  int vregs = 3, preds = 0;

  explicit FloatSequence(Op op) : FloatSequence(IrInstr{.op = op, .a = ir_vreg(0), .b = ir_vreg(1), .c = ir_vreg(2)}) {}
  // An op whose operands are vregs 0..2 or immediates, folded as the lowering does (fold_fma).
  explicit FloatSequence(IrInstr in) {
    FreshReg fresh = [this] { return ir_vreg(vregs++); };
    FreshReg pred = [this] { return ir_pred(preds++); };
    in.d = fresh();
    const Op op = in.op;
    code = expand_float_op(fold_fma(in), 0, fresh, pred).value();
    // Only the last op writes d (the lowering guards it, and d may be an operand's register).
    EXPECT_EQ(code.back().d, in.d);
    for (size_t i = 0; i + 1 < code.size(); ++i) EXPECT_NE(code[i].d, in.d) << op_info(op).mnemonic << " op " << i;
  }
  uint32_t operator()(uint32_t a, uint32_t b, uint32_t c = 0) const {
    std::vector<uint32_t> r(vregs);
    std::vector<uint8_t> p(preds);
    r[0] = a, r[1] = b, r[2] = c;
    auto word = [&](const IrOperand& o) -> uint32_t {
      return o.kind == IrOperand::Kind::kImm ? static_cast<uint32_t>(o.imm)
           : o.kind == IrOperand::Kind::kPred ? p[o.index] : r[o.index];
    };
    for (size_t i = 0; i < code.size(); ++i) {
      const IrInstr& in = code[i];
      if (in.op == Op::kBra) {  // div's and sqrt's loops
        if (in.guard < 0 || p[in.guard] != in.guard_negated) i = in.target - 1;
      } else if (op_info(in.op).effect == Effect::kPred) {  // as the interpreter's lane_pred_result
        p[in.d.index] = op_info(in.op).form == Form::kPAB ? compare(in.op, word(in.a), word(in.b))
                                                          : pred_logic(in.op, word(in.a) != 0, word(in.b) != 0);
      } else {
        r[in.d.index] = alu(in.op, word(in.a), word(in.b), word(in.c));
      }
    }
    return r[code.back().d.index];
  }
};

// The integer sequences the compiled model runs for f32 arithmetic give alu_f32's bits:
// + - * / on BasicOpsRoundOnceToNearestEven's 404,496 operand pairs, sqrt, the conversions
// and roundings on every one of those operands and on integers at every power of two.
TEST(FloatSequences, EqualTheMachineOps) {
  std::mt19937 rng(1234);
#if defined(QGPU_ASAN)
  const std::vector<uint32_t> xs = sample_operands(rng, 60);  // the host evaluator, not the sequences, is sanitized
#else
  const std::vector<uint32_t> xs = sample_operands(rng, 600);
#endif
  for (Op op : {Op::kAddF, Op::kSubF, Op::kMulF, Op::kDivF}) {
    const FloatSequence seq(op);
    for (uint32_t x : xs)
      for (uint32_t y : xs)
        ASSERT_EQ(seq(x, y), alu(op, x, y, 0)) << op_info(op).mnemonic << fmt::format(" {:08x} {:08x}", x, y);
  }
  std::vector<uint32_t> words = xs;
  for (int k = 0; k < 32; ++k)
    for (int64_t dv : {-2, -1, 0, 1, 2}) {
      words.push_back(static_cast<uint32_t>((int64_t{1} << k) + dv));
      words.push_back(static_cast<uint32_t>(-((int64_t{1} << k) + dv)));
      words.push_back(static_cast<uint32_t>((int64_t{3} << k) + dv));  // ties: 3 << k has two bits
    }
  for (uint32_t e = 0; e < 256; ++e)  // every exponent, both signs, a few fractions
    for (uint32_t fr : {0u, 1u, 0x400000u, 0x400001u, 0x3fffffu, 0x7fffffu, 0x200000u, 0x600000u})
      for (uint32_t sg : {0u, kNegZero}) words.push_back(sg | e << 23 | fr);
  std::uniform_int_distribution<uint32_t> any;
#if defined(QGPU_ASAN)
  for (int i = 0; i < 20'000; ++i) words.push_back(any(rng));
#else
  for (int i = 0; i < 200'000; ++i) words.push_back(any(rng));
#endif
  // cvt.s32.f32 and cvt.u32.f32 are steps the layers compute (stage_test's StageFloat, and
  // every model test): no sequence.
  for (Op op : {Op::kCvtSF, Op::kCvtUF})
    EXPECT_FALSE(expand_float_op({.op = op, .d = ir_vreg(1), .a = ir_vreg(0)}, 0, [] { return ir_vreg(2); },
                                 [] { return ir_pred(0); }));
  for (Op op : {Op::kCvtFS, Op::kCvtFU, Op::kRndNF, Op::kRndMF, Op::kRndPF, Op::kRndZF, Op::kSqrtF}) {
    const FloatSequence seq(op);
    for (uint32_t x : words)
      ASSERT_EQ(seq(x, 0), alu(op, x, 0, 0)) << op_info(op).mnemonic << fmt::format(" {:08x}", x);
  }
}

// fma's sequence on FmaRoundsOnce's triples (every class of each operand), and on c near
// -a * b, where the sum cancels: c = -(a * b) rounded, one and two places either side, and
// halved or doubled a few times (the anchor's choice at exponent differences 0, 1, 2), for
// random a, b of every magnitude.
TEST(FloatSequences, FmaEqualsTheMachineOp) {
  std::mt19937 rng(77);
  const FloatSequence seq(Op::kFmaF);
#if defined(QGPU_ASAN)
  const std::vector<uint32_t> xs = sample_operands(rng, 6);  // the host evaluator, not the sequence, is sanitized
#else
  const std::vector<uint32_t> xs = sample_operands(rng, 30);
#endif
  int64_t checked = 0;
  auto check = [&](uint32_t x, uint32_t y, uint32_t z) {
    ASSERT_EQ(seq(x, y, z), alu(Op::kFmaF, x, y, z)) << fmt::format("fma.f32 {:08x} {:08x} {:08x}", x, y, z);
    ++checked;
  };
  for (uint32_t x : xs)
    for (uint32_t y : xs)
      for (uint32_t z : xs) check(x, y, z);
  std::uniform_int_distribution<uint32_t> any;
#if defined(QGPU_ASAN)
  constexpr int kPairs = 2'000;
#else
  constexpr int kPairs = 80'000;
#endif
  for (int i = 0; i < kPairs; ++i) {
    uint32_t x = any(rng), y = any(rng);
    if (i % 2) x = (x & 0x807fffffu) | ((127 + static_cast<int>(x % 64) - 32) << 23);  // products in range
    if (i % 4 == 1) y = (y & 0x807fffffu) | ((127 + static_cast<int>(y % 64) - 32) << 23);
    const uint32_t p = alu(Op::kMulF, x, y, 0) ^ 0x80000000u;
    for (int64_t k : {-2, -1, 0, 1, 2}) {
      check(x, y, static_cast<uint32_t>(p + k));
      check(x, y, p + 0x800000u * static_cast<uint32_t>(k));  // exponent +-1, +-2
    }
    check(x, y, any(rng));
  }
  EXPECT_GT(checked, kPairs * 11);
}

// An fma with a constant that makes it another op runs that op's sequence (fold_fma) and
// gives the fma's bits: c = -0 is the product, c = +0 the product but for an exact zero's
// sign (one op more: -0 + +0 is +0), a or b = +-1 the sum or the difference.
TEST(FloatSequences, FmaWithAnIdentityOperandIsTheShorterOp) {
  std::mt19937 rng(99);
#if defined(QGPU_ASAN)
  const std::vector<uint32_t> xs = sample_operands(rng, 20);
#else
  const std::vector<uint32_t> xs = sample_operands(rng, 200);
#endif
  const IrOperand x = ir_vreg(0), y = ir_vreg(1), one = ir_imm(b(1.0f)), minus_one = ir_imm(b(-1.0f));
  const size_t mul = FloatSequence(Op::kMulF).code.size(), add = FloatSequence(Op::kAddF).code.size();
  const size_t sub = FloatSequence(Op::kSubF).code.size(), fma = FloatSequence(Op::kFmaF).code.size();
  struct Form {
    IrOperand a, b, c;
    size_t ops;
  };
  const Form forms[] = {{x, y, ir_imm(kNegZero), mul}, {x, y, ir_imm(0), mul + 1}, {x, one, y, add},   {one, x, y, add},
                        {x, minus_one, y, sub},        {minus_one, x, y, sub},       {x, y, ir_imm(b(2.0f)), fma}};
  for (const Form& form : forms) {
    const FloatSequence seq(IrInstr{.op = Op::kFmaF, .a = form.a, .b = form.b, .c = form.c});
    auto operand = [&](const IrOperand& o, uint32_t xv, uint32_t yv) {
      return o.kind == IrOperand::Kind::kImm ? static_cast<uint32_t>(o.imm) : o == x ? xv : yv;
    };
    const std::string what = fmt::format("fma.f32 {} {} {}", form.a.kind == IrOperand::Kind::kImm ? "imm" : "x",
                                         form.b.kind == IrOperand::Kind::kImm ? "imm" : "x|y", form.c.imm);
    EXPECT_EQ(seq.code.size(), form.ops) << what;
    for (uint32_t xv : xs)
      for (uint32_t yv : xs) {
        const uint32_t want = alu(Op::kFmaF, operand(form.a, xv, yv), operand(form.b, xv, yv), operand(form.c, xv, yv));
        ASSERT_EQ(seq(xv, yv), want) << what << fmt::format(": x {:08x} y {:08x}", xv, yv);
      }
  }
}

TEST(FloatAlu, ComparesAreIeee) {
  std::mt19937 rng(7);
  const std::vector<uint32_t> xs = sample_operands(rng, 40);
  for (uint32_t x : xs)
    for (uint32_t y : xs) {
      const double dx = f(x), dy = f(y);
      const bool un = std::isnan(dx) || std::isnan(dy);
      const bool eq = !un && dx == dy, lt = !un && dx < dy, gt = !un && dx > dy;
      const std::pair<Op, bool> want[] = {
          {Op::kSetpEqF, eq},       {Op::kSetpNeF, lt || gt},  {Op::kSetpLtF, lt},        {Op::kSetpLeF, lt || eq},
          {Op::kSetpGtF, gt},       {Op::kSetpGeF, gt || eq},  {Op::kSetpEquF, un || eq}, {Op::kSetpNeuF, !eq},
          {Op::kSetpLtuF, un || lt}, {Op::kSetpLeuF, !gt},     {Op::kSetpGtuF, un || gt}, {Op::kSetpGeuF, !lt}};
      for (const auto& [op, w] : want)
        ASSERT_EQ(compare(op, x, y), w) << op_info(op).mnemonic << fmt::format(" {:08x} {:08x}", x, y);
    }
  int compares = 0;  // the table above names every binary32 compare
  for (const OpInfo& info : kOps) compares += is_float_op(info.op) && info.effect == Effect::kPred;
  EXPECT_EQ(compares, 12);
}

TEST(FloatText, PrintedFloatsReadBackToTheirBits) {
  EXPECT_EQ(format_f32(b(1.5f)), "1.5");
  EXPECT_EQ(format_f32(kNegZero), "-0");
  EXPECT_EQ(format_f32(kMinSub), "1e-45");
  EXPECT_EQ(format_f32(kMax), "3.4028235e+38");
  EXPECT_EQ(format_f32(b(0.1f)), "0.1");
  EXPECT_EQ(format_f32(kInf), "inf");
  EXPECT_EQ(format_f32(kNegInf), "-inf");
  EXPECT_EQ(format_f32(kNaN), "nan");
  EXPECT_EQ(format_f32(0x7fc00000u), "nan:0x7fc00000");
  EXPECT_EQ(parse_f32("nan"), kNaN);
  EXPECT_EQ(parse_f32("-0"), kNegZero);
  EXPECT_EQ(parse_f32("0f7fc00001"), 0x7fc00001u);
  EXPECT_EQ(parse_f32("16777217"), b(16777216.0f));
  EXPECT_EQ(parse_f32("+2.5e-1"), b(0.25f));
  for (const char* bad : {"", "1.5f", "0x1p3", "infinity", "NaN", "1e39", "1e-50", "0f123", "1,5", "--1"})
    EXPECT_EQ(parse_f32(bad), std::nullopt) << bad;
  std::mt19937 rng(5);
  std::uniform_int_distribution<uint32_t> any;
  for (int i = 0; i < 200'000; ++i) {
    const uint32_t x = any(rng);
    if (is_nan(x)) continue;
    const std::string text = format_f32(x);
    ASSERT_EQ(parse_f32(text), x) << text;
    // --json's number: parsed as a double by any JSON reader, then rounded to float.
    const nlohmann::json j = nlohmann::json::parse(f32_json(x).dump());
    ASSERT_EQ(b(static_cast<float>(j.get<double>())), x) << j.dump();
  }
}

// A kernel compiled twice, one thread a lane of a 4-lane block: with the one-op forms (as
// the interpreter runs it) and with the sequences (as the model runs it).
struct TwoForms {
  CompiledKernel native, sequences;
};
TwoForms compile_both(std::string_view src, std::string_view name, std::initializer_list<const char*> args) {
  const fs::path cu = fs::temp_directory_path() / fmt::format("qgpu_float_{}_{}.cu", name, getpid());
  std::ofstream(cu) << src;
  CompileOptions o{.file = cu.string(), .launch = Launch{.block_x = 4}};
  for (const char* a : args) o.args.push_back(parse_kernel_arg(a));
  TwoForms out{.native = compile_cuda(src, o)};
  o.float_sequences = true;
  out.sequences = compile_cuda(src, o);
  fs::remove(cu);
  return out;
}
long op_count(const CompiledKernel& k, Op op) {
  return std::count_if(k.program.code.begin(), k.program.code.end(), [&](const Instr& in) { return in.op == op; });
}
nlohmann::json interpreter_outputs(const CompiledKernel& k) {
  return trace_json(k.program, k.program.launch, run(k.program, k.program.launch), {})["outputs"];
}

// Five float adds and subs are the layers' two microcode steps each (a sub also flips b's
// sign), inlined, never a call: no clz (a normalising count of a sequence) and one
// add.f32.rnd a use; the program computes what the one-op forms do.
TEST(FloatSequences, AddAndSubAreTwoMicrocodeSteps) {
  constexpr std::string_view src = R"(
extern "C" __global__ void sum4(const float *x, float *y) {
  int i = threadIdx.x;
  y[i] = ((x[i] + x[i + 4]) - (x[i + 8] + x[i + 12])) + (x[i + 16] - x[i + 20]);
}
)";
  const TwoForms k = compile_both(
      src, "share", {"x=[1.5,-0,nan,1e-45,3e38,-2,0.1,7,3e38,inf,-0.2,-7,-1e-45,-inf,5,1,0.25,-0.5,1,2,3,-3,0,-0]", "y=[0,0,0,0]"});
  EXPECT_EQ(op_count(k.sequences, Op::kClz), 0);
  EXPECT_EQ(op_count(k.sequences, Op::kAddFRnd), 5);
  EXPECT_EQ(op_count(k.sequences, Op::kAddFSig), 5);
  EXPECT_EQ(interpreter_outputs(k.sequences).dump(), interpreter_outputs(k.native).dump());
  EXPECT_EQ(interpreter_outputs(k.native).dump(),
            R"({"x":[1.5,-0.0,"nan",1e-45,3e+38,-2.0,0.1,7.0,3e+38,"inf",-0.2,-7.0,-1e-45,"-inf",5.0,1.0,)"
            R"(0.25,-0.5,1.0,2.0,3.0,-3.0,0.0,-0.0],"y":[-2.75,"nan","nan",15.0]})");  // 3e38 + 1.5 and 3e38 + 5 round to 3e38
}

// Fmas and muls: inlined, and with a shared copy each, they pass the ROM; the third try
// makes every mul a call of the fma's one copy (a * b = fma(a, b, -0)) and the results are
// the one-op forms'. The subs stay inline microcode.
TEST(FloatSequences, MulsCallTheFmaCopyWhenSharedCopiesPassTheRom) {
  constexpr std::string_view src = R"(
extern "C" __global__ void mix(const float *p, float *d) {
  int i = threadIdx.x;
  float dx = p[3 * i] - p[12], dy = p[3 * i + 1] - p[13], dz = p[3 * i + 2] - p[14];
  d[i] = fmaf(dx, dx, fmaf(dy, dy, fmaf(dz, dz, dx * dy))) * (dz * dy) * (dz * dx) * (dx * dx) + dx;
}
)";
  const TwoForms k = compile_both(src, "fma_all", {"p=[1.5,-0,3,-2,1e-45,0.25,0.1,-7,nan,5,-3e38,2,0.5,-0,1]", "d=[0,0,0,0]"});
  EXPECT_LE(k.sequences.program.code.size(), static_cast<size_t>(kBlocks));
  EXPECT_EQ(op_count(k.sequences, Op::kClz), 1);  // the fma's copy; a mul's copy or an inlined mul would have its own
  EXPECT_EQ(op_count(k.sequences, Op::kAddFRnd), 3);  // the subs (clang fuses the last product and + dx)
  EXPECT_EQ(interpreter_outputs(k.sequences)["d"].dump(), interpreter_outputs(k.native)["d"].dump());
  EXPECT_EQ(interpreter_outputs(k.native)["d"].dump(), R"([1.0,-2.5,"nan","inf"])");
}

// A CUDA kernel through clang, the compiler and the interpreter: clang fuses a * x + y
// into fma.rn.f32 (its default contraction, kept), the results are checked by hand.
TEST(FloatCuda, KernelRunsExactlyOnTheInterpreter) {
  constexpr std::string_view src = R"(
extern "C" __global__ void fk(float a, const float *x, float *y, float *q, int *n, unsigned *u, int *lt) {
  int i = threadIdx.x;
  y[i] = a * x[i] + y[i];
  q[i] = __builtin_sqrtf(x[i]) / 3.0f + __builtin_floorf(x[i]);
  n[i] = (int)x[i];
  u[i] = (unsigned)(x[i] * 1e9f);
  lt[i] = !(x[i] >= a);
}
)";
  const fs::path cu = fs::temp_directory_path() / fmt::format("qgpu_float_test_{}.cu", getpid());
  std::ofstream(cu) << src;
  CompileOptions o{.file = cu.string(), .launch = Launch{}};
  for (const char* a : {"a=2.5", "x=[1.5,-0,nan,1e-45]", "y=[0.5,1,2,3]", "q=[0,0,0,0]", "n=[0,0,0,0]",
                        "u=[0,0,0,0]", "lt=[0,0,0,0]"})
    o.args.push_back(parse_kernel_arg(a));
  CompiledKernel k = compile_cuda(src, o);
  fs::remove(cu);
  for (const char* op : {"fma.rn.f32", "sqrt.rn.f32", "div.rn.f32", "cvt.rmi.f32.f32", "cvt.rzi.s32.f32",
                         "cvt.rzi.u32.f32", "setp.ltu.f32"})
    EXPECT_NE(k.ptx.find(op), std::string::npos) << op;
  Trace t = run(k.program, k.program.launch);
  nlohmann::json out = trace_json(k.program, k.program.launch, t, {})["outputs"];
  // y = fma(2.5, x, y): 4.25, 1 (-0 * 2.5 + 1), nan, 2.5 * 2^-149 + 3 = 3.
  EXPECT_EQ(out["y"].dump(), R"([4.25,1.0,"nan",3.0])");
  // q = sqrt(x) / 3 + floor(x): 1.2247449 / 3 + 1, -0 / 3 + -0 = -0, nan, sqrt(2^-149) / 3 + 0.
  EXPECT_EQ(static_cast<float>(out["q"][0].get<double>()), static_cast<float>(std::sqrt(1.5f) / 3.0f) + 1.0f);
  EXPECT_EQ(out["q"][1].dump(), "-0.0");
  EXPECT_EQ(out["q"][2].dump(), R"("nan")");
  EXPECT_EQ(out["n"].dump(), "[1,0,0,0]");           // NaN converts to 0
  EXPECT_EQ(out["u"].dump(), "[1500000000,0,0,0]");  // 1.5e9 fits; the others are 0
  EXPECT_EQ(out["lt"].dump(), "[1,1,1,1]");          // x < 2.5 or unordered
  EXPECT_NE(trace_text(k.program, k.program.launch, t, false).find("  y = 4.25 1 nan 3\n"), std::string::npos);
  // --trace: a value the compiler typed as a float gets its float beside the bytes.
  const std::string trace = trace_text(k.program, k.program.launch, t, true);
  EXPECT_NE(trace.find("   ; 4.25\n"), std::string::npos) << trace;
  EXPECT_NE(trace.find("   ; -0\n"), std::string::npos) << trace;
}

// The model's state machine carries floats: the ROM holds the .f32 op codes, the register
// file and memory their bit patterns, so a float kernel fed record by record (teacher
// forcing) matches the interpreter's state at every token, and the greedy choice is the
// interpreter's next record at every one (saxpy_float's a * x + y is clang's fma, a
// sequence of 119 integer ops with a loop of two passes). The compares, min, max, neg and
// abs are layers: model_launch_test generates examples/float_compare.qasm and random
// programs of them; the rest are integer sequences (FloatSequences above); corpus_model_test
// generates the kernels of those. Hand-written code with a float op the layers lack is
// named by generation_gap, and its greedy records are not compared.
TEST(FloatModel, TeacherForcedStateEqualsTheInterpreter) {
  const std::string cu = std::string(QGPU_SOURCE_DIR) + "/kernels/saxpy_float.cu";
  const test_util::Result r = test_util::qgpu(
      "run " + cu + " --grid 1 --block 2 --arg a=2.5 --arg 'x=[1,2]' --arg 'y=[0.5,1e-3]' --arg n=2 --check --dtype bf16");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("holds equals the interpreter's after every token"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the model's greedy choice was the interpreter's next record at all"), std::string::npos) << r.out;
  const std::vector<Instr> fma = {{.op = Op::kFmaF, .d = reg(0), .a = reg(1), .b = reg(2), .c = reg(3)}, {.op = Op::kExit}};
  const std::optional<std::string> gap = lift::generation_gap(fma, Launch{});
  ASSERT_TRUE(gap);
  EXPECT_NE(gap->find("block 0: fma.f32 (the model's ALU has the floating point ops min.f32, max.f32, neg.f32, "
                      "abs.f32, cvt.s32.f32, cvt.u32.f32, setp.eq.f32,"),
            std::string::npos) << *gap;
  EXPECT_NE(gap->find("`qgpu run --engine model` compiles add and sub into the float microcode (add.f32.sig, "
                      "add.f32.rnd), mul, fma, div, sqrt and the other conversions into integer ops"),
            std::string::npos) << *gap;
}

// The float steps inside the model on every class of operand (kernels/float_classes.cu's
// three cases: zeros, subnormals, the ends, infinities, NaNs, ties whose carry runs through
// every nibble, the conversions' edges), in f32, bf16 and f16, checked at every token.
TEST(FloatModel, FloatStepsOnEveryClassInEveryDtype) {
  const std::string cu = std::string(QGPU_SOURCE_DIR) + "/kernels/float_classes.cu";
  std::vector<std::string> runs;
  std::istringstream lines(test_util::read_file(cu));
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("// run: ", 0) == 0) runs.push_back(line.substr(8));
  ASSERT_EQ(runs.size(), 3u);
#if defined(QGPU_ASAN)
  runs.resize(1);  // the sanitized binary is several times slower; the dev pass runs all three
#endif
  for (const std::string& run : runs)
    for (const char* dtype : {"f32", "bf16", "f16"}) {
      const test_util::Result r = test_util::qgpu("run " + cu + " " + run + " --check --dtype " + dtype);
      EXPECT_EQ(r.status, 0) << dtype << " " << run << "\n" << r.err;
      EXPECT_NE(r.out.find("the model's greedy choice was the interpreter's next record at all"), std::string::npos)
          << dtype << " " << run << "\n" << r.out;
    }
}

// `qgpu run --check` compiles the float kernel as the model runs it (mul.f32 by 0.01 as an
// integer sequence), and the model's greedy records are the interpreter's at every token.
TEST(FloatModel, AMulSequenceGeneratesInTheModel) {
#if defined(QGPU_ASAN)
  GTEST_SKIP() << "a sequence is integer ops (the model tests run them sanitized), compiled sanitized in "
                  "FloatSequences; this is the CLI's choice of compile";
#endif
  const std::string cu = std::string(QGPU_SOURCE_DIR) + "/kernels/relu_leaky.cu";
  const test_util::Result r = test_util::qgpu("run " + cu + " --grid 1 --block 4 --arg 'x=[1e-45,-100,nan,-3e-39]' "
                                              "--arg 'relu=[0,0,0,0]' --arg 'leaky=[0,0,0,0]' --check --dtype bf16");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("the model's greedy choice was the interpreter's next record at all"), std::string::npos) << r.out;
  const test_util::Result blocks = test_util::qgpu("run " + cu + " --arg 'x=[1]' --arg 'relu=[0]' --arg 'leaky=[0]' "
                                                   "--engine model --dump blocks");
  EXPECT_EQ(blocks.status, 0) << blocks.err;
  EXPECT_EQ(blocks.out.find("mul.f32"), std::string::npos) << blocks.out;  // max.f32 and setp.gt.f32 are layers
  EXPECT_NE(blocks.out.find("mad.lo"), std::string::npos) << blocks.out;
}

}  // namespace
}  // namespace qgpu
