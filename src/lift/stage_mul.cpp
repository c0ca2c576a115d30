// The multiplier for lane nl: mul.lo and mad.lo, the low word of a * b (+ c), in three MLP
// layers between the operand select and the ALU, whose adder finishes it (docs/design.md
// §3, "the multiplier"). Everything is a threshold rule (Mlp::threshold) on nibble codes:
//   L8 MLP: per pair of nibbles (i, j) with i + j <= 6, the product a_i b_j as two nibbles
//      of dual-rail bits (plo, phi: 8 dims each, half a one-hot nibble's 16; issue 24, the
//      products are the widest thing alive after L7): a threshold rule per distinct product
//      value p, "a_i b_j >= p", which is separable as "b_j >= ceil(p / a_i)" (weights
//      16 - ceil(p / a_i) on a's nibble and b_j on b's), flips the bits in which p differs
//      from the previous value, so the code telescopes from 0 to the product; 89 threshold
//      rules a pair. For the 8 pairs of column 7 only the low nibble counts, so they keep
//      the 10 bit products a_i[s] b_j[t] with s + t <= 3 (pbt; the others are multiples of
//      16);
//   L9 MLP: the column sums, split so a rule's sum stays below 128: A_k, the low nibbles of
//      column k (k <= 6), and B_k, the high nibbles of column k - 1, each mod 16 and / 16;
//      column 7's bit products in four chunks of two pairs (at most 98 each), mod 16; and
//      it clears L8's codes (build_clears, as every field's), whose dims later codes reuse;
//   L10 MLP: the digits E_k = A_k % 16 + B_k % 16 + A_{k-1} / 16 + B_{k-1} / 16 (+ c's
//      nibble k for mad.lo), mod 16 (em) and / 16 (ed, at most 3); clears L9's codes.
// The low word is sum E_k 16^k, so the ALU's adder (stage_alu.cpp) takes em_k and ed_{k-1}
// as its operands' nibbles (at most 18 a nibble: a carry of 0 or 1, like any sum). Every
// L8 threshold rule is vetoed unless the op multiplies, so other ops leave every code at 0.
#include <algorithm>
#include <functional>
#include <set>
#include <string>

#include "gpu/isa.h"
#include "lift/machine_model.h"
#include "lift/stages.h"

