// The atomic's update (docs/design.md §3, "atomics"): at the position x that consumes
// lane j's old word (a one-token `v`, or the `t` of a 4-byte value), memory word
// (lane j's base + imm) / 4 gets op(old, lane j's b, lane j's c), while the same token's read (the
// `ld` path, stage_emit.cpp) already fetches the next lane's old word. At x nl is the next
// lane, so lane j's operands come from L2's per-lane reads: the register allocator makes
// an atomic's d early-clobber (regalloc.cpp), so the write of d = old at x leaves lane
// j's a and b as they were, and j is the consumed value's tag (atomic values are never
// broadcast).
//   L6 MLP (the lane ops): jc, lane j's operand c (L2's read `rc{j}`) for atom.cas, the
//      word 0 elsewhere; xat, whether the token consumes an atomic's old word (0 yes, 1 no); jb, lane
//      j's operand b (L2's read `rb{j}`), ja, nibbles 0..2 of its base (`ra{j}`), the
//      word 0 when xat is 1;
//   L7 MLP: the update's adder, first half: per nibble old + b mod 16 and its class
//      (xs, xcl) for atom.add; the address's: ja + imm over nibbles 0..2 (ys, ycl); old
//      against b per nibble (xc, xcs: the top one signed) for min / max and cas; mw
//      (stage_operands.cpp) is b at an atom.exch's x, the word 0 at the others';
//   L11 MLP: the carries into nibbles 1..7 of the update (xcar) and 1..2 of the address
//      (ycar); old against b, unsigned and signed (xcu, xcg: the highest differing nibble);
//   L12 MLP: mw telescoped from 0 to old + b at an atom.add's x; xw, the word index
//      address / 4 as hi (/ 8) and lo (% 8), or none: L14's memory key (stage_image.cpp);
//      xpk, whether min / max and cas keep old or take b or c;
//   L13 MLP: mw telescoped from 0 to the kept word at min / max's and cas's x.
// Words are below 126 * 4 = 504, so the address's bits 0..8 (nibbles 0..2, carries run
// upward) decide it.
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

constexpr int kAddrNibbles = 3;
constexpr std::initializer_list<Op> kAtomics = {Op::kAtomAdd, Op::kAtomMinS, Op::kAtomMinU, Op::kAtomMaxS,
                                                Op::kAtomMaxU, Op::kAtomExch, Op::kAtomCas};

// L6: xat, jb, ja.
void select_rules(Net& n, Mlp& m) {
  const Lit vt = n.families({Tok::kSmall, Tok::kTail}), other = n.families({Tok::kSmall, Tok::kTail}, true);
  const Lit atomic = op_dims(n, kAtomics), not_atomic = op_dims(n, kAtomics, true);
  std::vector<int> none = {n.dim("xat", 1)};
  for (int g = 0; g < 8; ++g) none.push_back(n.digit("jb", g, 0));
  for (int g = 0; g < kAddrNibbles; ++g) none.push_back(n.digit("ja", g, 0));
  m.rule({other}, none);
  m.rule({vt, not_atomic}, none);
  m.rule({vt, atomic}, {n.dim("xat", 0)});
  for (int l = 0; l < kLanes; ++l) {
    const Lit lane = {n.dim("wb_tag", 2 * l)};
    const std::string s = std::to_string(l);
    auto rule = [&](const char* read, const char* out, int j) {  // the read's nibble j / 16 is j % 16
      std::vector<Lit> lits = {vt, atomic, lane};
      for (const Lit& b : nibble_is(n, read + s, j / 16, j % 16)) lits.push_back(b);
      m.rule(lits, {n.dim(out, j)});
    };
    for (int j = 0; j < 128; ++j) rule("rb", "jb", j);  // a word's rules in a row (stage_operands.cpp)
    for (int j = 0; j < 16 * kAddrNibbles; ++j) rule("ra", "ja", j);
  }
}

// L6: jc.
void select_c(Net& n, Mlp& m) {
  const Lit vt = n.families({Tok::kSmall, Tok::kTail}), other = n.families({Tok::kSmall, Tok::kTail}, true);
  const Lit cas = op_dims(n, {Op::kAtomCas}), not_cas = op_dims(n, {Op::kAtomCas}, true);
  std::vector<int> none;
  for (int g = 0; g < 8; ++g) none.push_back(n.digit("jc", g, 0));
  m.rule({other}, none);
  m.rule({vt, not_cas}, none);
  for (int l = 0; l < kLanes; ++l)
    for (int j = 0; j < 128; ++j) {
      std::vector<Lit> lits = {vt, cas, {n.dim("wb_tag", 2 * l)}};
      for (const Lit& b : nibble_is(n, "rc" + std::to_string(l), j / 16, j % 16)) lits.push_back(b);
      m.rule(lits, {n.dim("jc", j)});
    }
}

