// The predicate ops for all four lanes at once (docs/design.md §3): a `pred` record holds
// every effective lane's result, so unlike the value ALU (lane nl only) the compares run
// per lane. A lane's operand is, by its field's class, its register read (ra{l}, rb{l}),
// lane nl's operand word (oa, ob: immediates and the specials every lane of the warp
// shares; nl is the step's first effective lane), its %tid (tidx{l}, tidy{l}) or its lane
// number; a threshold rule's veto dims pick the class pair, so the difference of two operands'
// nibbles is linear in the residual and each compare is a pair of threshold rules.
//   L7 MLP: cmpn{l}, per nibble lt / eq / gt (unsigned), and cms{l} for the top nibble
//      signed; pl{l}, the predicate logic result (and, or, xor, not, mov on 0/1 words);
//   L8 MLP: cu{l} and cs{l}, lane l's a against b, unsigned and signed: the highest
//      nibble that differs decides;
//   L13 MLP: pb{l}, the bit the `pred` record carries for lane l: effective and true.
// The binary32 compares reuse the signed order cs{l} (docs/isa.md, "Floating point"): two
// floats that are not NaN and not both +-0 are ordered as their bits are as signed words,
// reversed when both are negative. So per lane:
//   L6 MLP: fna{l}, fnb{l} (a, b is a NaN: its exponent bits all on, a mantissa bit on),
//      fbz{l} (a and b are both +-0: no bit below the sign on), fbn{l} (both sign bits on),
//      a threshold rule each over the operand's bits, by source class as the compares';
//   L9 MLP: fcf{l}, the IEEE order (lt, eq, gt, unordered) for setp.*.f32, and fmo{l},
//      min / max's (-0 below +0; which operands are NaN) for min.f32, max.f32 (stage_select.cpp).
#include <algorithm>
#include <functional>
#include <string>

#include "gpu/alu.h"
#include "gpu/isa.h"
#include "lift/machine_model.h"
#include "lift/stages.h"