namespace qgpu::lift {
namespace {

using Term = Mlp::Term;
using Out = Mlp::Out;

// Pairs (i, j) of columns 0..6 in column order: k (k + 1) / 2 + i for k = i + j.
int pair_index(int i, int j) { return (i + j) * (i + j + 1) / 2 + i; }
// The product's low and high nibble of a pair, bit b (the high nibble is at most 14):
// dual-rail, nibble `pair` of a bit word (nibble_bits reads it as threshold terms).
int plo(Net& n, int pair, int b, bool on) { return n.dim("plo", bit_dim(4 * pair + b, on)); }
int phi(Net& n, int pair, int b, bool on) { return n.dim("phi", bit_dim(4 * pair + b, on)); }
// Column 7's pair (i, 7 - i), bit product q (s, t with s + t <= 3, in order): on at 0.
int pbt(Net& n, int i, int q, bool on) { return n.digit("pbt", 10 * i + q, on ? 0 : 1); }

// Telescopes sum(terms) into a mod-16 code (mod(v), v < 16) and, when div is set, its / 16
// (div(q)): the threshold rule "sum >= v" moves both codes from v - 1's to v's. The caller's
// base rule sets mod(0) and div(0).
void digit_code(Mlp& m, const std::vector<Term>& terms, const std::vector<int>& veto, const std::function<int(int)>& mod,
                const std::function<int(int)>& div) {
  int hi = 0;
  for (const Term& t : terms) hi += *std::max_element(t.weight.begin(), t.weight.end());
  for (int v = 1; v <= hi; ++v) {
    std::vector<Out> outs = {{mod((v - 1) % 16), -1}, {mod(v % 16), 1}};
    if (v % 16 == 0 && div) outs.insert(outs.end(), {{div(v / 16 - 1), -1}, {div(v / 16), 1}});
    m.threshold(terms, v, veto, outs);
  }
}

// L8: the products.
void products(Net& n, Mlp& m) {
  const std::vector<int> veto = op_veto(n, "mul");
  std::vector<int> zero;
  for (int pair = 0; pair < kMulPairs; ++pair)
    for (int b = 0; b < 4; ++b) zero.insert(zero.end(), {plo(n, pair, b, false), phi(n, pair, b, false)});
  for (int i = 0; i < 8; ++i)
    for (int q = 0; q < 10; ++q) zero.push_back(pbt(n, i, q, false));
  m.rule({{n.one()}}, zero);
  std::set<int> distinct;
  for (int a = 0; a < 16; ++a)
    for (int b = 0; b < 16; ++b) distinct.insert(a * b);
  const std::vector<int> values(distinct.begin(), distinct.end());
  for (int k = 0; k <= 6; ++k)
    for (int i = 0; i <= k; ++i) {
      const int j = k - i, pair = pair_index(i, j);
      const Term b = nibble_term(n, "ob", j, [](int v) { return v; });
      for (size_t s = 1; s < values.size(); ++s) {
        const int p = values[s], q = values[s - 1];
        // a_i b_j >= p  <=>  b_j >= ceil(p / a_i) (never when a_i = 0 or that is over 15).
        const Term a = nibble_term(n, "oa", i, [p](int v) { return v == 0 ? 0 : 16 - std::min(16, (p + v - 1) / v); });
        std::vector<Out> outs;
        for (int b = 0; b < 4; ++b) {  // the bits in which p differs from q flip
          const bool lo_was = (q % 16) >> b & 1, lo_is = (p % 16) >> b & 1;
          const bool hi_was = (q / 16) >> b & 1, hi_is = (p / 16) >> b & 1;
          if (lo_was != lo_is) outs.insert(outs.end(), {{plo(n, pair, b, lo_was), -1}, {plo(n, pair, b, lo_is), 1}});
          if (hi_was != hi_is) outs.insert(outs.end(), {{phi(n, pair, b, hi_was), -1}, {phi(n, pair, b, hi_is), 1}});
        }
        std::vector<Term> terms = {b};
        if (!a.dims.empty()) terms.push_back(a);
        m.threshold(terms, 16, veto, outs);
      }
    }
  for (int i = 0; i < 8; ++i) {
    int q = 0;
    for (int s = 0; s < 4; ++s)
      for (int t = 0; s + t < 4; ++t, ++q) {
        const Term x = nibble_term(n, "oa", i, [s](int v) { return v >> s & 1; });
        const Term y = nibble_term(n, "ob", 7 - i, [t](int v) { return v >> t & 1; });
        m.threshold({x, y}, 2, veto, {{pbt(n, i, q, false), -1}, {pbt(n, i, q, true), 1}});
      }
  }
}

// L9: the column sums A_k (cam, cad), B_k (cbm, cbd: index k - 1) and column 7's chunks (chm).
void column_sums(Net& n, Mlp& m) {
  std::vector<int> zero;
  for (int k = 0; k < 7; ++k) zero.insert(zero.end(), {n.digit("cam", k, 0), n.digit("cad", k, 0), n.digit("cbm", k, 0)});
  for (int k = 0; k < 6; ++k) zero.push_back(n.dim("cbd", 8 * k));
  for (int c = 0; c < 4; ++c) zero.push_back(n.digit("chm", c, 0));
  m.rule({{n.one()}}, zero);
  for (int k = 0; k <= 6; ++k) {
    std::vector<Term> lo;
    for (int i = 0; i <= k; ++i)
      for (const Term& t : nibble_bits(n, "plo", pair_index(i, k - i), 1)) lo.push_back(t);
    digit_code(m, lo, {}, [&](int v) { return n.digit("cam", k, v); }, [&](int q) { return n.digit("cad", k, q); });
  }
  for (int k = 1; k <= 7; ++k) {
    std::vector<Term> hi;
    for (int i = 0; i <= k - 1; ++i)
      for (const Term& t : nibble_bits(n, "phi", pair_index(i, k - 1 - i), 1)) hi.push_back(t);
    std::function<int(int)> div;
    if (k <= 6) div = [&n, k](int q) { return n.dim("cbd", 8 * (k - 1) + q); };
    digit_code(m, hi, {}, [&](int v) { return n.dim("cbm", 16 * (k - 1) + v); }, div);
  }
  for (int c = 0; c < 4; ++c) {
    std::vector<Term> bits;
    for (int i = 2 * c; i < 2 * c + 2; ++i) {
      int q = 0;
      for (int s = 0; s < 4; ++s)
        for (int t = 0; s + t < 4; ++t, ++q) bits.push_back({{pbt(n, i, q, true)}, {1 << (s + t)}});
    }
    digit_code(m, bits, {}, [&](int v) { return n.digit("chm", c, v); }, nullptr);
  }
}

// L10: the digits em_k, ed_k (k <= 6), with c's nibble for mad.lo.
void digits(Net& n, Mlp& m) {
  std::vector<int> zero;
  for (int k = 0; k < 8; ++k) zero.push_back(n.digit("em", k, 0));
  for (int k = 0; k < 7; ++k) zero.push_back(n.dim("ed", 4 * k));
  m.rule({{n.one()}}, zero);
  for (Op op : {Op::kMulLo, Op::kMadLo})
    for (int k = 0; k < 8; ++k) {
      std::vector<Term> terms;
      if (k <= 6) terms.push_back(value_term(n, "cam", 16 * k, 16));
      for (int c = 0; k == 7 && c < 4; ++c) terms.push_back(value_term(n, "chm", 16 * c, 16));
      if (k >= 1) terms.insert(terms.end(), {value_term(n, "cbm", 16 * (k - 1), 16), value_term(n, "cad", 8 * (k - 1), 8)});
      if (k >= 2) terms.push_back(value_term(n, "cbd", 8 * (k - 2), 8));
      if (op == Op::kMadLo) terms.push_back(value_term(n, "oc", 16 * k, 16));
      std::function<int(int)> div;
      if (k <= 6) div = [&n, k](int q) { return n.dim("ed", 4 * k + q); };
      digit_code(m, terms, op_veto(n, op == Op::kMulLo ? "mul.lo" : "mad.lo"), [&](int v) { return n.digit("em", k, v); }, div);
    }
}

}  // namespace

std::vector<MulCodes> multiplier_codes(uint32_t a, uint32_t b, uint32_t c, bool mad) {
  auto nib = [](uint32_t x, int g) { return static_cast<int>(x >> (4 * g) & 0xf); };
  // plo and phi: a group per bit (dual-rail: 0 on, 1 off).
  MulCodes lo{kMulLayer, "plo", 2, {}}, hi{kMulLayer, "phi", 2, {}}, bits{kMulLayer, "pbt", 2, {}};
  std::vector<int> lo_value, hi_value;
  for (int k = 0; k <= 6; ++k)
    for (int i = 0; i <= k; ++i) {
      const int p = nib(a, i) * nib(b, k - i);
      lo_value.push_back(p % 16);
      hi_value.push_back(p / 16);
      for (int bit = 0; bit < 4; ++bit) {
        lo.values.push_back((p % 16 >> bit & 1) ? 0 : 1);
        hi.values.push_back((p / 16 >> bit & 1) ? 0 : 1);
      }
    }
  std::vector<int> chunk(4, 0);
  for (int i = 0; i < 8; ++i)
    for (int s = 0; s < 4; ++s)
      for (int t = 0; s + t < 4; ++t) {
        const int on = (nib(a, i) >> s & 1) & (nib(b, 7 - i) >> t & 1);
        bits.values.push_back(on ? 0 : 1);
        chunk[i / 2] += on << (s + t);
      }
  std::vector<int> A(7, 0), B(8, 0);
  for (int k = 0; k <= 6; ++k)
    for (int i = 0; i <= k; ++i) A[k] += lo_value[pair_index(i, k - i)], B[k + 1] += hi_value[pair_index(i, k - i)];
  MulCodes cam{kMulLayer + 1, "cam", 16, {}}, cad{kMulLayer + 1, "cad", 8, {}}, cbm{kMulLayer + 1, "cbm", 16, {}},
      cbd{kMulLayer + 1, "cbd", 8, {}}, chm{kMulLayer + 1, "chm", 16, {}};
  for (int k = 0; k <= 6; ++k) cam.values.push_back(A[k] % 16), cad.values.push_back(A[k] / 16);
  for (int k = 1; k <= 7; ++k) cbm.values.push_back(B[k] % 16);
  for (int k = 1; k <= 6; ++k) cbd.values.push_back(B[k] / 16);
  for (int x : chunk) chm.values.push_back(x % 16);
  MulCodes em{kMulLayer + 2, "em", 16, {}}, ed{kMulLayer + 2, "ed", 4, {}};
  for (int k = 0; k < 8; ++k) {
    int e = mad ? nib(c, k) : 0;
    if (k <= 6) e += A[k] % 16;
    for (int x : chunk) e += k == 7 ? x % 16 : 0;
    if (k >= 1) e += B[k] % 16 + A[k - 1] / 16;
    if (k >= 2) e += B[k - 1] / 16;
    em.values.push_back(e % 16);
    if (k <= 6) ed.values.push_back(e / 16);
  }
  return {lo, hi, bits, cam, cad, cbm, cbd, chm, em, ed};
}

void build_multiplier(Net& n) {
  Mlp first(n, kMulLayer);
  products(n, first);
  Mlp second(n, kMulLayer + 1);
  column_sums(n, second);
  Mlp third(n, kMulLayer + 2);
  digits(n, third);
}

}  // namespace qgpu::lift