// Threshold rules "x_g + y_g >= v" telescoping sum nibble g from 0 to v % 16 and its class from
// kill to propagate (15) and generate (16); the base (0, kill) at every token.
void sum_digits(Net& n, Mlp& m, const char* sum, const char* cls, int nibbles, const std::string& x,
                const std::string& y, const std::vector<int>& veto) {
  for (int g = 0; g < nibbles; ++g) {
    auto s = [&](int v) { return n.digit(sum, g, v % 16); };
    auto c = [&](int k) { return n.dim(cls, 3 * g + k); };
    m.rule({{n.one()}}, {s(0), c(kKill)});
    for (int v = 1; v <= 30; ++v)
      m.threshold({value_term(n, x, 16 * g, 16), value_term(n, y, 16 * g, 16)}, v, veto, sum_step(n, sum, cls, g, v));
  }
}

// L12: mw from the word 0 (L7) to xs + xcar, nibble by nibble, at an atom.add's x.
void update_word(Net& n, Mlp& m) {
  const std::vector<int> veto = {n.dim("xat", 1), op_veto(n, "atom.add")[0]};
  for (int g = 0; g < 8; ++g) {
    std::vector<Term> terms = {value_term(n, "xs", 16 * g, 16)};
    if (g > 0) terms.push_back({{n.dim("xcar", 2 * (g - 1) + 1)}, {1}});
    for (int v = 1; v <= (g > 0 ? 16 : 15); ++v)
      m.threshold(terms, v, veto, {{n.digit("mw", g, (v - 1) % 16), -1}, {n.digit("mw", g, v % 16), 1}});
  }
}

// L12: xw = (ys + ycar) / 4 over nibbles 0..2: lo = ys_0 / 4 + 4 (n_1 & 1), hi = n_1 / 2 +
// 8 (n_2 & 1), where n_g = ys_g + carry mod 16; none (16, 8) when xat is 1.
void word_index(Net& n, Mlp& m) {
  const Lit yes = {n.dim("xat", 0)};
  m.rule({{n.dim("xat", 1)}}, {n.dim("xw", 16), n.dim("xw", 17 + 8)});
  auto ys = [&](int g, int v) { return n.digit("ys", g, (v % 16 + 16) % 16); };
  auto car = [&](int g, bool c) { return n.dim("ycar", 2 * (g - 1) + (c ? 1 : 0)); };
  // n_g = u as (ys_g = u, no carry) or (ys_g = u - 1, carry).
  auto parity = [&](int g, int p, bool c) {
    Lit l;
    for (int v = 0; v < 16; ++v)
      if (((v + (c ? 1 : 0)) & 1) == p) l.push_back(ys(g, v));
    return l;
  };
  for (int q = 0; q < 4; ++q)
    for (int p = 0; p < 2; ++p)
      for (bool c : {false, true}) {
        Lit low = {ys(0, 4 * q), ys(0, 4 * q + 1), ys(0, 4 * q + 2), ys(0, 4 * q + 3)};
        m.rule({yes, low, parity(1, p, c), {car(1, c)}}, {n.dim("xw", 17 + q + 4 * p)});
      }
  for (int u = 0; u < 16; ++u)
    for (bool c1 : {false, true})
      for (int r = 0; r < 2; ++r)
        for (bool c2 : {false, true})
          m.rule({yes, {ys(1, u - (c1 ? 1 : 0))}, {car(1, c1)}, parity(2, r, c2), {car(2, c2)}},
                 {n.dim("xw", u / 2 + 8 * r)});
}

// A nibble of a word field as a term weighted by sign * value, or for the top nibble of a
// signed compare by sign * (value - 16 when the sign bit is set).
Term signed_nibble(Net& n, const std::string& field, int g, int sign, bool twos) {
  return nibble_term(n, field, g, [&](int v) { return sign * (twos && v >= 8 ? v - 16 : v); });
}

// L7: old against b per nibble (xc: lt, eq, gt; xcs: the top nibble signed): eq at every
// token, a threshold rule "old - b >= 1" to gt and "b - old >= 1" to lt, vetoed unless
// min / max's x.
void compare_nibbles(Net& n, Mlp& m) {
  const std::vector<int> veto = {n.dim("xat", 1), op_veto(n, "atom.cmp")[0]};
  auto one = [&](int lt, int eq, int gt, int g, bool twos) {
    m.rule({{n.one()}}, {eq});
    m.threshold({signed_nibble(n, "wb_word", g, 1, twos), signed_nibble(n, "jb", g, -1, twos)}, 1, veto, {{eq, -1}, {gt, 1}});
    m.threshold({signed_nibble(n, "wb_word", g, -1, twos), signed_nibble(n, "jb", g, 1, twos)}, 1, veto, {{eq, -1}, {lt, 1}});
  };
  for (int g = 0; g < 8; ++g) one(n.dim("xc", 3 * g + kLt), n.dim("xc", 3 * g + kEq), n.dim("xc", 3 * g + kGt), g, false);
  one(n.dim("xcs", kLt), n.dim("xcs", kEq), n.dim("xcs", kGt), 7, true);
}

