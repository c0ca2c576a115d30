// The execute stage for lane nl (docs/design.md §3, "operand select and ALU"), built from
// threshold rules (Mlp::threshold) on nibble values, so a word compare or a nibble sum costs
// a few units per nibble instead of a table:
//   L6 MLP (the lane ops, the last readers of every lane's register reads): une, per
//      effective lane j, port p and nibble g, whether lane j's operand p differs from lane
//      nl's there (its register read, %tid or %laneid against oa, ob, oc; immediates and
//      the other specials are the same for every lane);
//   L7 MLP: uni, whether every effective lane reads lane nl's operands (uniform_operands);
//   L11 MLP: the adder's first half: per nibble the sum x + y (+ 1 at nibble 0 for sub) mod 16
//      (as) and its class: kill, propagate (15) or generate (>= 16) (acl), for add
//      (oa + ob), sub (oa + ~ob + 1), addresses (oa + imm: ld, st, atomics) and neg, abs
//      (~oa + 1);
//   L12 MLP: car, the carry into nibbles 1..7 (carry lookahead over the classes: rules);
//   L13 MLP: sum = as + car nibble by nibble; etag, the tag of the value record: every
//      effective lane right after `sched` when the operands are uniform and the op is not
//      an atomic, else lane nl.
#include <algorithm>
#include <functional>
#include <string>

#include "gpu/isa.h"
#include "lift/machine_model.h"
#include "lift/stages.h"

