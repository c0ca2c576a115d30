// The float steps (docs/design.md §3, "Float steps"): binary32 a + b is
// add.f32.rnd(add.f32.sig(a, b), a, b), each one machine step whose word the adder
// (stage_alu.cpp) finishes from three addends fx1 + fx2 (or ~fx2) + fx3 + fcin this stage
// makes in the multiplier's layers, beside the multiplier:
//   add.f32.sig (oa = a, ob = b): x is the operand of larger magnitude, y the other.
//     L8 MLP: fdh, fdl, the differences of a's and b's exponent bits 27..30 and 23..26; fz,
//        whether each exponent is 0; fmc, |a| against |b| per nibble;
//     L9 MLP: fxb, whether x is b (none for other ops); fd, the alignment shift |E(a) -
//        E(b)| (E = the exponent, at least 1), 31 for 31 or more (none for other ops);
//     L10 MLP: fx1 = sig(x) << 6 | fxb << 31; fx2 = sig(y) << 6 shifted right by fd with
//        the sticky bit; fneg and fcin when the signs differ (the adder adds ~fx2 + 1).
//   add.f32.rnd (oa = s, the sig word; ob = a, oc = b): x is b when s's bit 31 is set.
//     L8 MLP: fk, the normalising shift min(leading zeros of s below bit 31, E(x)) (none
//        for other ops); fs, whether s is 0, E(x)'s exponent is 0, a or b is a NaN or an
//        infinity; fov, whether the rounded result reaches infinity;
//     L9 MLP: fx1 = the fraction of (s << fk) >> 7 and fx3 = (h - fk) << 23, h its hidden
//        bit (0 at an overflow);
//     L10 MLP: fx2 = exponent(x) << 23 (bit 23 also when it is 0; 0x7f800000 at an
//        overflow); fcin, the round-to-nearest-even increment;
//     L12 MLP: fcls, the result's class: the sum with either sign, NaN, an infinity, a zero.
//   cvt.s32.f32, cvt.u32.f32 (oa = a): L8 fce, a's exponent; L10 the significand shifted into
//     fx2 (fneg, fcin for a negative int), a saturated word into fx1, 0 for NaN.
// Every field holds a valid code for every op; fk, fd and fxb are "none" unless the op is
// theirs, so the rules keyed on them are silent elsewhere and fx1..fx3 stay 0.
#include <algorithm>
#include <functional>
#include <string>
#include <utility>

#include "gpu/alu.h"
#include "gpu/isa.h"
#include "lift/machine_model.h"
#include "lift/stages.h"