// L11: the highest nibble that differs decides (xcu unsigned, xcg signed: its top nibble
// from xcs); equal when none does.
void compare_words(Net& n, Mlp& m) {
  for (const char* out : {"xcu", "xcg"}) {
    const bool twos = std::string(out) == "xcg";
    auto c = [&](int g, int k) { return g == 7 && twos ? n.dim("xcs", k) : n.dim("xc", 3 * g + k); };
    std::vector<Lit> equal;
    for (int g = 7; g >= 0; --g) {
      for (int k : {kLt, kGt}) {
        std::vector<Lit> lits = equal;
        lits.push_back({c(g, k)});
        m.rule(lits, {n.dim(out, k)});
      }
      equal.push_back({c(g, kEq)});
    }
    m.rule(equal, {n.dim(out, kEq)});
  }
}

// L12: xpk, min / max keep old (0) or take b (1), cas takes c (2) when old equals b;
// old for every other op.
void atomic_pick_rules(Net& n, Mlp& m) {
  const int old = n.dim("xpk", 0), b = n.dim("xpk", 1);
  const Lit cas = op_dims(n, {Op::kAtomCas});
  m.rule({cas, {n.dim("xcu", kEq)}}, {n.dim("xpk", 2)});
  m.rule({cas, {n.dim("xcu", kLt), n.dim("xcu", kGt)}}, {old});
  auto by = [&](Op op, const char* cmp, std::initializer_list<int> keep) {
    const Lit o = op_dims(n, {op});
    Lit kept, taken;
    for (int k : {kLt, kEq, kGt}) (std::find(keep.begin(), keep.end(), k) != keep.end() ? kept : taken).push_back(n.dim(cmp, k));
    m.rule({o, kept}, {old});
    m.rule({o, taken}, {b});
  };
  by(Op::kAtomMinS, "xcg", {kLt, kEq});
  by(Op::kAtomMinU, "xcu", {kLt, kEq});
  by(Op::kAtomMaxS, "xcg", {kGt, kEq});
  by(Op::kAtomMaxU, "xcu", {kGt, kEq});
  m.rule({op_dims(n, {Op::kAtomMinS, Op::kAtomMinU, Op::kAtomMaxS, Op::kAtomMaxU, Op::kAtomCas}, true)}, {old});
}

// L13: mw from the word 0 (L7) to old, b or c, by threshold rules on the kept word's nibble
// values.
void keep_word(Net& n, Mlp& m) {
  const char* words[3] = {"wb_word", "jb", "jc"};
  for (int k = 0; k < 3; ++k) {
    std::vector<int> veto = {n.dim("xat", 1), op_veto(n, "atom.cmp")[0]};
    for (int other = 0; other < 3; ++other)
      if (other != k) veto.push_back(n.dim("xpk", other));
    for (int g = 0; g < 8; ++g)
      for (int v = 1; v < 16; ++v)
        m.threshold({value_term(n, words[k], 16 * g, 16)}, v, veto,
               {{n.digit("mw", g, v - 1), -1}, {n.digit("mw", g, v), 1}});
  }
}

}  // namespace

void build_atomics(Net& n) {
  Mlp select(n, kLaneOpsLayer);
  select_c(n, select);
  select_rules(n, select);
  Mlp first(n, kLaneOpsLayer + 1);
  sum_digits(n, first, "xs", "xcl", 8, "wb_word", "jb", {n.dim("xat", 1), op_veto(n, "atom.add")[0]});
  sum_digits(n, first, "ys", "ycl", kAddrNibbles, "ja", "f_imm", {n.dim("xat", 1)});
  compare_nibbles(n, first);
  Mlp second(n, kAluLayer);
  carries(n, second, "xcl", "xcar", 8);
  carries(n, second, "ycl", "ycar", kAddrNibbles);
  compare_words(n, second);
  Mlp third(n, kAluLayer + 1);
  update_word(n, third);
  word_index(n, third);
  atomic_pick_rules(n, third);
  Mlp fourth(n, kAluLayer + 2);
  keep_word(n, fourth);
}

}  // namespace qgpu::lift