namespace qgpu::lift {
namespace {

using Lit = Mlp::Literal;
using Term = Mlp::Term;
using Out = Mlp::Out;

// Nibble g of a word field as a term: sign * its value (sign -1: minus the value), or
// 15 - value (complement).
Term nibble(Net& n, const std::string& field, int g, int sign = 1, bool complement = false) {
  Term t;
  for (int v = 0; v < 16; ++v) {
    t.dims.push_back(n.digit(field, g, v));
    t.weight.push_back(sign * (complement ? 15 - v : v));
  }
  return t;
}

Term small(Net& n, const std::string& field, int sign) {
  Term t;
  for (int v = 0; v < n.l[field].size; ++v) {
    t.dims.push_back(n.dim(field, v));
    t.weight.push_back(sign * v);
  }
  return t;
}

int une(Net& n, int lane, int port, int g, bool differs) { return n.digit("une", (lane * 3 + port) * 8 + g, differs ? 1 : 0); }

// L6: une. Every (lane, port, nibble) starts equal; a threshold rule for "lane's value -
// nl's >= 1" and one for "<= -1" move it to differs, vetoed unless the lane is effective, nl
// is a lane and the operand field is of the rule's source.
void uniform_rules(Net& n, Mlp& m) {
  std::vector<int> all_eq;
  for (int lane = 0; lane < kLanes; ++lane)
    for (int p = 0; p < 3; ++p)
      for (int g = 0; g < 8; ++g) all_eq.push_back(une(n, lane, p, g, false));
  m.rule({{n.one()}}, all_eq);
  const char* fields[3] = {"f_a", "f_b", "f_c"};
  const char* reads[3] = {"ra", "rb", "rc"};
  const char* outs[3] = {"oa", "ob", "oc"};
  for (int lane = 0; lane < kLanes; ++lane)
    for (int p = 0; p < 3; ++p) {
      const std::string s = std::to_string(lane);
      const std::vector<int> base_veto = {n.dim("eff" + s, 1), n.dim("nl", kLanes)};
      // The field is one of `codes`: veto every other code.
      auto only = [&](int lo, int hi) {
        std::vector<int> v = base_veto;
        for (int c = 0; c < kFieldCodes; ++c)
          if (c < lo || c > hi) v.push_back(n.dim(fields[p], c));
        return v;
      };
      auto differs = [&](const std::vector<Term>& mine_minus_nl, int g, const std::vector<int>& veto, int offset) {
        // mine - nl's + offset >= 1, and <= -1 (negated: >= 1).
        std::vector<Term> neg = mine_minus_nl;
        for (Term& t : neg)
          for (int& w : t.weight) w = -w;
        const std::vector<Out> outs_ = {{une(n, lane, p, g, false), -1}, {une(n, lane, p, g, true), 1}};
        m.threshold(mine_minus_nl, 1 - offset, veto, outs_);
        m.threshold(neg, 1 + offset, veto, outs_);
      };
      for (int g = 0; g < 8; ++g) {  // registers and predicates (codes 1 .. kSpecialCode - 1)
        std::vector<Term> terms = nibble_bits(n, reads[p] + s, g, 1);
        terms.push_back(nibble(n, outs[p], g, -1));
        differs(terms, g, only(1, kSpecialCode - 1), 0);
      }
      const int tid_x = field_code(special(Special::kTidX)), tid_y = field_code(special(Special::kTidY));
      const int lane_id = field_code(special(Special::kLaneid));
      differs({small(n, "tidx" + s, 1), nibble(n, outs[p], 0, -1)}, 0, only(tid_x, tid_x), 0);
      differs({small(n, "tidy" + s, 1), nibble(n, outs[p], 0, -1)}, 0, only(tid_y, tid_y), 0);
      differs({nibble(n, outs[p], 0, -1)}, 0, only(lane_id, lane_id), lane);
    }
}

// L7: uni, 0 when no (lane, port, nibble) differs.
void uniform_and(Net& n, Mlp& m) {
  m.rule({{n.one()}}, {n.dim("uni", 0)});
  std::vector<Term> terms;
  for (int lane = 0; lane < kLanes; ++lane)
    for (int p = 0; p < 3; ++p)
      for (int g = 0; g < 8; ++g) terms.push_back({{une(n, lane, p, g, true)}, {1}});
  m.threshold(terms, 1, {}, {{n.dim("uni", 0), -1}, {n.dim("uni", 1), 1}});
}

int as(Net& n, int g, int v) { return n.digit("as", g, v % 16); }
int acl(Net& n, int g, int c) { return n.dim("acl", 3 * g + c); }

// L11: as and acl for one operand pair, whose nibble g is the terms digit(g): threshold rules
// "digit + carry in >= v" telescope the sum's nibble from 0 to v % 16 and the class from
// kill to propagate (v = 15) and generate (v = 16).
void adder_digits(Net& n, Mlp& m, std::string_view set, const std::function<std::vector<Term>(int)>& digit,
                  int carry_in) {
  const std::vector<int> ops = op_set_dims(n, set), veto = op_veto(n, set);
  for (int g = 0; g < 8; ++g) {
    m.rule({ops}, {as(n, g, 0), acl(n, g, kKill)});
    const std::vector<Term> terms = digit(g);
    int hi = g == 0 ? carry_in : 0;
    for (const Term& t : terms) hi += *std::max_element(t.weight.begin(), t.weight.end());
    for (int v = 1; v <= hi; ++v) {
      m.threshold(terms, v - (g == 0 ? carry_in : 0), veto, sum_step(n, "as", "acl", g, v));
    }
  }
}

// The same for x + y (or 0 + y when x is empty), y complemented (15 - value) for sub, neg.
void adder_digits(Net& n, Mlp& m, std::string_view set, const std::string& x, const std::string& y, bool complement,
                  int carry_in) {
  adder_digits(n, m, set, [&](int g) {
    std::vector<Term> terms = {nibble(n, y, g, 1, complement)};
    if (!x.empty()) terms.push_back(nibble(n, x, g));
    return terms;
  }, carry_in);
}

void adder_first_half(Net& n, Mlp& m) {
  adder_digits(n, m, "add", "oa", "ob", false, 0);
  adder_digits(n, m, "sub", "oa", "ob", true, 1);
  adder_digits(n, m, "addr", "oa", "f_imm", false, 0);
  adder_digits(n, m, "neg", "", "oa", true, 1);  // 0 + ~a + 1
  // The multiplier's digits (stage_mul.cpp): em_g + ed_{g-1}, at most 15 + 3.
  adder_digits(n, m, "mul", [&](int g) {
    std::vector<Term> terms = {value_term(n, "em", 16 * g, 16)};
    if (g > 0) terms.push_back(value_term(n, "ed", 4 * (g - 1), 4));
    return terms;
  }, 0);
  std::vector<int> zero;
  for (int g = 0; g < 8; ++g) zero.insert(zero.end(), {as(n, g, 0), acl(n, g, kKill)});
  // Every other op: the codes in none of the adder's op sets.
  std::vector<int> rest = n.dims("f_op", 0, n.l["f_op"].size);
  for (const char* set : {"add", "sub", "addr", "neg", "mul"})
    for (int d : op_set_dims(n, set)) rest.erase(std::find(rest.begin(), rest.end(), d));
  for (int d : op_dims(n, {Op::kAddFSig, Op::kAddFRnd, Op::kCvtSF, Op::kCvtUF})) rest.erase(std::find(rest.begin(), rest.end(), d));  // stage_float.cpp
  m.rule({rest}, zero);
}

// L12: car (nibble g = 1..7 at 2 (g - 1): 0 no, 1 yes) from acl (the carry in of sub is
// in nibble 0's sum).
void carry_rules(Net& n, Mlp& m) { carries(n, m, "acl", "car", 8); }

// L13: sum nibble g = as_g + carry mod 16.
void adder_second_half(Net& n, Mlp& m) {
  for (int v = 0; v < 16; ++v) m.rule({{as(n, 0, v)}}, {n.dim("sum", v)});
  for (int g = 1; g < 8; ++g) {
    m.rule({{n.one()}}, {n.digit("sum", g, 0)});
    Term carry{{n.dim("car", 2 * (g - 1) + 1)}, {1}};
    Term digit;
    for (int v = 0; v < 16; ++v) {
      digit.dims.push_back(as(n, g, v));
      digit.weight.push_back(v);
    }
    for (int v = 1; v <= 16; ++v)
      m.threshold({digit, carry}, v, {}, {{n.digit("sum", g, (v - 1) % 16), -1}, {n.digit("sum", g, v % 16), 1}});
  }
}

// L13: etag, lane in at 2 l, out at 2 l + 1.
void tag_rules(Net& n, Mlp& m) {
  const Lit sched = {n.fam(Tok::kSched)}, other = n.families({Tok::kSched}, true);
  const std::vector<int> atomic = op_dims(n, {Op::kAtomAdd, Op::kAtomMinS, Op::kAtomMinU, Op::kAtomMaxS, Op::kAtomMaxU,
                                              Op::kAtomExch, Op::kAtomCas});
  const std::vector<int> not_atomic = op_dims(n, {Op::kAtomAdd, Op::kAtomMinS, Op::kAtomMinU, Op::kAtomMaxS, Op::kAtomMaxU,
                                                  Op::kAtomExch, Op::kAtomCas}, true);
  for (int l = 0; l < kLanes; ++l) {
    const int in = n.dim("etag", 2 * l), out = n.dim("etag", 2 * l + 1);
    const std::string s = std::to_string(l);
    Lit not_l;
    for (int k = 0; k <= kLanes; ++k)
      if (k != l) not_l.push_back(n.dim("nl", k));
    m.rule({sched, {n.dim("uni", 0)}, not_atomic, {n.dim("eff" + s, 0)}}, {in});
    m.rule({sched, {n.dim("uni", 0)}, not_atomic, {n.dim("eff" + s, 1)}}, {out});
    for (const std::vector<Lit>& by_lane : {std::vector<Lit>{sched, {n.dim("uni", 1)}}, std::vector<Lit>{sched, {n.dim("uni", 0)}, atomic},
                                            std::vector<Lit>{other}}) {
      std::vector<Lit> yes = by_lane, no = by_lane;
      yes.push_back({n.dim("nl", l)});
      no.push_back(not_l);
      m.rule(yes, {in});
      m.rule(no, {out});
    }
  }
}

}  // namespace

std::vector<Out> sum_step(Net& n, const char* sum, const char* cls, int g, int v) {
  std::vector<Out> outs = {{n.digit(sum, g, (v - 1) % 16), -1}, {n.digit(sum, g, v % 16), 1}};
  if (v == 15) outs.insert(outs.end(), {{n.dim(cls, 3 * g + kKill), -1}, {n.dim(cls, 3 * g + kPropagate), 1}});
  if (v == 16) outs.insert(outs.end(), {{n.dim(cls, 3 * g + kPropagate), -1}, {n.dim(cls, 3 * g + kGenerate), 1}});
  return outs;
}

// Carries into nibbles 1..nibbles-1 (0 no, 1 yes at 2 (g - 1)): the nearest nibble below
// that does not propagate decides.
void carries(Net& n, Mlp& m, const char* cls, const char* car, int nibbles) {
  auto c = [&](int g, int k) { return n.dim(cls, 3 * g + k); };
  for (int g = 1; g < nibbles; ++g) {
    const int no = n.dim(car, 2 * (g - 1)), yes = n.dim(car, 2 * (g - 1) + 1);
    for (int i = g - 1; i >= -1; --i) {
      std::vector<Lit> lits;
      for (int k = i + 1; k < g; ++k) lits.push_back({c(k, kPropagate)});
      if (i < 0) {
        m.rule(lits, {no});
        continue;
      }
      std::vector<Lit> gen = lits, kill = lits;
      gen.push_back({c(i, kGenerate)});
      kill.push_back({c(i, kKill)});
      m.rule(gen, {yes});
      m.rule(kill, {no});
    }
  }
}

void build_alu(Net& n) {
  Mlp lanes(n, kLaneOpsLayer);
  uniform_rules(n, lanes);
  Mlp all(n, kLaneOpsLayer + 1);
  uniform_and(n, all);
  Mlp first(n, kAluLayer);
  adder_first_half(n, first);
  Mlp second(n, kAluLayer + 1);
  carry_rules(n, second);
  Mlp third(n, kAluLayer + 2);
  adder_second_half(n, third);
  tag_rules(n, third);
}

}  // namespace qgpu::lift