namespace qgpu::lift {
namespace {

using Lit = Mlp::Literal;
using Term = Mlp::Term;
using Out = Mlp::Out;

constexpr int kKNone = 31;  // fk's entry for other ops (its shifts are 0..30)
constexpr int kShifts = 32, kDNone = 32;  // fd: 0..31 (31: 31 or more), 32 none
constexpr int kXa = 0, kXb = 1, kXNone = 2;  // fxb
enum Flag { kZeroSum, kZeroExp, kNanA, kNanB, kInfA, kInfB, kFlags };  // fs, 0 yes 1 no
using Class = FloatClass;

// Appends nibble g of word field `field` weighing value v by w(v) (nibble_term) to terms,
// unless every weight is 0.
void add_term(Net& n, std::vector<Term>& terms, const std::string& field, int g, const std::function<int(int)>& w) {
  if (Term t = nibble_term(n, field, g, w); !t.dims.empty()) terms.push_back(std::move(t));
}

// The dims of nibble g of `field` whose value satisfies p.
Lit nibble_where(Net& n, const std::string& field, int g, const std::function<bool(int)>& p) {
  Lit lit;
  for (int v = 0; v < 16; ++v)
    if (p(v)) lit.push_back(n.digit(field, g, v));
  return lit;
}

// Terms weighing each bit in [lo, hi] of `field` that is on by w (per nibble, the sum).
void bits_term(Net& n, std::vector<Term>& terms, const std::string& field, int lo, int hi, int w) {
  for (int g = lo / 4; g <= hi / 4; ++g)
    add_term(n, terms, field, g, [&](int v) {
      int c = 0;
      for (int k = 0; k < 4; ++k) c += (4 * g + k >= lo && 4 * g + k <= hi && (v >> k & 1)) ? 1 : 0;
      return c * w;
    });
}

// Terms weighing w when any bit in [lo, hi] of `field` is on (per nibble).
void any_term(Net& n, std::vector<Term>& terms, const std::string& field, int lo, int hi, int w) {
  for (int g = lo / 4; g <= hi / 4; ++g)
    add_term(n, terms, field, g, [&](int v) {
      for (int k = 0; k < 4; ++k)
        if (4 * g + k >= lo && 4 * g + k <= hi && (v >> k & 1)) return w;
      return 0;
    });
}

// Terms counting the bits in [lo, hi] of `field` equal to `pattern`'s (each weighs 1).
int match_terms(Net& n, std::vector<Term>& terms, const std::string& field, int lo, int hi, uint32_t pattern) {
  for (int g = lo / 4; g <= hi / 4; ++g)
    add_term(n, terms, field, g, [&](int v) {
      int c = 0;
      for (int k = 0; k < 4; ++k) {
        const int i = 4 * g + k;
        c += (i >= lo && i <= hi && (v >> k & 1) == static_cast<int>(pattern >> i & 1)) ? 1 : 0;
      }
      return c;
    });
  return hi - lo + 1;
}

// E' of word field `field`: its exponent when below 32, else at least 32 (bits 28..30 weigh
// 32 together): "E' >= j" is "E >= j" for j <= 31, and E' <= 63 keeps a rule's range.
void clamped_exponent(Net& n, std::vector<Term>& terms, const std::string& field) {
  add_term(n, terms, field, 5, [](int v) { return v >> 3; });
  add_term(n, terms, field, 6, [](int v) { return 2 * v; });
  add_term(n, terms, field, 7, [](int v) { return (v & 7) != 0 ? 32 : 0; });
}

std::vector<int> join(std::vector<int> a, const std::vector<int>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

int flag(Net& n, Flag f, bool yes) { return n.digit("fs", f, yes ? 0 : 1); }

// fx3 holds bits 23..31 only (the others are 0): bit i's rails.
constexpr int kFx3Low = 23;
int fx3(Net& n, int i, bool on) { return n.digit("fx3", i - kFx3Low, on ? 1 : 0); }

// A dual-rail bit field's threshold output: off -> on.
std::vector<Out> turn_on(Net& n, const std::string& field, int i) {
  return {{n.digit(field, i, 1), -1}, {n.digit(field, i, 0), 1}};
}

void all_off(Net& n, Mlp& m, const std::string& field) {
  std::vector<int> off;
  for (int i = 0; i < 32; ++i) off.push_back(n.digit(field, i, 1));
  m.rule({{n.one()}}, off);
}

// ---- add.f32.sig

// L8: fdh, fdl (a's part - b's + 15), fz, fmc.
void sig_exponents(Net& n, Mlp& m) {
  struct Part {
    const char* field;
    int lo_nibble;  // its bits: bit 3 of this nibble (weight 1), bits 0..2 of the next (2, 4, 8)
  };
  for (Part p : {Part{"fdh", 6}, Part{"fdl", 5}}) {
    m.rule({{n.one()}}, {n.dim(p.field, 0)});
    for (int v = -14; v <= 15; ++v) {
      std::vector<Term> t;
      for (int k = 0; k < 2; ++k) {  // a's part, less b's
        const int sign = k == 0 ? 1 : -1;
        add_term(n, t, k == 0 ? "oa" : "ob", p.lo_nibble, [&](int u) { return sign * (u >> 3); });
        add_term(n, t, k == 0 ? "oa" : "ob", p.lo_nibble + 1, [&](int u) { return sign * 2 * (u & 7); });
      }
      m.threshold(t, v, {}, {{n.dim(p.field, v + 14), -1}, {n.dim(p.field, v + 15), 1}});
    }
  }
  for (int k = 0; k < 2; ++k) {  // the exponent of a (k = 0) or b is 0
    const char* field = k == 0 ? "oa" : "ob";
    m.rule({{n.one()}}, {n.digit("fz", k, 1)});
    std::vector<Term> t;
    bits_term(n, t, field, 23, 30, -1);
    m.threshold(t, 0, {}, {{n.digit("fz", k, 1), -1}, {n.digit("fz", k, 0), 1}});
  }
  for (int g = 0; g < 8; ++g) {  // |a| against |b|: <, =, > (bit 31 left out)
    const int mask = g == 7 ? 7 : 15;
    m.rule({{n.one()}}, {n.digit("fmc", g, 1)});
    for (int sign : {1, -1}) {
      std::vector<Term> t;
      add_term(n, t, "oa", g, [&](int v) { return sign * (v & mask); });
      add_term(n, t, "ob", g, [&](int v) { return -sign * (v & mask); });
      m.threshold(t, 1, {}, {{n.digit("fmc", g, 1), -1}, {n.digit("fmc", g, sign > 0 ? 2 : 0), 1}});
    }
  }
}

// L9: fxb from fmc (the highest nibble that differs), fd from fdh, fdl and fz.
void sig_order(Net& n, Mlp& m) {
  const std::vector<int> sig = op_dims(n, {Op::kAddFSig}), others = op_dims(n, {Op::kAddFSig}, true);
  m.rule({others}, {n.dim("fxb", kXNone)});
  std::vector<Lit> equal_above = {sig};
  for (int g = 7; g >= 0; --g) {
    std::vector<Lit> lt = equal_above, gt = equal_above;
    lt.push_back({n.digit("fmc", g, 0)});
    gt.push_back({n.digit("fmc", g, 2)});
    m.rule(lt, {n.dim("fxb", kXb)});
    m.rule(gt, {n.dim("fxb", kXa)});
    equal_above.push_back({n.digit("fmc", g, 1)});
  }
  m.rule(equal_above, {n.dim("fxb", kXa)});  // equal magnitudes: x is a
  m.rule({sig}, {n.dim("fd", 0)});
  m.rule({others}, {n.dim("fd", kDNone)});
  for (int sign : {1, -1}) {
    Term dh, dl;
    for (int i = 0; i < 31; ++i) {
      dh.dims.push_back(n.dim("fdh", i));
      dh.weight.push_back(sign * std::clamp(16 * (i - 15), -48, 48));  // |D| >= 32 past +-2
      dl.dims.push_back(n.dim("fdl", i));
      dl.weight.push_back(sign * (i - 15));
    }
    const std::vector<Term> t = {dh, dl, {{n.digit("fz", 0, 0)}, {sign}}, {{n.digit("fz", 1, 0)}, {-sign}}};
    for (int v = 1; v < kShifts; ++v) m.threshold(t, v, others, {{n.dim("fd", v - 1), -1}, {n.dim("fd", v), 1}});
  }
}

// L10: fx1 = sig(x) << 6 | fxb << 31, fx2 = shr_sticky(sig(y) << 6, fd), fneg and fcin.
void sig_addends(Net& n, Mlp& m) {
  for (int xb = 0; xb < 2; ++xb) {
    const char* x = xb ? "ob" : "oa";
    const char* y = xb ? "oa" : "ob";
    const std::vector<int> veto = {n.dim("fxb", xb ? kXa : kXb), n.dim("fxb", kXNone)};
    for (int i = 6; i <= 28; ++i) {
      std::vector<Term> t;
      add_term(n, t, x, (i - 6) / 4, [&](int v) { return v >> ((i - 6) % 4) & 1; });
      m.threshold(t, 1, veto, turn_on(n, "fx1", i));
    }
    m.threshold({{{n.digit("fz", xb, 1)}, {1}}}, 1, veto, turn_on(n, "fx1", 29));  // the hidden bit
    if (xb) m.threshold({{{n.dim("fxb", kXb)}, {1}}}, 1, {}, turn_on(n, "fx1", 31));
    // y's significand bit j as a term (j = 23: the hidden bit, y's exponent is not 0).
    auto y_bit = [&](int j) {
      if (j == 23) return Term{{n.digit("fz", 1 - xb, 1)}, {1}};
      Term t;
      for (int v = 0; v < 16; ++v)
        if (v >> (j % 4) & 1) {
          t.dims.push_back(n.digit(y, j / 4, v));
          t.weight.push_back(1);
        }
      return t;
    };
    for (int s = 0; s < kShifts; ++s) {
      const Term shift = {{n.dim("fd", s)}, {1}};
      for (int i = 1; i <= 29; ++i) {
        const int j = i + s - 6;  // the bit of sig(y) that lands at i
        if (j >= 0 && j <= 23) m.threshold({shift, y_bit(j)}, 2, veto, turn_on(n, "fx2", i));
      }
      if (s < 6) continue;
      std::vector<Term> t = {{{n.dim("fd", s)}, {32}}};  // bit 0: sig(y)'s bits 0..s - 6, ORed
      for (int j = 0; j <= std::min(s - 6, 23); ++j) t.push_back(y_bit(j));
      m.threshold(t, 33, veto, turn_on(n, "fx2", 0));
    }
  }
  all_off(n, m, "fx2");
  m.rule({{n.one()}}, {n.dim("fneg", 0)});
  m.rule({{n.one()}}, {n.dim("fcin", 0)});
  for (int sign : {1, -1}) {  // the signs differ: a < 0 <= b, or b < 0 <= a
    std::vector<Term> t;
    add_term(n, t, "oa", 7, [&](int v) { return sign * (v >> 3); });
    add_term(n, t, "ob", 7, [&](int v) { return -sign * (v >> 3); });
    const std::vector<int> veto = {n.dim("fxb", kXNone)};
    m.threshold(t, 1, veto, {{n.dim("fneg", 0), -1}, {n.dim("fneg", 1), 1}});
    m.threshold(t, 1, veto, {{n.dim("fcin", 0), -1}, {n.dim("fcin", 1), 1}});
  }
}

// ---- add.f32.rnd (oa = s, ob = a, oc = b)

// The veto "x is not `x`": s's bit 31 says x is c (oc).
std::vector<int> unless_x(Net& n, bool x_is_c) { return nibble_where(n, "oa", 7, [&](int v) { return (v >= 8) != x_is_c; }); }

// L8: fk, fs, fov.
void rnd_flags(Net& n, Mlp& m) {
  const std::vector<int> rnd = op_dims(n, {Op::kAddFRnd}), others = op_dims(n, {Op::kAddFRnd}, true);
  m.rule({rnd}, {n.dim("fk", 0)});
  m.rule({others}, {n.dim("fk", kKNone)});
  for (int j = 1; j < kKNone; ++j) {  // k >= j: s's bits 30 .. 31 - j are 0 and E(x) >= j
    const std::vector<Out> up = {{n.dim("fk", j - 1), -1}, {n.dim("fk", j), 1}};
    std::vector<Term> zeros;
    any_term(n, zeros, "oa", 31 - j, 30, -64);
    if (j == 1) {
      m.threshold(zeros, 0, others, up);
      continue;
    }
    for (bool c : {false, true}) {
      std::vector<Term> t = zeros;
      clamped_exponent(n, t, c ? "oc" : "ob");
      m.threshold(t, j, join(others, unless_x(n, c)), up);
    }
  }
  for (int f = 0; f < kFlags; ++f) m.rule({{n.one()}}, {flag(n, static_cast<Flag>(f), false)});
  auto set = [&](Flag f) { return std::vector<Out>{{flag(n, f, false), -1}, {flag(n, f, true), 1}}; };
  std::vector<Term> t;
  bits_term(n, t, "oa", 0, 30, -1);
  m.threshold(t, 0, {}, set(kZeroSum));
  for (bool c : {false, true}) {
    const char* x = c ? "oc" : "ob";
    std::vector<Term> e;
    bits_term(n, e, x, 23, 30, -1);
    m.threshold(e, 0, unless_x(n, c), set(kZeroExp));
    std::vector<Term> nan;
    for (int g = 0; g < 8; ++g)
      add_term(n, nan, x, g, [&](int v) {
        int w = 0;
        for (int b = 0; b < 4; ++b) w += f32_nan_weight(4 * g + b, (v >> b & 1) != 0);
        return w;
      });
    m.threshold(nan, 1, {}, set(c ? kNanB : kNanA));
    std::vector<Term> inf;
    const int bits = match_terms(n, inf, x, 0, 30, 0x7f800000u);
    m.threshold(inf, bits, {}, set(c ? kInfB : kInfA));
  }
  // fov: the rounded magnitude reaches 0x7f800000 (x's exponent 254 with s's bit 30; 253 with
  // s's bits 30..6 all 1; 254 with bit 30 0 and bits 29..5 all 1).
  m.rule({{n.one()}}, {n.dim("fov", 1)});
  struct Case {
    uint32_t exponent;
    int lo, hi;        // s's bits that must all be 1
    bool bit30_clear;  // and bit 30 must be 0
  };
  for (Case k : {Case{254, 30, 30, false}, Case{253, 6, 30, false}, Case{254, 5, 29, true}})
    for (bool c : {false, true}) {
      std::vector<Term> o;
      int need = match_terms(n, o, c ? "oc" : "ob", 23, 30, k.exponent << 23);
      need += match_terms(n, o, "oa", k.lo, k.hi, 0xffffffffu);
      if (k.bit30_clear) need += match_terms(n, o, "oa", 30, 30, 0);
      m.threshold(o, need, join(others, unless_x(n, c)), {{n.dim("fov", 1), -1}, {n.dim("fov", 0), 1}});
    }
}

// L9: fx1 = (s << k) >> 7: bit i is s's bit i + 7 - k.
void rnd_significand(Net& n, Mlp& m) {
  all_off(n, m, "fx1");
  std::vector<int> off;
  for (int i = kFx3Low; i < 32; ++i) off.push_back(fx3(n, i, false));
  m.rule({{n.one()}}, off);
  const std::vector<int> overflow = {n.dim("fov", 0)};
  for (int k = 0; k < kKNone; ++k) {
    for (int i = 0; i <= 22; ++i) {  // the fraction: N's bits 29..7
      const int j = i + 7 - k;
      if (j < 0 || j > 30) continue;
      std::vector<Term> t = {{{n.dim("fk", k)}, {1}}};
      add_term(n, t, "oa", j / 4, [&](int v) { return v >> (j % 4) & 1; });
      m.threshold(t, 2, overflow, turn_on(n, "fx1", i));
    }
    // fx3 = (h - k) << 23, h the hidden bit (N's bit 30: s's bit 30 - k), so that no
    // nibble of fx1 + fx2 + fx3 sums past 30 (with a carry in, the adder's one carry out).
    for (int h = 0; h < 2; ++h) {
      const uint32_t word = static_cast<uint32_t>(h - k) << 23;
      std::vector<Term> t = {{{n.dim("fk", k)}, {1}}};
      add_term(n, t, "oa", (30 - k) / 4, [&](int v) { return (v >> ((30 - k) % 4) & 1) == h ? 1 : 0; });
      for (int i = 23; i < 32; ++i)
        if (word >> i & 1) m.threshold(t, 2, overflow, {{fx3(n, i, false), -1}, {fx3(n, i, true), 1}});
    }
  }
}

// L10: fx2 = exponent(x) << 23, the rounding increment into fcin.
void rnd_addends(Net& n, Mlp& m) {
  const int none = n.dim("fk", kKNone), overflow = n.dim("fov", 0);
  for (bool c : {false, true})
    for (int i = 23; i <= 30; ++i) {
      std::vector<Term> t;
      add_term(n, t, c ? "oc" : "ob", i / 4, [&](int v) { return v >> (i % 4) & 1; });
      m.threshold(t, 1, join({none, overflow}, unless_x(n, c)), turn_on(n, "fx2", i));
    }
  m.threshold({{{flag(n, kZeroExp, true)}, {1}}}, 1, {none, overflow}, turn_on(n, "fx2", 23));  // E = 1
  for (int i = 23; i <= 30; ++i) m.threshold({{{overflow}, {1}}}, 1, {none}, turn_on(n, "fx2", i));
  // Nearest even at bit 7 of N = s << k: N's bit 6, and bit 7 or any of bits 5..0.
  for (int k = 0; k <= 6; ++k) {
    std::vector<Term> t = {{{n.dim("fk", k)}, {16}}};
    add_term(n, t, "oa", (6 - k) / 4, [&](int v) { return 8 * (v >> ((6 - k) % 4) & 1); });
    std::vector<Term> rest;
    bits_term(n, rest, "oa", 0, 5 - k, 1);
    bits_term(n, rest, "oa", 7 - k, 7 - k, 1);
    t.insert(t.end(), rest.begin(), rest.end());
    m.threshold(t, 25, {overflow}, {{n.dim("fcin", 0), -1}, {n.dim("fcin", 1), 1}});
  }
}

// L12: fcls from fs and the signs (s's bit 31 picks x).
void rnd_class(Net& n, Mlp& m) {
  auto yes = [&](Flag f) { return Lit{flag(n, f, true)}; };
  auto no = [&](Flag f) { return Lit{flag(n, f, false)}; };
  auto neg = [&](const char* f) { return nibble_where(n, f, 7, [](int v) { return v >= 8; }); };
  auto pos = [&](const char* f) { return nibble_where(n, f, 7, [](int v) { return v < 8; }); };
  auto cls = [&](Class c) { return std::vector<int>{n.dim("fcls", c)}; };
  m.rule({yes(kNanA)}, cls(kNaN));
  m.rule({no(kNanA), yes(kNanB)}, cls(kNaN));
  const std::vector<Lit> numbers = {no(kNanA), no(kNanB)};
  auto with = [&](std::vector<Lit> more) {
    more.insert(more.begin(), numbers.begin(), numbers.end());
    return more;
  };
  m.rule(with({yes(kInfA), yes(kInfB), neg("ob"), pos("oc")}), cls(kNaN));
  m.rule(with({yes(kInfA), yes(kInfB), pos("ob"), neg("oc")}), cls(kNaN));
  m.rule(with({yes(kInfA), yes(kInfB), pos("ob"), pos("oc")}), cls(kPlusInf));
  m.rule(with({yes(kInfA), yes(kInfB), neg("ob"), neg("oc")}), cls(kMinusInf));
  m.rule(with({yes(kInfA), no(kInfB), pos("ob")}), cls(kPlusInf));
  m.rule(with({yes(kInfA), no(kInfB), neg("ob")}), cls(kMinusInf));
  m.rule(with({no(kInfA), yes(kInfB), pos("oc")}), cls(kPlusInf));
  m.rule(with({no(kInfA), yes(kInfB), neg("oc")}), cls(kMinusInf));
  const std::vector<Lit> finite = with({no(kInfA), no(kInfB)});
  auto also = [&](std::vector<Lit> more) {
    more.insert(more.begin(), finite.begin(), finite.end());
    return more;
  };
  m.rule(also({yes(kZeroSum), neg("ob"), neg("oc")}), cls(kMinusZero));
  m.rule(also({yes(kZeroSum), pos("ob")}), cls(kPlusZero));
  m.rule(also({yes(kZeroSum), neg("ob"), pos("oc")}), cls(kPlusZero));
  const Lit x_is_a = unless_x(n, true), x_is_b = unless_x(n, false);
  m.rule(also({no(kZeroSum), x_is_a, pos("ob")}), cls(kPlus));
  m.rule(also({no(kZeroSum), x_is_a, neg("ob")}), cls(kMinus));
  m.rule(also({no(kZeroSum), x_is_b, pos("oc")}), cls(kPlus));
  m.rule(also({no(kZeroSum), x_is_b, neg("oc")}), cls(kMinus));
}

// ---- cvt.s32.f32, cvt.u32.f32 (oa = a): truncated toward zero, saturated, NaN 0.

constexpr int kCvtLow = 127, kCvtIn = 32, kCvtBelow = 32, kCvtAbove = 33, kCvtOther = 34;  // fce

// L8: fce, a's exponent e as e - 127 for 127..158 (cvt.s32.f32: ..157; cvt.u32.f32: a
// positive a), below (0), above (saturated; NaN too: L10 tells them apart), another op.
void cvt_exponent(Net& n, Mlp& m) {
  const Lit s32 = op_dims(n, {Op::kCvtSF}), u32 = op_dims(n, {Op::kCvtUF});
  m.rule({op_dims(n, {Op::kCvtSF, Op::kCvtUF}, true)}, {n.dim("fce", kCvtOther)});
  const Lit negative = nibble_where(n, "oa", 7, [](int v) { return v >= 8; });
  const Lit positive = nibble_where(n, "oa", 7, [](int v) { return v < 8; });
  m.rule({u32, negative}, {n.dim("fce", kCvtBelow)});  // -x truncates to 0 or below: 0
  // e = 32 h + 2 m + b: h = bits 28..30 (nibble 7 & 7), m = nibble 6, b = bit 23.
  auto h_is = [&](std::initializer_list<int> hs) {
    return nibble_where(n, "oa", 7, [&](int v) { return std::find(hs.begin(), hs.end(), v & 7) != hs.end(); });
  };
  auto m_is = [&](int lo, int hi) { return nibble_where(n, "oa", 6, [&](int v) { return v >= lo && v <= hi; }); };
  auto b_is = [&](int b) { return nibble_where(n, "oa", 5, [&](int v) { return (v >> 3) == b; }); };
  for (bool is_u32 : {false, true}) {
    std::vector<Lit> sign = {is_u32 ? u32 : s32};
    if (is_u32) sign.push_back(positive);
    auto rule = [&](std::vector<Lit> lits, int out) {
      lits.insert(lits.begin(), sign.begin(), sign.end());
      m.rule(lits, {n.dim("fce", out)});
    };
    rule({h_is({0, 1, 2})}, kCvtBelow);
    rule({h_is({3}), m_is(0, 14)}, kCvtBelow);
    rule({h_is({3}), m_is(15, 15), b_is(0)}, kCvtBelow);
    rule({h_is({3}), m_is(15, 15), b_is(1)}, 0);  // 127
    rule({h_is({5, 6, 7})}, kCvtAbove);
    const int last = is_u32 ? 158 : 157;
    for (int e = 128; e <= 159; ++e)
      rule({h_is({4}), m_is((e >> 1) & 15, (e >> 1) & 15), b_is(e & 1)}, e <= last ? e - kCvtLow : kCvtAbove);
  }
}

// L10: |a| truncated into fx2 (sig(a) << (e - 150), or >> (150 - e)), complemented (fneg,
// fcin) for a negative cvt.s32.f32; saturated words into fx3; 0 for NaN (oan).
void cvt_addends(Net& n, Mlp& m) {
  for (int k = 0; k < kCvtIn; ++k) {
    const int e = kCvtLow + k;
    const Term at = {{n.dim("fce", k)}, {1}};
    for (int i = 0; i < 32; ++i) {
      const int j = i + 150 - e;  // sig(a)'s bit at i
      if (j < 0 || j > 23) continue;
      std::vector<Term> t = {at};
      if (j < 23) add_term(n, t, "oa", j / 4, [&](int v) { return v >> (j % 4) & 1; });
      m.threshold(t, j < 23 ? 2 : 1, {}, turn_on(n, "fx2", i));
    }
  }
  Term in_range;
  for (int k = 0; k < kCvtIn; ++k) in_range.dims.push_back(n.dim("fce", k)), in_range.weight.push_back(1);
  std::vector<Term> negative = {in_range};
  add_term(n, negative, "oa", 7, [](int v) { return v >> 3; });
  const std::vector<int> not_s32 = op_dims(n, {Op::kCvtSF}, true);
  m.threshold(negative, 2, not_s32, {{n.dim("fneg", 0), -1}, {n.dim("fneg", 1), 1}});
  m.threshold(negative, 2, not_s32, {{n.dim("fcin", 0), -1}, {n.dim("fcin", 1), 1}});
  // Saturated: INT_MAX, INT_MIN (a negative), UINT_MAX; a NaN (oan 0) gives 0.
  const std::vector<int> nan = {n.dim("oan", 0)};
  const Term above = {{n.dim("fce", kCvtAbove)}, {1}};
  for (int i = 0; i < 32; ++i) {
    std::vector<Term> t = {above};
    if (i < 31) {  // INT_MAX's bits: a positive cvt.s32.f32
      add_term(n, t, "oa", 7, [](int v) { return v < 8 ? 1 : 0; });
      m.threshold(t, 2, join(nan, not_s32), turn_on(n, "fx1", i));
    } else {
      add_term(n, t, "oa", 7, [](int v) { return v >> 3; });
      m.threshold(t, 2, join(nan, not_s32), turn_on(n, "fx1", i));
    }
    m.threshold({above}, 1, join(nan, op_dims(n, {Op::kCvtUF}, true)), turn_on(n, "fx1", i));
  }
}

// The adder's digits (L11) for the microcode and the conversions to integers: fx1 + fx2 (or
// ~fx2 when fneg) + fx3 + fcin. The words are 0 for every other op. No nibble of the three
// sums past 30 (the addends are built so), so with a carry in a nibble carries out at most
// 1, which is all the adder's carry lookahead passes on.
void adder_digits(Net& n, Mlp& m) {
  m.rule({op_dims(n, {Op::kAddFSig, Op::kAddFRnd, Op::kCvtSF, Op::kCvtUF})}, [&] {
    std::vector<int> zero;
    for (int g = 0; g < 8; ++g) zero.insert(zero.end(), {n.digit("as", g, 0), n.dim("acl", 3 * g + kKill)});
    return zero;
  }());
  for (bool complement : {false, true})
    for (int g = 0; g < 8; ++g) {
      std::vector<Term> t;
      for (const char* f : {"fx1", "fx2"})
        for (int k = 0; k < 4; ++k) {
          const bool flip = complement && f[2] == '2';
          t.push_back({{n.digit(f, 4 * g + k, flip ? 1 : 0)}, {1 << k}});
        }
      for (int k = 0; k < 4; ++k)
        if (4 * g + k >= kFx3Low) t.push_back({{fx3(n, 4 * g + k, true)}, {1 << k}});
      if (g == 0) t.push_back({{n.dim("fcin", 1)}, {1}});
      const std::vector<int> veto = {n.dim("fneg", complement ? 0 : 1)};
      for (int v = 1; v < 32; ++v) m.threshold(t, v, veto, sum_step(n, "as", "acl", g, v));
    }
}

}  // namespace

void build_float(Net& n) {
  Mlp l8(n, kMulLayer), l9(n, kMulLayer + 1), l10(n, kMulLayer + 2), l11(n, kAluLayer), l12(n, kAluLayer + 1);
  sig_exponents(n, l8);
  rnd_flags(n, l8);
  cvt_exponent(n, l8);
  sig_order(n, l9);
  rnd_significand(n, l9);
  sig_addends(n, l10);
  rnd_addends(n, l10);
  cvt_addends(n, l10);
  adder_digits(n, l11);
  rnd_class(n, l12);
}

}  // namespace qgpu::lift
