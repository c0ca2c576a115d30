// Per-stage tests of the construction's MLP stages: each stage's rules alone, on residual
// vectors that hold its input fields (tests/stage_probe.h), against the host's own
// arithmetic. The whole machine is tested end to end elsewhere (machine_model_test,
// model_launch_test); here a wrong rule shows up as the stage and field that computed it.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include "gpu/alu.h"
#include "gpu/vocab.h"
#include "lift/plan.h"
#include "stage_probe.h"

namespace qgpu {
namespace {

using test_util::StageProbe;

constexpr uint32_t kEdges[] = {0u, 1u, 0xffffffffu, 0x80000000u, 0x7fffffffu};

// The edge words paired with each other, then `random` random pairs.
std::vector<std::pair<uint32_t, uint32_t>> word_pairs(int random, uint32_t seed) {
  std::vector<std::pair<uint32_t, uint32_t>> p;
  for (uint32_t a : kEdges)
    for (uint32_t b : kEdges) p.emplace_back(a, b);
  std::mt19937 rng(seed);
  for (int i = 0; i < random; ++i) p.emplace_back(static_cast<uint32_t>(rng()), static_cast<uint32_t>(rng()));
  return p;
}

std::string text(Op op, uint32_t a, uint32_t b) { return fmt::format("{} {:#010x} {:#010x}", op_info(op).mnemonic, a, b); }

// One case per op and pair: the op's f_op and opf, oa = a, ob = b from MLP `first` through
// MLP `last`; then `out` must read want(op, a, b).
template <typename Want>
void expect_binary(std::initializer_list<Op> ops, const std::vector<std::pair<uint32_t, uint32_t>>& pairs, int first,
                   int last, const char* out, Want want) {
  StageProbe p(first, static_cast<int>(pairs.size() * ops.size()));
  int c = 0;
  for (Op op : ops)
    for (auto [a, b] : pairs) {
      p.set_op(c, op);
      p.set_word(c, "oa", a);
      p.set_word(c, "ob", b);
      ++c;
    }
  ASSERT_NO_FATAL_FAILURE(p.run(last));
  c = 0;
  for (Op op : ops)
    for (auto [a, b] : pairs) EXPECT_EQ(p.word(c++, out), want(op, a, b)) << text(op, a, b);
}

// stage_alu.cpp: the adder, L11 (as, acl), L12 (car), L13 (sum), for add and sub of oa, ob.
TEST(StageAlu, AddAndSubIntoSum) {
  expect_binary({Op::kAdd, Op::kSub}, word_pairs(400, 11), lift::kAluLayer, lift::kAluLayer + 2, "sum",
                [](Op op, uint32_t a, uint32_t b) { return op == Op::kAdd ? a + b : a - b; });
}

// stage_mul.cpp: the multiplier, L8 (plo, phi, pbt), L9 (column sums), L10 (em, ed), then
// the adder (L11-L13): mul.lo's low word into sum, and mad.lo's a * b + c.
TEST(StageMul, MulLoAndMadLoIntoSum) {
  const auto pairs = word_pairs(400, 8);
  std::mt19937 rng(80);
  std::vector<uint32_t> cs;
  StageProbe p(lift::kMulLayer, static_cast<int>(pairs.size() * 2));
  int c = 0;
  for (Op op : {Op::kMulLo, Op::kMadLo})
    for (auto [a, b] : pairs) {
      p.set_op(c, op);
      p.set_word(c, "oa", a);
      p.set_word(c, "ob", b);
      const uint32_t addend = op == Op::kMadLo ? (c % 7 == 0 ? 0xffffffffu : static_cast<uint32_t>(rng())) : 0u;
      cs.push_back(addend);
      p.set_word(c, "oc", addend);
      ++c;
    }
  ASSERT_NO_FATAL_FAILURE(p.run(lift::kAluLayer + 2));
  c = 0;
  for (Op op : {Op::kMulLo, Op::kMadLo})
    for (auto [a, b] : pairs) {
      const uint32_t want = a * b + (op == Op::kMadLo ? cs[static_cast<size_t>(c)] : 0u);
      EXPECT_EQ(p.word(c, "sum"), want) << text(op, a, b) << " c=" << cs[static_cast<size_t>(c)];
      ++c;
    }
}

// stage_select.cpp: the logic ops, L11 (lbit) and L12 (lg).
TEST(StageSelect, LogicOpsIntoLg) {
  expect_binary({Op::kAnd, Op::kOr, Op::kXor, Op::kNot}, word_pairs(200, 17), lift::kAluLayer, lift::kAluLayer + 1, "lg",
                [](Op op, uint32_t a, uint32_t b) { return op == Op::kAnd ? a & b : op == Op::kOr ? a | b : op == Op::kXor ? a ^ b : ~a; });
}

// stage_select.cpp: the shifts, L11 (lbit: a's bits; sa: the amount) and L13 (sbit).
TEST(StageSelect, ShiftsIntoSbit) {
  std::mt19937 rng(13);
  std::vector<std::pair<uint32_t, uint32_t>> pairs;
  for (uint32_t a : kEdges)
    for (uint32_t b : {0u, 1u, 4u, 15u, 16u, 31u, 32u, 33u, 255u, 256u, 0x80000000u, 0xffffffffu}) pairs.emplace_back(a, b);
  for (int i = 0; i < 200; ++i) pairs.emplace_back(static_cast<uint32_t>(rng()), static_cast<uint32_t>(rng() % 40));
  expect_binary({Op::kShl, Op::kShrU, Op::kShrS}, pairs, lift::kAluLayer, lift::kAluLayer + 2, "sbit",
                [](Op op, uint32_t a, uint32_t b) {
                  if (op == Op::kShl) return b >= 32 ? 0u : a << b;
                  if (op == Op::kShrU) return b >= 32 ? 0u : a >> b;
                  return static_cast<uint32_t>(static_cast<int32_t>(a) >> (b >= 32 ? 31 : b));
                });
}

// stage_pred.cpp: the compares, L7 (cmpn{l}, cms{l}) and L8 (cu{l}, cs{l}) for all four
// lanes at once: a from the lane's register read ra{l}, b from rb{l} (f_b a register) or
// lane nl's ob (f_b the immediate, shared by the lanes).
TEST(StagePred, CompareIntoCuCs) {
  std::mt19937 rng(7);
  // Per case and lane: a, b; per case: whether b is the immediate.
  struct Case {
    uint32_t a[kLanes], b[kLanes];
    bool imm;
  };
  std::vector<Case> cases;
  auto near = [&](uint32_t v) {  // a word close to v, so the higher nibbles often agree
    switch (rng() % 4) {
      case 0: return v;
      case 1: return v + 1;
      case 2: return v - 1;
      default: return v ^ (1u << (rng() % 32));
    }
  };
  auto random = [&] { return static_cast<uint32_t>(rng()); };
  for (int i = 0; i < 150; ++i) {
    Case k{};
    k.imm = i % 3 == 2;
    const uint32_t shared = i < 25 ? kEdges[i % 5] : random();
    for (int l = 0; l < kLanes; ++l) {
      if (i < 25) {  // every pair of edge words, in some lane of some case
        k.a[l] = kEdges[(i / 5 + l) % 5];
        k.b[l] = k.imm ? shared : kEdges[(i + 2 * l) % 5];
        continue;
      }
      k.b[l] = k.imm ? shared : random();
      k.a[l] = l == 0 ? random() : near(k.b[l]);  // lanes 1-3: a close to b
    }
    cases.push_back(k);
  }
  StageProbe p(lift::kLaneOpsLayer + 1, static_cast<int>(cases.size()));
  p.set_all("xat", 1);  // no atomic's old word at this token (xat's digit 0 is one: mw needs its jb)
  for (int c = 0; c < p.cases(); ++c) {
    const Case& k = cases[static_cast<size_t>(c)];
    p.set_op(c, Op::kSetpLtS);
    p.set(c, "f_a", field_code(reg(3)));
    p.set(c, "f_b", k.imm ? kImmCode : field_code(reg(5)));
    if (k.imm) p.set_word(c, "ob", k.b[0]);
    for (int l = 0; l < kLanes; ++l) {
      p.set_word(c, "ra" + std::to_string(l), k.a[l]);
      if (!k.imm) p.set_word(c, "rb" + std::to_string(l), k.b[l]);
    }
  }
  ASSERT_NO_FATAL_FAILURE(p.run(lift::kMulLayer));
  auto order = [](auto x, auto y) { return x < y ? lift::kLt : x == y ? lift::kEq : lift::kGt; };
  int seen[2][3] = {}, seen_sign_split = 0;  // unsigned, signed: the orders the cases cover
  for (int c = 0; c < p.cases(); ++c)
    for (int l = 0; l < kLanes; ++l) {
      const Case& k = cases[static_cast<size_t>(c)];
      const uint32_t a = k.a[l], b = k.b[l];
      const std::string what = fmt::format("lane {} a={:#010x} b={:#010x}{}", l, a, b, k.imm ? " (imm)" : "");
      EXPECT_EQ(p.digit(c, "cu" + std::to_string(l)), order(a, b)) << what;
      EXPECT_EQ(p.digit(c, "cs" + std::to_string(l)), order(static_cast<int32_t>(a), static_cast<int32_t>(b))) << what;
      ++seen[0][order(a, b)];
      ++seen[1][order(static_cast<int32_t>(a), static_cast<int32_t>(b))];
      seen_sign_split += (a >> 31) != (b >> 31);
    }
  for (int s = 0; s < 2; ++s)
    for (int r = 0; r < 3; ++r) EXPECT_GE(seen[s][r], 20) << (s ? "signed" : "unsigned") << " order " << r;
  EXPECT_GE(seen_sign_split, 40) << "cases where signed and unsigned orders differ";
}

// stage_emit.cpp: L14's res and fits, for mov (res = oa) and add (res = the adder's sum):
// fits when the result is a one-token value (kSmallMin..kSmallMax).
TEST(StageEmit, ResAndFits) {
  std::mt19937 rng(14);
  std::vector<uint32_t> words = {0u, 1u, 255u, 256u, 511u, 512u, 0xffffffffu, 0xffffff00u, 0xfffffeffu,
                                 0x80000000u, 0x7fffffffu, 0x100u, 0x1ffu, 0x200u, 0x10000u};
  for (int i = 0; i < 40; ++i) words.push_back(static_cast<uint32_t>(rng()));
  for (int i = 0; i < 40; ++i) words.push_back(static_cast<uint32_t>(static_cast<int32_t>(rng() % 1200) - 600));
  const Op ops[] = {Op::kMov, Op::kAdd};
  StageProbe p(lift::kEmitLayer, static_cast<int>(words.size() * 2));
  int c = 0;
  for (Op op : ops)
    for (uint32_t w : words) {
      p.set_op(c, op);
      p.set_word(c, op == Op::kMov ? "oa" : "sum", w);
      p.set_word(c, op == Op::kMov ? "sum" : "oa", 0x5a5a5a5au);  // the other source differs
      ++c;
    }
  ASSERT_NO_FATAL_FAILURE(p.run(lift::kEmitLayer));
  c = 0;
  for (Op op : ops)
    for (uint32_t w : words) {
      const int32_t v = static_cast<int32_t>(w);
      const std::string what = fmt::format("{} {:#010x}", op_info(op).mnemonic, w);
      EXPECT_EQ(p.word(c, "res"), w) << what;
      EXPECT_EQ(p.digit(c, "fits"), v >= kSmallMin && v <= kSmallMax ? 0 : 1) << what;
      ++c;
    }
}

// stage_control.cpp: L2's MLP, what the step does to each lane: eff{l} (in the mask and the
// guard passes), and at a sched token npc_hi{l}, npc_lo{l} (a taken bra's target, else the
// next block) and act{l} (exit, bar); at any other token npc none and act 3.
TEST(StageControl, LaneControl) {
  std::mt19937 rng(2);
  struct Case {
    int warp, block, mask, guard, rg[kLanes];
    Op op;
    bool sched;
    uint32_t imm;
  };
  const Op ops[] = {Op::kBra, Op::kExit, Op::kBar, Op::kAdd, Op::kMov, Op::kSetpLtS, Op::kSt};
  std::vector<Case> cases;
  for (int i = 0; i < 300; ++i) {
    Case k{};
    k.warp = static_cast<int>(rng() % kWarps);
    k.block = i < 8 ? (i % 2 ? 255 : 15 + 16 * i) : static_cast<int>(rng() % kBlocks);  // wraps: 255, x15
    k.mask = static_cast<int>(rng() % 16);
    k.guard = i % 3 == 0 ? 0 : static_cast<int>(rng() % kGuardCodes);
    for (int& r : k.rg) r = static_cast<int>(rng() % 2);
    k.op = ops[rng() % std::size(ops)];
    k.sched = i % 5 != 4;
    k.imm = static_cast<uint32_t>(rng() % kBlocks);
    cases.push_back(k);
  }
  StageProbe p(lift::kRegisterLayer, static_cast<int>(cases.size()));
  for (int c = 0; c < p.cases(); ++c) {
    const Case& k = cases[static_cast<size_t>(c)];
    std::vector<int> step = {k.warp, k.block / lift::kBlockLo, k.block % lift::kBlockLo};
    for (int l = 0; l < kLanes; ++l) step.push_back(k.mask >> l & 1 ? 0 : 1);
    p.set(c, "step", step);
    p.set(c, "fam", static_cast<int>(k.sched ? Tok::kSched : c % 2 ? Tok::kPred : Tok::kSmall));
    p.set_op(c, k.op);
    p.set(c, "f_guard", k.guard);
    p.set_word(c, "f_imm", k.imm);
    for (int l = 0; l < kLanes; ++l) p.set(c, "rg" + std::to_string(l), k.rg[l]);
  }
  ASSERT_NO_FATAL_FAILURE(p.run(lift::kRegisterLayer));
  for (int c = 0; c < p.cases(); ++c)
    for (int l = 0; l < kLanes; ++l) {
      const Case& k = cases[static_cast<size_t>(c)];
      const std::string s = std::to_string(l);
      const bool in = (k.mask >> l & 1) != 0;
      const bool pass = k.guard == 0 || (k.guard <= kPreds ? k.rg[l] == 1 : k.rg[l] == 0);
      int hi = lift::kBlockHi, lo = lift::kBlockLo, act = 3;
      if (k.sched && !in) act = 0;
      if (k.sched && in) {
        act = pass && k.op == Op::kExit ? 1 : pass && k.op == Op::kBar ? 2 : 0;
        const int next = k.op == Op::kBra && pass ? static_cast<int>(k.imm) : (k.block + 1) % kBlocks;
        hi = next / lift::kBlockLo, lo = next % lift::kBlockLo;
      }
      const std::string what = fmt::format("lane {}: {} block {} mask {:#x} guard {} rg {} {}", l, op_info(k.op).mnemonic,
                                           k.block, k.mask, k.guard, k.rg[l], k.sched ? "sched" : "other token");
      EXPECT_EQ(p.digit(c, "eff" + s), in && pass ? 0 : 1) << what;
      EXPECT_EQ(p.digit(c, "npc_hi" + s), hi) << what;
      EXPECT_EQ(p.digit(c, "npc_lo" + s), lo) << what;
      EXPECT_EQ(p.digit(c, "act" + s), act) << what;
    }
}

// stage_sched.cpp: the scheduler's min-PC pick, L12 (cmp{i}{j}: lane i's PC against lane
// j's) and L13 (smk{l}: lane l is runnable with the least PC; mhi, mlo: that PC, 0 when no
// lane is runnable), from warp nw's lanes' PCs ch{l}, cl{l} (16, 16: not runnable).
TEST(StageSched, MinPcPick) {
  std::mt19937 rng(12);
  constexpr int kNone = -1;
  std::vector<std::array<int, kLanes>> cases;
  for (int i = 0; i < 300; ++i) {
    std::array<int, kLanes> pc{};
    // Few distinct PCs, so ties and equal high digits are common; some lanes not runnable.
    const int base = static_cast<int>(rng() % kBlocks);
    for (int& x : pc) {
      const int k = static_cast<int>(rng() % 6);
      x = k == 0 ? kNone : k == 1 ? static_cast<int>(rng() % kBlocks) : (base + static_cast<int>(rng() % 3) * (k == 2 ? 16 : 1)) % kBlocks;
    }
    if (i < 4) pc.fill(i == 0 ? kNone : i == 1 ? 0 : i == 2 ? 255 : 17);
    cases.push_back(pc);
  }
  StageProbe p(lift::sched_layer(3), static_cast<int>(cases.size()));
  for (int c = 0; c < p.cases(); ++c)
    for (int l = 0; l < kLanes; ++l) {
      const int pc = cases[static_cast<size_t>(c)][static_cast<size_t>(l)];
      p.set(c, "ch" + std::to_string(l), pc == kNone ? lift::kBlockHi : pc / lift::kBlockLo);
      p.set(c, "cl" + std::to_string(l), pc == kNone ? lift::kBlockLo : pc % lift::kBlockLo);
    }
  ASSERT_NO_FATAL_FAILURE(p.run(lift::kSchedLast));
  for (int c = 0; c < p.cases(); ++c) {
    const auto& pc = cases[static_cast<size_t>(c)];
    int least = kNone;
    for (int x : pc)
      if (x != kNone && (least == kNone || x < least)) least = x;
    const std::string what = fmt::format("PCs {} {} {} {}", pc[0], pc[1], pc[2], pc[3]);
    for (int l = 0; l < kLanes; ++l)
      EXPECT_EQ(p.digit(c, "smk" + std::to_string(l)), pc[static_cast<size_t>(l)] != kNone && pc[static_cast<size_t>(l)] == least ? 0 : 1)
          << what << " lane " << l;
    EXPECT_EQ(p.digit(c, "mhi"), least == kNone ? 0 : least / lift::kBlockLo) << what;
    EXPECT_EQ(p.digit(c, "mlo"), least == kNone ? 0 : least % lift::kBlockLo) << what;
  }
}

// Float operand pairs: each edge value (zeros, subnormals, around 1, the ends, infinities,
// NaNs) against each, then random words, pairs of near magnitudes and opposite signs (the
// cancellations), and pairs whose exponents differ by 0..40.
std::vector<std::pair<uint32_t, uint32_t>> float_pairs(int random, uint32_t seed) {
  const uint32_t edges[] = {0u,          0x80000000u, 1u,          0x80000001u, 0x007fffffu, 0x00800000u, 0x3f800000u,
                            0xbf800000u, 0x3f800001u, 0x33800000u, 0x4b000000u, 0x7f7fffffu, 0xff7fffffu, 0x7f000000u,
                            0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7f800001u, 0xffffffffu};
  std::vector<std::pair<uint32_t, uint32_t>> p;
  for (uint32_t a : edges)
    for (uint32_t b : edges) p.emplace_back(a, b);
  // Carries that run through every nibble: all-ones significands against neighbours (the
  // ties of (1 - 2^-24) + 1), at exponents whose bit 0 and the shift's are both set.
  for (uint32_t e : {1u, 2u, 125u, 126u, 127u, 253u, 254u})
    for (uint32_t m : {0x7fffffu, 0x7ffffeu, 0u, 1u, 0x400000u})
      for (int de = -2; de <= 2; ++de)
        for (uint32_t sign : {0u, 0x80000000u})
          p.emplace_back(e << 23 | 0x7fffffu, sign | (static_cast<uint32_t>(static_cast<int>(e) + de) & 0xffu) << 23 | m);
  std::mt19937 rng(seed);
  for (int i = 0; i < random; ++i) {
    const uint32_t a = static_cast<uint32_t>(rng());
    uint32_t b = static_cast<uint32_t>(rng());
    if (i % 3 == 1) b = (a ^ 0x80000000u) + (static_cast<uint32_t>(rng()) % 64) - 32;  // cancellation
    if (i % 3 == 2) b = (b & 0x807fffffu) | ((((a >> 23) & 0xffu) + static_cast<uint32_t>(rng()) % 41 - 20) & 0xffu) << 23;
    p.emplace_back(a, b);
  }
  return p;
}

// stage_float.cpp: add.f32.sig's word (L8-L10 addends, the adder L11-L13) and add.f32.rnd's
// (its magnitude in sum, its class in fcls) for a + b, against the interpreter's microcode.
TEST(StageFloat, AddMicrocode) {
  const auto pairs = float_pairs(600, 52);
  StageProbe p(lift::kMulLayer, static_cast<int>(2 * pairs.size()));
  int c = 0;
  for (auto [a, b] : pairs) {
    p.set_op(c, Op::kAddFSig);
    p.set_word(c, "oa", a);
    p.set_word(c, "ob", b);
    p.set_op(c + 1, Op::kAddFRnd);
    p.set_word(c + 1, "oa", alu(Op::kAddFSig, a, b, 0));
    p.set_word(c + 1, "ob", a);
    p.set_word(c + 1, "oc", b);
    c += 2;
  }
  ASSERT_NO_FATAL_FAILURE(p.run(lift::kAluLayer + 2));
  c = 0;
  for (auto [a, b] : pairs) {
    const std::string what = fmt::format("{:#010x} + {:#010x}", a, b);
    EXPECT_EQ(p.word(c, "sum"), alu(Op::kAddFSig, a, b, 0)) << "add.f32.sig " << what;
    const uint32_t want = alu(Op::kAddF, a, b, 0);
    const bool nan = (want & 0x7fffffffu) > 0x7f800000u, inf = (want & 0x7fffffffu) == 0x7f800000u;
    const bool zero = (want & 0x7fffffffu) == 0, minus = want >> 31 != 0;
    const bool special = (a & 0x7fffffffu) >= 0x7f800000u || (b & 0x7fffffffu) >= 0x7f800000u;
    const int cls = nan ? lift::kNaN
                    : special && inf ? (minus ? lift::kMinusInf : lift::kPlusInf)
                    : zero           ? (minus ? lift::kMinusZero : lift::kPlusZero)
                                     : (minus ? lift::kMinus : lift::kPlus);
    EXPECT_EQ(p.digit(c + 1, "fcls"), cls) << "add.f32.rnd's class " << what;
    if (cls == lift::kPlus || cls == lift::kMinus) {
      EXPECT_EQ(p.word(c + 1, "sum"), want & 0x7fffffffu) << "add.f32.rnd " << what;
    }
    c += 2;
  }
}

// stage_float.cpp: cvt.s32.f32 and cvt.u32.f32 (L8 fce, L10 the addends, the adder) into
// sum: every exponent from 120 to 160 with random significands and both signs, the edges
// (2^31, 2^32 and their neighbours, infinities, NaNs, zeros, subnormals) and random words.
TEST(StageFloat, ConversionsToIntegers) {
  std::vector<uint32_t> words = {0u, 0x80000000u, 1u, 0x807fffffu, 0x3f000000u, 0xbf7fffffu, 0x3f800000u,
                                 0xbf800000u, 0x4effffffu, 0x4f000000u, 0xcf000000u, 0xcf000001u, 0x4f7fffffu,
                                 0x4f800000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xff800001u, 0x7fffffffu};
  std::mt19937 rng(53);
  for (uint32_t e = 120; e <= 160; ++e)
    for (uint32_t sign : {0u, 1u})
      for (int r = 0; r < 3; ++r) words.push_back(sign << 31 | e << 23 | (static_cast<uint32_t>(rng()) & 0x7fffffu));
  for (int r = 0; r < 200; ++r) words.push_back(static_cast<uint32_t>(rng()));
  StageProbe p(lift::kMulLayer, static_cast<int>(2 * words.size()));
  int c = 0;
  for (Op op : {Op::kCvtSF, Op::kCvtUF})
    for (uint32_t a : words) {
      p.set_op(c, op);
      p.set_word(c++, "oa", a);
    }
  ASSERT_NO_FATAL_FAILURE(p.run(lift::kAluLayer + 2));
  c = 0;
  for (Op op : {Op::kCvtSF, Op::kCvtUF})
    for (uint32_t a : words) EXPECT_EQ(p.word(c++, "sum"), alu(op, a, 0, 0)) << text(op, a, 0);
}

}  // namespace
}  // namespace qgpu
