// The value ops that choose or combine bits rather than add (docs/design.md §3), for lane
// nl, by threshold rules:
//   L11 MLP: lbit, per nibble and bit of oa and ob, the bit of and, or, xor (a + b >= 2,
//      >= 1, = 1) and not (a = 0), or a's bit for the shifts, vetoed unless the op is the
//      one: all off otherwise; sa, the shift amount (b below 32, else 32);
//      brev's bits (a's bit 31 - i for bit i); popc's and clz's a as it is;
//   L12 MLP: lg, those bits as nibbles (threshold rules on the bits' weighted sum), or their
//      count for popc (on bits) and clz (off bits from the top: a threshold rule per length);
//   L9 MLP: oan, whether lane nl's a is a NaN (neg.f32, abs.f32);
//   L13 MLP: pka, whether min / max take a (lane nl's compare of a and b from
//      stage_pred.cpp: cu{l}, cs{l}); sbit, the shifted word's bits (a threshold rule per
//      output bit and amount: "the amount is s and the source bit is on").
// L14's result select (stage_emit.cpp) takes lg for the logic ops, sbit's nibbles for the
// shifts, pka's operand for min and max, oa or ob by the predicate oc for selp, and the
// adder's ~a + 1 for neg and abs.
#include <algorithm>
#include <string>

#include "gpu/isa.h"
#include "lift/machine_model.h"
#include "lift/stages.h"