namespace qgpu::lift {
namespace {

using Lit = Mlp::Literal;
using Term = Mlp::Term;
using Out = Mlp::Out;

// Where a lane's operand comes from, for nibble g.
enum class Source { kRegister, kShared, kTidX, kTidY, kLane };

// The field codes of a source class (at nibble g > 0 the per-lane specials are 0: one
// class "kTidX" stands for all three there, contributing nothing).
bool in_class(Source c, int code, int g) {
  auto is = [code](Special s) { return code == field_code(special(s)); };
  const bool per_lane = is(Special::kTidX) || is(Special::kTidY) || is(Special::kLaneid);
  switch (c) {
    case Source::kRegister: return code >= 1 && code < kSpecialCode;
    case Source::kShared: return !(code >= 1 && code < kSpecialCode) && !per_lane;
    case Source::kTidX: return g > 0 ? per_lane : is(Special::kTidX);
    case Source::kTidY: return is(Special::kTidY);
    case Source::kLane: return is(Special::kLaneid);
  }
  return false;
}

std::vector<Source> classes(int g) {
  if (g > 0) return {Source::kRegister, Source::kShared, Source::kTidX};
  return {Source::kRegister, Source::kShared, Source::kTidX, Source::kTidY, Source::kLane};
}

Term weighted(Net& n, const std::string& field, int first, int count, int sign, bool top_signed) {
  Term t;
  for (int v = 0; v < count; ++v) {
    t.dims.push_back(n.dim(field, first + v));
    t.weight.push_back(sign * (top_signed && v >= 8 ? v - 16 : v));
  }
  return t;
}

// Lane l's operand nibble g from class c, times sign: terms, and a constant (laneid).
struct Operand {
  std::vector<Term> terms;
  int constant = 0;
};
Operand operand(Net& n, int lane, int port, int g, Source c, int sign, bool top_signed) {
  const std::string l = std::to_string(lane);
  switch (c) {
    case Source::kRegister: return {nibble_bits(n, (port == 0 ? "ra" : "rb") + l, g, sign, top_signed)};
    case Source::kShared: return {{weighted(n, port == 0 ? "oa" : "ob", 16 * g, 16, sign, top_signed)}};
    case Source::kTidX: return g > 0 ? Operand{} : Operand{{weighted(n, "tidx" + l, 0, 16, sign, false)}};
    case Source::kTidY: return {{weighted(n, "tidy" + l, 0, 16, sign, false)}};
    case Source::kLane: return {{}, sign * lane};
  }
  return {};
}

std::vector<int> veto_unless(Net& n, int port, Source c, int g) {
  std::vector<int> v;
  for (int code = 0; code < kFieldCodes; ++code)
    if (!in_class(c, code, g)) v.push_back(n.dim(port == 0 ? "f_a" : "f_b", code));
  return v;
}

// L7: cmpn{l} (3 g + lt/eq/gt) and cms{l}: a base rule says equal; for every pair of
// source classes, the threshold rules "a - b >= 1" and "b - a >= 1" move it to gt or lt.
void compare_thresholds(Net& n, Mlp& m, int lane) {
  const std::string l = std::to_string(lane);
  std::vector<int> eq;
  for (int g = 0; g < 8; ++g) eq.push_back(n.dim("cmpn" + l, 3 * g + kEq));
  eq.push_back(n.dim("cms" + l, kEq));
  m.rule({{n.one()}}, eq);
  for (int g = 0; g <= 8; ++g) {  // g = 8: the top nibble, signed
    const int nib = g == 8 ? 7 : g;
    const bool top_signed = g == 8;
    auto at = [&](int r) { return g == 8 ? n.dim("cms" + l, r) : n.dim("cmpn" + l, 3 * g + r); };
    for (Source ca : classes(nib))
      for (Source cb : classes(nib)) {
        std::vector<int> veto = veto_unless(n, 0, ca, nib);
        for (int d : veto_unless(n, 1, cb, nib)) veto.push_back(d);
        for (int sign : {1, -1}) {  // a - b >= 1 (gt), then b - a >= 1 (lt)
          Operand a = operand(n, lane, 0, nib, ca, sign, top_signed), b = operand(n, lane, 1, nib, cb, -sign, top_signed);
          std::vector<Term> terms = a.terms;
          terms.insert(terms.end(), b.terms.begin(), b.terms.end());
          if (terms.empty() && a.constant + b.constant < 1) continue;  // never fires
          m.threshold(terms, 1 - a.constant - b.constant, veto, {{at(kEq), -1}, {at(sign == 1 ? kGt : kLt), 1}});
        }
      }
  }
}

// L7: pl{l} (0 true, 1 false) for the predicate logic ops, whose operands are the words
// 0 and 1 (predicates, or a 0/1 immediate for mov.pred).
void logic_thresholds(Net& n, Mlp& m, int lane) {
  const std::string l = std::to_string(lane);
  const int yes = n.dim("pl" + l, 0), no = n.dim("pl" + l, 1);
  m.rule({{n.one()}}, {no});
  const Source both[2] = {Source::kRegister, Source::kShared};
  // `ports` operands summed >= theta moves no -> yes (sign -1: yes -> no).
  auto threshold = [&](Op op, int ports, int theta, int sign, int flip) {
    for (Source ca : both)
      for (Source cb : both) {
        if (ports == 1 && cb != Source::kRegister) continue;
        std::vector<int> veto = op_dims(n, {op}, true);
        for (int d : veto_unless(n, 0, ca, 0)) veto.push_back(d);
        std::vector<Term> terms = operand(n, lane, 0, 0, ca, flip, false).terms;
        if (ports == 2) {
          for (int d : veto_unless(n, 1, cb, 0)) veto.push_back(d);
          for (const Term& t : operand(n, lane, 1, 0, cb, flip, false).terms) terms.push_back(t);
        }
        m.threshold(terms, theta, veto, {{no, -sign}, {yes, sign}});
      }
  };
  threshold(Op::kAndPred, 2, 2, 1, 1);
  threshold(Op::kOrPred, 2, 1, 1, 1);
  threshold(Op::kXorPred, 2, 1, 1, 1);
  threshold(Op::kXorPred, 2, 2, -1, 1);
  threshold(Op::kMovPred, 1, 1, 1, 1);
  threshold(Op::kNotPred, 1, 0, 1, -1);  // -a >= 0
}

// Lane l's operand (port 0 a, 1 b) from class c as threshold terms, bit i weighing w(i, on) as
// it is on or off: the register read's rails, the shared word's nibbles, %tid's value, or
// (laneid) a constant.
Operand weighted_bits(Net& n, int lane, int port, Source c, const std::function<int(int, bool)>& w) {
  const std::string l = std::to_string(lane);
  auto nibble_weight = [&](int g, int v) {
    int sum = 0;
    for (int b = 0; b < 4; ++b) sum += w(4 * g + b, (v >> b & 1) != 0);
    return sum;
  };
  Operand o;
  switch (c) {
    case Source::kRegister:
      for (int i = 0; i < 32; ++i) {
        const std::string f = (port == 0 ? "ra" : "rb") + l;
        if (w(i, true) != 0 || w(i, false) != 0)
          o.terms.push_back({{n.dim(f, bit_dim(i, true)), n.dim(f, bit_dim(i, false))}, {w(i, true), w(i, false)}});
      }
      break;
    case Source::kShared:
      for (int g = 0; g < 8; ++g) {
        Term t;
        for (int v = 0; v < 16; ++v) {
          t.dims.push_back(n.dim(port == 0 ? "oa" : "ob", 16 * g + v));
          t.weight.push_back(nibble_weight(g, v));
        }
        o.terms.push_back(t);
      }
      break;
    case Source::kTidX:
    case Source::kTidY: {  // below 16: bits 4..31 are off
      Term t;
      for (int v = 0; v < 16; ++v) {
        t.dims.push_back(n.dim((c == Source::kTidX ? "tidx" : "tidy") + l, v));
        t.weight.push_back(nibble_weight(0, v));
      }
      o.terms.push_back(t);
      for (int i = 4; i < 32; ++i) o.constant += w(i, false);
      break;
    }
    case Source::kLane:
      for (int i = 0; i < 32; ++i) o.constant += w(i, (lane >> i & 1) != 0);
      break;
  }
  return o;
}

// L6: fna{l}, fnb{l}, fbz{l}, fbn{l} (0 yes, 1 no): a base rule says no; a threshold rule per
// source class (pair) moves it to yes. The specials are small and never NaN or negative.
void float_flags(Net& n, Mlp& m, int lane) {
  const std::string l = std::to_string(lane);
  auto flag = [&](const char* f) { return std::vector<Out>{{n.dim(f + l, 1), -1}, {n.dim(f + l, 0), 1}}; };
  m.rule({{n.one()}}, {n.dim("fna" + l, 1), n.dim("fnb" + l, 1), n.dim("fbz" + l, 1), n.dim("fbn" + l, 1)});
  const Source words[] = {Source::kRegister, Source::kShared, Source::kTidX, Source::kTidY, Source::kLane};
  for (int port = 0; port < 2; ++port)
    for (Source c : {Source::kRegister, Source::kShared})
      m.threshold(weighted_bits(n, lane, port, c, f32_nan_weight).terms, 1, veto_unless(n, port, c, 0), flag(port == 0 ? "fna" : "fnb"));
  for (Source ca : words)
    for (Source cb : words) {
      std::vector<int> veto = veto_unless(n, 0, ca, 0);
      for (int d : veto_unless(n, 1, cb, 0)) veto.push_back(d);
      // Both +-0: minus the count of bits 0..30 on is >= 0.
      auto magnitude = [](int bit, bool on) { return on && bit != 31 ? -1 : 0; };
      Operand a = weighted_bits(n, lane, 0, ca, magnitude), b = weighted_bits(n, lane, 1, cb, magnitude);
      std::vector<Term> terms = a.terms;
      terms.insert(terms.end(), b.terms.begin(), b.terms.end());
      if (!terms.empty() || a.constant + b.constant >= 0) m.threshold(terms, -a.constant - b.constant, veto, flag("fbz"));
      if ((ca == Source::kRegister || ca == Source::kShared) && (cb == Source::kRegister || cb == Source::kShared)) {
        auto sign = [](int bit, bool on) { return on && bit == 31 ? 1 : 0; };
        std::vector<Term> both = weighted_bits(n, lane, 0, ca, sign).terms;
        for (const Term& t : weighted_bits(n, lane, 1, cb, sign).terms) both.push_back(t);
        m.threshold(both, 2, veto, flag("fbn"));
      }
    }
}

// L9: fcf{l} (0 lt, 1 eq, 2 gt, 3 unordered) and fmo{l} (0 lt, 1 eq, 2 gt, 3 only a is a
// NaN, 4 only b, 5 both) from the flags and the signed order cs{l} (reversed when both
// are negative).
void float_order(Net& n, Mlp& m, int lane) {
  const std::string l = std::to_string(lane);
  auto yes = [&](const char* f) { return Lit{n.dim(f + l, 0)}; };
  auto no = [&](const char* f) { return Lit{n.dim(f + l, 1)}; };
  auto cf = [&](int r) { return n.dim("fcf" + l, r); };
  auto mo = [&](int r) { return n.dim("fmo" + l, r); };
  m.rule({yes("fna")}, {cf(3)});
  m.rule({no("fna"), yes("fnb")}, {cf(3)});
  m.rule({no("fna"), no("fnb"), yes("fbz")}, {cf(kEq)});
  m.rule({yes("fna"), yes("fnb")}, {mo(5)});
  m.rule({yes("fna"), no("fnb")}, {mo(3)});
  m.rule({no("fna"), yes("fnb")}, {mo(4)});
  for (int r : {kLt, kEq, kGt}) {
    const Lit cs = {n.dim("cs" + l, r)};
    const int reversed = 2 - r;  // both negative: a larger magnitude is the smaller float
    m.rule({no("fna"), no("fnb"), no("fbz"), no("fbn"), cs}, {cf(r)});
    m.rule({no("fna"), no("fnb"), no("fbz"), yes("fbn"), cs}, {cf(reversed)});
    m.rule({no("fna"), no("fnb"), no("fbn"), cs}, {mo(r)});
    m.rule({no("fna"), no("fnb"), yes("fbn"), cs}, {mo(reversed)});
  }
}

// L8: cu{l}, cs{l}: the highest nibble that is not equal decides (cs: the top one signed).
void order_rules(Net& n, Mlp& m, int lane) {
  const std::string l = std::to_string(lane);
  for (bool is_signed : {false, true}) {
    const std::string out = (is_signed ? "cs" : "cu") + l;
    std::vector<Lit> equal_above;
    for (int g = 7; g >= 0; --g) {
      const bool top = g == 7 && is_signed;
      auto lit = [&](int r) { return Lit{top ? n.dim("cms" + l, r) : n.dim("cmpn" + l, 3 * g + r)}; };
      for (int r : {kLt, kGt}) {
        std::vector<Lit> lits = equal_above;
        lits.push_back(lit(r));
        m.rule(lits, {n.dim(out, r)});
      }
      equal_above.push_back(lit(kEq));
    }
    m.rule(equal_above, {n.dim(out, kEq)});
  }
}

// L13: pb{l} (0 set, 1 clear): the lane is effective and the op's result is true.
void bit_rules(Net& n, Mlp& m, int lane) {
  const std::string l = std::to_string(lane);
  const int set = n.dim("pb" + l, 0), clear = n.dim("pb" + l, 1);
  const Lit eff = {n.dim("eff" + l, 0)};
  m.rule({{n.dim("eff" + l, 1)}}, {clear});
  struct Cmp {
    Op op;
    bool is_signed;
    std::vector<int> when;  // the classes that make it true
  };
  const Cmp cmps[] = {{Op::kSetpEq, false, {kEq}},      {Op::kSetpNe, false, {kLt, kGt}}, {Op::kSetpLtS, true, {kLt}},
                      {Op::kSetpLeS, true, {kLt, kEq}}, {Op::kSetpGtS, true, {kGt}},      {Op::kSetpGeS, true, {kGt, kEq}},
                      {Op::kSetpLtU, false, {kLt}},     {Op::kSetpLeU, false, {kLt, kEq}}, {Op::kSetpGtU, false, {kGt}},
                      {Op::kSetpGeU, false, {kGt, kEq}}};
  Lit others;  // ops that are not compares or predicate logic
  for (int code = 0; code < n.l["f_op"].size; ++code) {
    bool pred = code >= 1 && code <= kNumOps && op_info(static_cast<Op>(code - 1)).effect == Effect::kPred;
    if (!pred) others.push_back(n.dim("f_op", code));
  }
  m.rule({eff, others}, {clear});
  for (const Cmp& c : cmps) {
    const Lit op = {n.dim("f_op", static_cast<int>(c.op) + 1)};
    const std::string field = (c.is_signed ? "cs" : "cu") + l;
    Lit yes, no;
    for (int r : {kLt, kEq, kGt})
      (std::find(c.when.begin(), c.when.end(), r) != c.when.end() ? yes : no).push_back(n.dim(field, r));
    m.rule({eff, op, yes}, {set});
    m.rule({eff, op, no}, {clear});
  }
  // setp.*.f32: true for the orders (fcf) the interpreter's compare is true for, on a
  // pair of each order (1 < 2, 1 = 1, 2 > 1, NaN against 1).
  const uint32_t pairs[4][2] = {{0x3f800000u, 0x40000000u}, {0x3f800000u, 0x3f800000u}, {0x40000000u, 0x3f800000u},
                                {0x7fc00000u, 0x3f800000u}};
  for (int r = 0; r < 4; ++r) {
    Lit when, unless;
    for (int code = static_cast<int>(Op::kAddF); code <= static_cast<int>(Op::kSetpGeuF); ++code) {
      const Op o = static_cast<Op>(code);
      if (op_info(o).effect != Effect::kPred) continue;
      (compare_f32(o, pairs[r][0], pairs[r][1]) ? when : unless).push_back(n.dim("f_op", code + 1));
    }
    const Lit order = {n.dim("fcf" + l, r)};
    if (!when.empty()) m.rule({eff, when, order}, {set});
    if (!unless.empty()) m.rule({eff, unless, order}, {clear});
  }
  Lit logic;
  for (Op o : {Op::kAndPred, Op::kOrPred, Op::kXorPred, Op::kNotPred, Op::kMovPred}) logic.push_back(n.dim("f_op", static_cast<int>(o) + 1));
  m.rule({eff, logic, {n.dim("pl" + l, 0)}}, {set});
  m.rule({eff, logic, {n.dim("pl" + l, 1)}}, {clear});
}

}  // namespace

int f32_nan_weight(int bit, bool on) {
  if (bit == 31) return 0;
  if (bit >= 23) return on ? 0 : -24;
  return on ? 1 : 0;
}

void build_predicates(Net& n) {
  Mlp flags(n, kLaneOpsLayer), first(n, kLaneOpsLayer + 1), second(n, kMulLayer), floats(n, kMulLayer + 1),
      third(n, kAluLayer + 2);
  for (int lane = 0; lane < kLanes; ++lane) {
    float_flags(n, flags, lane);
    compare_thresholds(n, first, lane);
    logic_thresholds(n, first, lane);
    order_rules(n, second, lane);
    float_order(n, floats, lane);
    bit_rules(n, third, lane);
  }
}

}  // namespace qgpu::lift
