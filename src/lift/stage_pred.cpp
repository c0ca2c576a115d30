// The predicate ops for all four lanes at once (docs/design.md §3): a `pred` record holds
// every effective lane's result, so unlike the value ALU (lane nl only) the compares run
// per lane. A lane's operand is, by its field's class, its register read (ra{l}, rb{l}),
// lane nl's operand word (oa, ob: immediates and the specials every lane of the warp
// shares; nl is the step's first effective lane), its %tid (tidx{l}, tidy{l}) or its lane
// number; a step's veto dims pick the class pair, so the difference of two operands'
// nibbles is linear in the residual and each compare is a pair of steps.
//   L7 MLP: cmpn{l}, per nibble lt / eq / gt (unsigned), and cms{l} for the top nibble
//      signed; pl{l}, the predicate logic result (and, or, xor, not, mov on 0/1 words);
//   L8 MLP: cu{l} and cs{l}, lane l's a against b, unsigned and signed: the highest
//      nibble that differs decides;
//   L13 MLP: pb{l}, the bit the `pred` record carries for lane l: effective and true.
#include <algorithm>
#include <string>

#include "gpu/isa.h"
#include "lift/machine_model.h"
#include "lift/stages.h"

namespace qgpu::lift {
namespace {

using Lit = Mlp::Literal;
using Term = Mlp::Term;
using Out = Mlp::Out;

constexpr int kLt = 0, kEq = 1, kGt = 2;

int code_of(Special s) { return 20 + static_cast<int>(s); }

// Where a lane's operand comes from, for nibble g.
enum class Source { kRegister, kShared, kTidX, kTidY, kLane };

// The field codes of a source class (at nibble g > 0 the per-lane specials are 0: one
// class "kTidX" stands for all three there, contributing nothing).
bool in_class(Source c, int code, int g) {
  const bool per_lane = code == code_of(Special::kTidX) || code == code_of(Special::kTidY) || code == code_of(Special::kLaneid);
  switch (c) {
    case Source::kRegister: return code >= 1 && code <= 19;
    case Source::kShared: return !(code >= 1 && code <= 19) && !per_lane;
    case Source::kTidX: return g > 0 ? per_lane : code == code_of(Special::kTidX);
    case Source::kTidY: return code == code_of(Special::kTidY);
    case Source::kLane: return code == code_of(Special::kLaneid);
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
  for (int code = 0; code < 32; ++code)
    if (!in_class(c, code, g)) v.push_back(n.dim(port == 0 ? "f_a" : "f_b", code));
  return v;
}

// L7: cmpn{l} (3 g + lt/eq/gt) and cms{l}: a base rule says equal; for every pair of
// source classes, the steps "a - b >= 1" and "b - a >= 1" move it to gt or lt.
void compare_steps(Net& n, Mlp& m, int lane) {
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
          m.step(terms, 1 - a.constant - b.constant, veto, {{at(kEq), -1}, {at(sign == 1 ? kGt : kLt), 1}});
        }
      }
  }
}

// L7: pl{l} (0 true, 1 false) for the predicate logic ops, whose operands are the words
// 0 and 1 (predicates, or a 0/1 immediate for mov.pred).
void logic_steps(Net& n, Mlp& m, int lane) {
  const std::string l = std::to_string(lane);
  const int yes = n.dim("pl" + l, 0), no = n.dim("pl" + l, 1);
  m.rule({{n.one()}}, {no});
  const Source both[2] = {Source::kRegister, Source::kShared};
  // `ports` operands summed >= theta moves no -> yes (sign -1: yes -> no).
  auto step = [&](Op op, int ports, int theta, int sign, int flip) {
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
        m.step(terms, theta, veto, {{no, -sign}, {yes, sign}});
      }
  };
  step(Op::kAndPred, 2, 2, 1, 1);
  step(Op::kOrPred, 2, 1, 1, 1);
  step(Op::kXorPred, 2, 1, 1, 1);
  step(Op::kXorPred, 2, 2, -1, 1);
  step(Op::kMovPred, 1, 1, 1, 1);
  step(Op::kNotPred, 1, 0, 1, -1);  // -a >= 0
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
  Lit logic;
  for (Op o : {Op::kAndPred, Op::kOrPred, Op::kXorPred, Op::kNotPred, Op::kMovPred}) logic.push_back(n.dim("f_op", static_cast<int>(o) + 1));
  m.rule({eff, logic, {n.dim("pl" + l, 0)}}, {set});
  m.rule({eff, logic, {n.dim("pl" + l, 1)}}, {clear});
}

}  // namespace

void build_predicates(Net& n) {
  Mlp first(n, kLaneOpsLayer + 1), second(n, kMulLayer), third(n, kAluLayer + 2);
  for (int lane = 0; lane < kLanes; ++lane) {
    compare_steps(n, first, lane);
    logic_steps(n, first, lane);
    order_rules(n, second, lane);
    bit_rules(n, third, lane);
  }
}

}  // namespace qgpu::lift