namespace qgpu::lift {
namespace {

using Lit = Mlp::Literal;
using Term = Mlp::Term;

int lbit(Net& n, int g, int k, bool on) { return n.digit("lbit", 4 * g + k, on ? 0 : 1); }

std::vector<int> veto_unless_op(Net& n, Op op) { return op_veto(n, op_info(op).mnemonic); }

// Bit k of nibble g of a word field, times sign.
Term bit(Net& n, const std::string& field, int g, int k, int sign) {
  Term t;
  for (int v = 0; v < 16; ++v) {
    t.dims.push_back(n.digit(field, g, v));
    t.weight.push_back(sign * (v >> k & 1));
  }
  return t;
}

void logic_bits(Net& n, Mlp& m) {
  std::vector<int> off;
  for (int g = 0; g < 8; ++g)
    for (int k = 0; k < 4; ++k) off.push_back(lbit(n, g, k, false));
  m.rule({{n.one()}}, off);
  for (int g = 0; g < 8; ++g)
    for (int k = 0; k < 4; ++k) {
      const std::vector<Term> both = {bit(n, "oa", g, k, 1), bit(n, "ob", g, k, 1)};
      const std::vector<Mlp::Out> turn_on = {{lbit(n, g, k, false), -1}, {lbit(n, g, k, true), 1}};
      const std::vector<Mlp::Out> turn_off = {{lbit(n, g, k, false), 1}, {lbit(n, g, k, true), -1}};
      m.threshold(both, 2, veto_unless_op(n, Op::kAnd), turn_on);
      m.threshold(both, 1, veto_unless_op(n, Op::kOr), turn_on);
      m.threshold(both, 1, veto_unless_op(n, Op::kXor), turn_on);
      m.threshold(both, 2, veto_unless_op(n, Op::kXor), turn_off);
      m.threshold({bit(n, "oa", g, k, -1)}, 0, veto_unless_op(n, Op::kNot), turn_on);
      m.threshold({bit(n, "oa", g, k, 1)}, 1, op_veto(n, "abits"), turn_on);  // a shift's, popc's, clz's a, bit by bit
      m.threshold({bit(n, "oa", 7 - g, 3 - k, 1)}, 1, op_veto(n, "brev"), turn_on);  // brev: a's bit 31 - (4 g + k)
    }
}

// L11: sa, the shift amount: b when it is below 32 (b's nibble 0 and 1, the rest 0), else 32.
void shift_amount(Net& n, Mlp& m) {
  for (int s = 0; s < 32; ++s) {
    std::vector<Lit> lits = {{n.dim("ob", s % 16)}, {n.dim("ob", 16 + s / 16)}};
    for (int g = 2; g < 8; ++g) lits.push_back({n.digit("ob", g, 0)});
    m.rule(lits, {n.dim("sa", s)});
  }
  const int big = n.dim("sa", 32);
  m.rule({n.dims("ob", 16 + 2, 14)}, {big});
  std::vector<Lit> low = {{n.dim("ob", 16), n.dim("ob", 17)}};
  for (int g = 2; g < 8; ++g) {
    std::vector<Lit> lits = low;
    lits.push_back(n.dims("ob", 16 * g + 1, 15));
    m.rule(lits, {big});
    low.push_back({n.digit("ob", g, 0)});
  }
}

int sbit(Net& n, int i, bool on) { return n.digit("sbit", i, on ? 0 : 1); }

// L13: sbit, the shifted word's bits: bit i is on when the amount is s and a's bit i - s
// (shl), i + s (shr.u) or min(i + s, 31) (shr.s; for amounts of 32 and more, the sign)
// is on; shl and shr.u by 32 or more give 0.
void shift_bits(Net& n, Mlp& m) {
  std::vector<int> off;
  for (int i = 0; i < 32; ++i) off.push_back(sbit(n, i, false));
  m.rule({{n.one()}}, off);
  auto on_when = [&](Op op, int i, int s, int src) {
    m.threshold({{{n.dim("sa", s)}, {1}}, {{lbit(n, src / 4, src % 4, true)}, {1}}}, 2, veto_unless_op(n, op),
           {{sbit(n, i, false), -1}, {sbit(n, i, true), 1}});
  };
  for (int i = 0; i < 32; ++i) {
    for (int s = 0; s <= i; ++s) on_when(Op::kShl, i, s, i - s);
    for (int s = 0; i + s < 32; ++s) on_when(Op::kShrU, i, s, i + s);
    for (int s = 0; s <= 32; ++s) on_when(Op::kShrS, i, s, std::min(i + s, 31));
  }
}

// L12: lg, the word of the logic ops and brev (lbit's bits as nibbles), or of popc and clz (a
// count 0..32 of lbit's bits, a's own: the nibbles 0 and 1 of the word). Each is a threshold
// rule that moves a nibble's hot one up, vetoed unless the op is one of its set.
void logic_nibbles(Net& n, Mlp& m) {
  std::vector<int> zero;
  for (int g = 0; g < 8; ++g) zero.push_back(n.digit("lg", g, 0));
  m.rule({{n.one()}}, zero);
  for (int g = 0; g < 8; ++g) {
    std::vector<Term> value;
    for (int k = 0; k < 4; ++k) value.push_back({{lbit(n, g, k, true)}, {1 << k}});
    for (int v = 1; v < 16; ++v)
      m.threshold(value, v, op_veto(n, "logic"), {{n.digit("lg", g, v - 1), -1}, {n.digit("lg", g, v), 1}});
  }
  // The count reaches c: nibble 0 moves from c - 1 to c % 16, and at 16 and 32 nibble 1 up.
  auto count_up = [&](int c) {
    std::vector<Mlp::Out> out = {{n.dim("lg", (c - 1) % 16), -1}, {n.dim("lg", c % 16), 1}};
    if (c % 16 == 0) out.insert(out.end(), {{n.dim("lg", 16 + c / 16 - 1), -1}, {n.dim("lg", 16 + c / 16), 1}});
    return out;
  };
  for (int c = 1; c <= 32; ++c) {
    std::vector<Term> set, above;  // popc: at least c bits are on; clz: bits 32 - c .. 31 are all off
    for (int i = 0; i < 32; ++i) {
      set.push_back({{lbit(n, i / 4, i % 4, true)}, {1}});
      if (i >= 32 - c) above.push_back({{lbit(n, i / 4, i % 4, true)}, {-1}});
    }
    m.threshold(set, c, op_veto(n, "popc"), count_up(c));
    m.threshold(above, 0, op_veto(n, "clz"), count_up(c));
  }
}

// pka: 0 take a, 1 take b, 2 the canonical NaN, by lane nl's order of a against b: cs{l}
// or cu{l} (0 lt, 1 eq, 2 gt) for the integer ops; fmo{l} for min.f32, max.f32
// (stage_pred.cpp: 0 lt, 1 eq, 2 gt with -0 below +0; 3 only a is a NaN, 4 only b, 5
// both): a NaN operand gives the other, two give the canonical NaN.
void pick_rules(Net& n, Mlp& m) {
  struct MinMax {
    Op op;
    const char* field;
    int classes;
    std::vector<int> take_a;
    int nan = -1;  // the class that gives the canonical NaN
  };
  const MinMax ops[] = {{Op::kMinS, "cs", 3, {0, 1}},         {Op::kMinU, "cu", 3, {0, 1}},
                        {Op::kMaxS, "cs", 3, {2, 1}},         {Op::kMaxU, "cu", 3, {2, 1}},
                        {Op::kMinF, "fmo", 6, {0, 1, 4}, 5}, {Op::kMaxF, "fmo", 6, {2, 1, 4}, 5}};
  Lit minmax, others;
  for (int code = 0; code < n.l["f_op"].size; ++code) {
    bool listed = false;
    for (const MinMax& o : ops) listed |= code == static_cast<int>(o.op) + 1;
    (listed ? minmax : others).push_back(n.dim("f_op", code));
  }
  m.rule({others}, {n.dim("pka", 0)});
  m.rule({minmax, {n.dim("nl", kLanes)}}, {n.dim("pka", 0)});
  for (const MinMax& o : ops)
    for (int l = 0; l < kLanes; ++l) {
      const std::string f = o.field + std::to_string(l);
      Lit pick[3];  // the classes that give pka 0, 1, 2
      for (int r = 0; r < o.classes; ++r) {
        const bool a = std::find(o.take_a.begin(), o.take_a.end(), r) != o.take_a.end();
        pick[a ? 0 : r == o.nan ? 2 : 1].push_back(n.dim(f, r));
      }
      const Lit op = {n.dim("f_op", static_cast<int>(o.op) + 1)}, lane = {n.dim("nl", l)};
      for (int k = 0; k < 3; ++k)
        if (!pick[k].empty()) m.rule({op, lane, pick[k]}, {n.dim("pka", k)});
    }
}

// L9: oan, whether lane nl's operand a is a NaN (neg.f32 and abs.f32 give the canonical
// NaN then): f32_nan_weight's threshold rule over oa's nibbles.
void operand_nan(Net& n, Mlp& m) {
  m.rule({{n.one()}}, {n.dim("oan", 1)});
  std::vector<Term> terms;
  for (int g = 0; g < 8; ++g) {
    Term t;
    for (int v = 0; v < 16; ++v) {
      int w = 0;
      for (int b = 0; b < 4; ++b) w += f32_nan_weight(4 * g + b, (v >> b & 1) != 0);
      t.dims.push_back(n.digit("oa", g, v));
      t.weight.push_back(w);
    }
    terms.push_back(t);
  }
  m.threshold(terms, 1, {}, {{n.dim("oan", 1), -1}, {n.dim("oan", 0), 1}});
}

}  // namespace

void build_select(Net& n) {
  Mlp nan(n, kMulLayer + 1), first(n, kAluLayer), second(n, kAluLayer + 1), third(n, kAluLayer + 2);
  operand_nan(n, nan);
  logic_bits(n, first);
  shift_amount(n, first);
  logic_nibbles(n, second);
  pick_rules(n, third);
  shift_bits(n, third);
}

}  // namespace qgpu::lift
