// binary32 arithmetic as sequences of the machine's integer ops, for the compiled model,
// whose layers order floats (compares, min, max, neg, abs) but do not yet add, multiply
// or convert them (docs/design.md §3, "The rest of the ALU"). Each sequence (branch-free but for
// div's and sqrt's loops) computes alu_f32's bits exactly: round to nearest even,
// subnormals kept, NVIDIA's canonical NaN (tests/float_test.cpp runs them against alu_f32
// on the same operands as the ops themselves).
//
// The common shape: a significand with its hidden bit, aligned so that its leading one is
// at bit 30 and bits 6..0 hold what lies below the result's last place (bit 6 the half,
// bit 0 also the sticky OR of every bit shifted out), then one rounding and the pack
// sign | (e - 1) << 23 + s, where s's hidden bit carries into the exponent (and a carry
// out of the rounding moves it on, up to infinity; a subnormal is e = 1 without the bit).
#include "compiler/lower_expand.h"

#include <optional>

namespace qgpu {
namespace {

constexpr int64_t kSign = 0x80000000, kMag = 0x7fffffff, kInf = 0x7f800000, kOne = 0x3f800000;

// x is an immediate whose 32 bits are `bits` (an immediate may be held sign-extended).
bool is_word(const IrOperand& x, int64_t bits) { return x.kind == IrOperand::Kind::kImm && (x.imm & 0xffffffff) == bits; }

// Builds a sequence one op at a time. Every op is appended when its call runs, so no call
// below takes two arguments that append (their order would be the compiler's choice, and
// so would the program's): a nested call is the only appending argument, or a local.
class FloatSeq {
 public:
  // at: the index the sequence's first op will have (a loop's branch targets are absolute).
  FloatSeq(int at, const FreshReg& fresh, const FreshReg& pred) : at_(at), fresh_(fresh), pred_(pred) {}

  IrOperand op(Op o, IrOperand a, IrOperand b = {}, IrOperand c = {}) {
    IrOperand d = fresh_();
    code_.push_back({.op = o, .d = d, .a = a, .b = b, .c = c});
    return d;
  }
  IrOperand op(Op o, IrOperand a, int64_t b) { return op(o, a, ir_imm(b)); }
  IrOperand setp(Op o, IrOperand a, IrOperand b) {
    IrOperand p = pred_();
    code_.push_back({.op = o, .d = p, .a = a, .b = b});
    return p;
  }
  IrOperand setp(Op o, IrOperand a, int64_t b) { return setp(o, a, ir_imm(b)); }
  IrOperand selp(IrOperand a, IrOperand b, IrOperand p) { return op(Op::kSelp, a, b, p); }
  // d = o(a, b, c) for a d an earlier op wrote: a loop's variable.
  void set(IrOperand d, Op o, IrOperand a, IrOperand b = {}, IrOperand c = {}) {
    code_.push_back({.op = o, .d = d, .a = a, .b = b, .c = c});
  }

  // body() run `trips` times (at least once): one counter, compare and branch a trip.
  template <class Body>
  void repeat(int64_t trips, Body body) {
    IrOperand left = op(Op::kMov, ir_imm(trips));
    loop(body, [&] {
      set(left, Op::kSub, left, ir_imm(1));
      return setp(Op::kSetpNe, left, 0);
    });
  }
  // body() run while more() (a predicate, appended after the body) is true, at least once:
  // a loop whose own variable ends it needs no counter.
  template <class Body, class More>
  void loop(Body body, More more) {
    const int top = at_ + static_cast<int>(code_.size());
    body();
    IrOperand again = more();
    code_.push_back({.op = Op::kBra, .guard = again.index, .target = top});
  }

  // The index the next op will have, a branch to `target` (guarded by pred p, or by its
  // negation), and the target of an earlier branch set once it is known.
  int here() const { return at_ + static_cast<int>(code_.size()); }
  size_t branch(int target, std::optional<IrOperand> p = {}, bool negated = false) {
    code_.push_back({.op = Op::kBra, .guard = p ? p->index : -1, .guard_negated = negated, .target = target});
    return code_.size() - 1;
  }
  void land(size_t branch_at) { code_[branch_at].target = here(); }
  void set_pred(IrOperand p, bool value) { code_.push_back({.op = Op::kMovPred, .d = p, .a = ir_imm(value ? 1 : 0)}); }

  // a's sign bit in every bit: 0, or -1 for a negative float (or int).
  IrOperand sign_mask(IrOperand a) { return op(Op::kShrS, a, 31); }
  // 0 for 0, else 1.
  IrOperand nonzero(IrOperand a) { return op(Op::kMinU, a, 1); }

  // x >> n with every bit shifted out ORed into bit 0 (n may be 32 or more).
  IrOperand shr_sticky(IrOperand x, IrOperand n) {
    IrOperand kept = op(Op::kShrU, x, n);
    IrOperand lost = op(Op::kSub, x, op(Op::kShl, kept, n));
    return op(Op::kOr, kept, nonzero(lost));
  }

  // n: the leading one at bit 30 (or lower for a subnormal), bits 6..0 below the last place.
  // Returns the 24-bit significand rounded to nearest even (2^24 when it carries out).
  IrOperand round_even(IrOperand n) {
    IrOperand last = op(Op::kAnd, op(Op::kShrU, n, 7), 1);
    return op(Op::kShrU, op(Op::kAdd, op(Op::kAdd, n, last), 0x3f), 7);
  }

  // |result| = (e - 1) << 23 + s, e - 1 forced to 0 when live is 0 (an exact zero), and
  // clamped to infinity.
  IrOperand pack(IrOperand e_minus_1, IrOperand s, IrOperand live) {
    return pack(op(Op::kMulLo, e_minus_1, live), s);
  }
  IrOperand pack(IrOperand e_minus_1, IrOperand s) {  // s is not an exact zero
    return op(Op::kMinU, op(Op::kMadLo, e_minus_1, ir_imm(0x800000), s), kInf);
  }

  // |result| from t, whose leading one is at bit 31 or 30, where 1 - e = under (e the
  // exponent with the leading one at bit 30): one right shift with sticky by
  // max(carry, under) takes t to bit 30 and a subnormal on to exponent 1; rounded, packed
  // (live as pack's, when t may be an exact zero).
  IrOperand round_shifted(IrOperand t, IrOperand under, std::optional<IrOperand> live = {}) {
    IrOperand right = op(Op::kMaxS, under, op(Op::kShrU, t, 31));
    IrOperand e1 = op(Op::kSub, right, under);
    IrOperand s = round_even(shr_sticky(t, right));
    return live ? pack(e1, s, *live) : pack(e1, s);
  }

  // |x|'s biased exponent, at least 1 (a subnormal's, and zero's, is 1: the significand's
  // place is then the same as at exponent 1, without the hidden bit).
  IrOperand exponent(IrOperand mag) { return op(Op::kMaxU, op(Op::kShrU, mag, 23), 1); }

  // |x|'s significand with the hidden bit for a normal x (for a subnormal its fraction),
  // given its biased exponent clamped to at least 1: |x| - (e - 1) << 23.
  IrOperand significand(IrOperand mag, IrOperand e_at_least_1) {
    return op(Op::kMadLo, e_at_least_1, ir_imm(0xff800000), op(Op::kAdd, mag, 0x800000));
  }

  std::vector<IrInstr> finish(IrOperand d) {
    code_.back().d = d;
    return std::move(code_);
  }

 private:
  int at_;
  const FreshReg& fresh_;
  const FreshReg& pred_;
  std::vector<IrInstr> code_;
};

// a + b: two machine steps the layers compute (docs/isa.md, "Float microcode"):
// add.f32.sig aligns and adds the significands, add.f32.rnd normalises, rounds and packs.
std::vector<IrInstr> float_add(IrOperand d, IrOperand a, IrOperand b, FloatSeq& s) {
  IrOperand sum = s.op(Op::kAddFSig, a, b);
  s.op(Op::kAddFRnd, sum, a, b);
  return s.finish(d);
}

// One operand of a product: its significand shifted so its leading one is at bit 23
// (subnormals normalised; 0 stays 0), and the exponent that goes with it, less 8.
struct Factor {
  IrOperand sig, exp;
};
Factor float_factor(IrOperand mag, FloatSeq& s) {
  IrOperand e = s.exponent(mag);
  IrOperand sig = s.significand(mag, e);
  IrOperand lz = s.op(Op::kClz, sig);
  return {s.op(Op::kShrU, s.op(Op::kShl, sig, lz), 8), s.op(Op::kSub, e, lz)};
}

// a * b. The 48-bit product of the 24-bit significands P = sa * sb, as T = P >> 16 from
// sb's three bytes (sa * byte < 2^32, and each partial sum stays below 2^32) and a sticky
// bit for P's low 16 (mul.lo's low word). T leads at bit 31 (carry) or 30; one right
// shift with sticky takes it to bit 30 and, for a subnormal result, on to exponent 1:
// by max(carry, 1 - e) where e = ea + eb - 127 is the exponent without the carry. Rounded
// and packed. Special: either operand infinite or NaN: NaN for a NaN or infinity times
// zero, else infinity with the product's sign.
// plus_zero: fma(a, b, +0), which is the product but for an exact zero's sign (+0: -0 + +0
// is +0); a product that underflows to zero keeps its sign, as the fma's one rounding does.
std::vector<IrInstr> float_mul(IrOperand d, IrOperand a, IrOperand b, FloatSeq& s, bool plus_zero = false) {
  IrOperand sign = s.op(Op::kAnd, s.op(Op::kXor, a, b), kSign);
  IrOperand ma = s.op(Op::kAnd, a, kMag), mb = s.op(Op::kAnd, b, kMag);
  Factor fa = float_factor(ma, s), fb = float_factor(mb, s);
  IrOperand b0 = s.op(Op::kAnd, fb.sig, 0xff);
  IrOperand b1 = s.op(Op::kAnd, s.op(Op::kShrU, fb.sig, 8), 0xff);
  IrOperand b2 = s.op(Op::kShrU, fb.sig, 16);
  IrOperand p0 = s.op(Op::kShrU, s.op(Op::kMulLo, fa.sig, b0), 8);
  IrOperand p1 = s.op(Op::kShrU, s.op(Op::kMadLo, fa.sig, b1, p0), 8);
  IrOperand top = s.op(Op::kMadLo, fa.sig, b2, p1);  // P >> 16
  IrOperand low = s.nonzero(s.op(Op::kShl, s.op(Op::kMulLo, fa.sig, fb.sig), 16));
  // fa.exp + fb.exp = ea + eb - 16, so 1 - e = 112 - (fa.exp + fb.exp).
  IrOperand under = s.op(Op::kSub, ir_imm(112), s.op(Op::kAdd, fa.exp, fb.exp));
  IrOperand live = s.nonzero(top);  // 0: an operand is zero
  IrOperand mag = s.round_shifted(s.op(Op::kOr, top, low), under, live);
  IrOperand normal = s.op(Op::kOr, mag, plus_zero ? s.op(Op::kMulLo, sign, live) : sign);
  // NaN: the larger is a NaN (hi - 1 >= infinity), or infinity times zero (hi >= infinity).
  IrOperand hi = s.op(Op::kMaxU, ma, mb);
  IrOperand special = s.setp(Op::kSetpGeU, hi, kInf);
  IrOperand nan = s.setp(Op::kSetpGeU, s.op(Op::kSub, hi, live), kInf);
  IrOperand edge = s.selp(ir_imm(kMag), s.op(Op::kOr, sign, kInf), nan);
  s.selp(edge, normal, special);
  return s.finish(d);
}

// a / b. A restoring division of the significands normalised to bit 23 (float_factor),
// one quotient bit a trip for 28 trips (a trip a round: the ROM, not the tokens, is what
// a float kernel runs out of): t = r - sb, whose sign bit u is 1 when the bit is 0;
// r = min.u(r, t) (t wraps above r then); nq = 2 nq + u collects the quotient's
// complement; r doubles (r < 2 sb < 2^25 throughout). Q = floor(sa / sb * 2^27) lies in
// [2^26, 2^28), so T = Q << 4 with the remainder's sticky bit leads at bit 31 or 30 as
// mul's T does, and goes on as mul's: one right shift with sticky by max(carry, 1 - e),
// round, pack. Special: a or b zero, infinite or NaN; then the result is 0 for |a| < |b|,
// infinity for |a| > |b| (each with the sign), NaN for |a| = |b| (0 / 0, inf / inf) or a
// NaN operand.
std::vector<IrInstr> float_div(IrOperand d, IrOperand a, IrOperand b, FloatSeq& s) {
  IrOperand sign = s.op(Op::kAnd, s.op(Op::kXor, a, b), kSign);
  IrOperand ma = s.op(Op::kAnd, a, kMag), mb = s.op(Op::kAnd, b, kMag);
  Factor fa = float_factor(ma, s), fb = float_factor(mb, s);
  IrOperand r = fa.sig;  // the remainder: the loop overwrites the dividend
  // nq starts as a lone 1 that every trip moves up a bit, whatever the operands: at bit 28
  // it ends the loop (28 trips, no counter), and the xor that takes the complement clears it.
  IrOperand nq = s.op(Op::kMov, ir_imm(1));
  s.loop([&] {
    IrOperand t = s.op(Op::kSub, r, fb.sig);
    s.set(nq, Op::kMadLo, nq, ir_imm(2), s.op(Op::kShrU, t, 31));
    s.set(r, Op::kMinU, r, t);
    s.set(r, Op::kAdd, r, r);
  }, [&] { return s.setp(Op::kSetpLtU, nq, int64_t{1} << 28); });
  IrOperand q = s.op(Op::kXor, nq, 0x1fffffff);
  IrOperand top = s.op(Op::kMadLo, q, ir_imm(16), s.nonzero(r));
  // T / 2^31 = sa / sb, so 1 - e = fb.exp - fa.exp - 125.
  IrOperand under = s.op(Op::kSub, s.op(Op::kSub, fb.exp, fa.exp), 125);
  IrOperand normal = s.op(Op::kOr, s.round_shifted(top, under), sign);
  // Special: ma or mb is 0 (ma - 1 wraps) or at least infinity.
  IrOperand ma1 = s.op(Op::kSub, ma, 1);
  IrOperand special = s.setp(Op::kSetpGeU, s.op(Op::kMaxU, ma1, s.op(Op::kSub, mb, 1)), kInf - 1);
  IrOperand infinite = s.op(Op::kOr, sign, kInf);
  IrOperand limit = s.selp(infinite, sign, s.setp(Op::kSetpGtU, ma, mb));
  IrOperand apart = s.setp(Op::kSetpNe, ma, mb);
  IrOperand numbers = s.setp(Op::kAndPred, apart, s.setp(Op::kSetpLeU, s.op(Op::kMaxU, ma, mb), kInf));
  IrOperand edge = s.selp(limit, ir_imm(kMag), numbers);
  s.selp(edge, normal, special);
  return s.finish(d);
}

// Two words of a 64-bit value.
struct Wide {
  IrOperand hi, lo;
};

// (v.hi, v.lo) >> n with every bit shifted out ORed into bit 0, for any n >= 0: a word for
// n >= 32, then the rest (a shift by 32 or more gives 0).
Wide shr64_sticky(Wide v, IrOperand n, FloatSeq& s) {
  IrOperand word = s.setp(Op::kSetpGeU, n, 32);
  IrOperand l1 = s.selp(v.hi, v.lo, word);
  IrOperand lost_word = s.selp(v.lo, ir_imm(0), word);
  IrOperand up = s.op(Op::kShl, v.hi, s.op(Op::kSub, ir_imm(32), n));  // n = 32: v.hi, which l1 is
  IrOperand oh = s.op(Op::kShrU, v.hi, n);
  IrOperand m = s.selp(s.op(Op::kSub, n, 32), n, word);
  IrOperand kept = s.op(Op::kShrU, l1, m);
  IrOperand lost = s.op(Op::kSub, l1, s.op(Op::kShl, kept, m));
  IrOperand sticky = s.nonzero(s.op(Op::kOr, lost_word, lost));
  return {oh, s.op(Op::kOr, s.op(Op::kOr, kept, up), sticky)};
}

// P << 8 for P = sa sb < 2^48: P >> 16 from sb's bytes (as mul's: each partial sum stays
// below 2^32), P's low word from mul.lo.
Wide product_shl8(IrOperand sa, IrOperand sb, FloatSeq& s) {
  IrOperand b0 = s.op(Op::kAnd, sb, 0xff);
  IrOperand p0 = s.op(Op::kShrU, s.op(Op::kMulLo, sa, b0), 8);
  IrOperand b1 = s.op(Op::kAnd, s.op(Op::kShrU, sb, 8), 0xff);
  IrOperand p1 = s.op(Op::kShrU, s.op(Op::kMadLo, sa, b1, p0), 8);
  IrOperand lo = s.op(Op::kShl, s.op(Op::kMulLo, sa, sb), 8);
  IrOperand b2 = s.op(Op::kShrU, sb, 16);
  return {s.op(Op::kShrU, s.op(Op::kMadLo, sa, b2, p1), 8), lo};
}

// fma's special case: a, b or c infinite or NaN. edge is the infinite one (the product's
// sign for it); nan: hab + zero_p above infinity (a NaN a or b, or infinity times zero),
// mc above it, or c the product's opposite infinity (edge's sign flipped is c).
struct FmaSpecial {
  IrOperand edge, nan, special, zero_p;  // zero_p: 1 when the product is 0
};
FmaSpecial fma_special(IrOperand ab, IrOperand c, IrOperand ma, IrOperand mb, IrOperand mc, FloatSeq& s) {
  IrOperand hab = s.op(Op::kMaxU, ma, mb);
  IrOperand mx = s.op(Op::kMaxU, hab, mc);
  IrOperand inf_p = s.op(Op::kOr, s.op(Op::kAnd, ab, kSign), kInf);
  IrOperand edge = s.selp(inf_p, c, s.setp(Op::kSetpGeU, hab, kInf));
  IrOperand zero_p = s.op(Op::kSub, ir_imm(1), s.nonzero(s.op(Op::kMinU, ma, mb)));
  IrOperand nan = s.setp(Op::kSetpGtU, s.op(Op::kMaxU, s.op(Op::kAdd, hab, zero_p), mc), kInf);
  nan = s.setp(Op::kOrPred, nan, s.setp(Op::kSetpEq, s.op(Op::kXor, edge, kSign), c));
  return {edge, nan, s.setp(Op::kSetpGeU, mx, kInf), zero_p};
}

// a * b + c with one rounding. The product P = sa sb of the significands (not normalised:
// a subnormal's is its fraction) is exact as P << 8 in two words (from P >> 16, which sb's
// bytes give as in mul, and P's low word from mul.lo), and c's significand C goes in the
// high word: C << 32. Both lead at bit 55 or below, so their sum or difference is exact in
// a signed 64-bit frame. The anchor X is the one of the larger frame exponent (value(P <<
// 8) = 2^(ea + eb - 308), value(C << 32) = 2^(ec - 182)); the other, Y, goes right by the
// difference with sticky. Y loses bits only past its zero bits (P's 8, C's 32), and then it
// is far below X (a product with a subnormal factor still leads at bit 31 or above; when
// c is subnormal, the subnormal grid is at bit 32), so the sticky bit stays at least 7
// bits under the result's last place. S = X +- Y, |S| and its sign; a
// word step (a high word of 0: the low word moves up) and a leading-zero count give the
// left shift that puts S's leading one at bit 62, limited by the exponent (a subnormal
// result: a right shift); S >> (32 - shift) with sticky is T, leading at bit 30; rounded
// and packed. Both right shifts with sticky are one copy of the 64-bit shift, which the
// sequence runs in a loop of two passes (the ROM, not the tokens, is what a float kernel
// runs out of). The sign is X's, flipped when S < 0; an exact zero's is the signs ANDed
// (-0 only for -0 + -0). Special: a, b or c infinite or NaN: NaN for a NaN, infinity times
// zero, or an infinite product plus the opposite infinity; else the infinite one (the
// product's sign for it). 119 ops, registers kept few: the kernel around it has 15.
std::vector<IrInstr> float_fma(IrOperand d, IrOperand a, IrOperand b, IrOperand c, FloatSeq& s) {
  IrOperand ab = s.op(Op::kXor, a, b);  // the product's sign, bit 31
  IrOperand ma = s.op(Op::kAnd, a, kMag), mb = s.op(Op::kAnd, b, kMag), mc = s.op(Op::kAnd, c, kMag);
  // Special: the rest is skipped to the last op, the only one that writes d (it carries a
  // guard the fma has, and d may be c's register): d = nan ? NaN : edge.
  FmaSpecial sp = fma_special(ab, c, ma, mb, mc, s);
  const size_t skip = s.branch(0, sp.special);
  // Significands and exponents (value = s 2^(e - 150)). diff = EP - EC = ea + eb - ec - 126,
  // and a zero product never anchors (c's bits would go into the sticky bit).
  IrOperand ea = s.exponent(ma);
  IrOperand sa = s.significand(ma, ea);
  IrOperand eb = s.exponent(mb);
  IrOperand sb = s.significand(mb, eb);
  IrOperand q = s.op(Op::kSub, s.op(Op::kAdd, ea, eb), 126);
  IrOperand ec = s.exponent(mc);
  IrOperand sc = s.significand(mc, ec);
  IrOperand diff = s.op(Op::kMadLo, sp.zero_p, ir_imm(-(1 << 20)), s.op(Op::kSub, q, ec));
  IrOperand swap = s.setp(Op::kSetpLtS, diff, 0);  // C anchors
  IrOperand lim = s.selp(ec, q, swap);              // the anchor's frame exponent + 182
  IrOperand sx = s.selp(c, ab, swap);               // the anchor's sign
  IrOperand zs = s.op(Op::kAnd, ab, c);             // an exact zero's: -0 only for -0 + -0
  IrOperand flip = s.sign_mask(s.op(Op::kXor, ab, c));  // -1: subtract
  IrOperand n = s.op(Op::kAbs, diff);
  const Wide p = product_shl8(sa, sb, s);  // C << 32 = (sc, 0)
  IrOperand xh = s.selp(sc, p.hi, swap);
  IrOperand xl = s.selp(ir_imm(0), p.lo, swap);
  // The shift's arguments: pass 1 Y by |EP - EC|, pass 2 |S| by 32 - the left shift. The
  // pass flag is the special predicate, false on this path.
  Wide v = {s.selp(p.hi, sc, swap), s.selp(p.lo, ir_imm(0), swap)};
  const int top = s.here();
  const Wide y = shr64_sticky(v, n, s);
  const size_t done = s.branch(0, sp.special);
  // S = X + Y or X - Y, sg = +-1; the low word wrapped when it is below xl (above, for -).
  IrOperand sg = s.op(Op::kOr, flip, 1);
  IrOperand sl = s.op(Op::kMadLo, y.lo, sg, xl);
  IrOperand sl_flip = s.op(Op::kXor, sl, flip);
  IrOperand wrapped = s.setp(Op::kSetpLtU, sl_flip, s.op(Op::kXor, xl, flip));
  IrOperand carry = s.selp(sg, ir_imm(0), wrapped);
  IrOperand sh = s.op(Op::kAdd, s.op(Op::kMadLo, y.hi, sg, xh), carry);
  // |S|: S's sign in every bit; the low word negated, the high word complemented plus the
  // carry (1 when the low word is 0).
  IrOperand neg = s.sign_mask(sh);
  IrOperand ml = s.op(Op::kSub, s.op(Op::kXor, sl, neg), neg);
  IrOperand borrow = s.op(Op::kSub, s.nonzero(sl), 1);
  IrOperand mh = s.op(Op::kMadLo, neg, borrow, s.op(Op::kXor, sh, neg));
  // A high word of 0 takes the low one, and 32 off the exponent.
  IrOperand high0 = s.setp(Op::kSetpEq, mh, 0);
  s.set(v.hi, Op::kSelp, ml, mh, high0);
  s.set(v.lo, Op::kSelp, ir_imm(0), ml, high0);
  lim = s.op(Op::kSub, lim, s.selp(ir_imm(32), ir_imm(0), high0));
  // The sign: X's, flipped when S < 0, or for an exact zero zs (which packs as 0).
  IrOperand live = s.setp(Op::kSetpNe, v.hi, 0);
  IrOperand sign = s.selp(s.op(Op::kXor, sx, neg), zs, live);
  lim = s.selp(lim, ir_imm(0), live);
  // The left shift putting the leading one at bit 62 is clz - 1, at most lim + 6 (e >= 1):
  // less 6, min(clz - 7, lim); T = |S| >> (26 - that); e - 1 = lim - that.
  IrOperand shift = s.op(Op::kMinS, s.op(Op::kSub, s.op(Op::kClz, v.hi), 7), lim);
  s.set(n, Op::kSub, ir_imm(26), shift);
  IrOperand e1 = s.op(Op::kSub, lim, shift);
  s.set_pred(sp.special, true);  // pass 2
  s.branch(top);
  s.land(done);
  IrOperand mag = s.pack(e1, s.round_even(y.lo));
  s.set(sp.edge, Op::kOr, mag, s.op(Op::kAnd, sign, kSign));
  s.land(skip);
  s.selp(ir_imm(kMag), sp.edge, sp.nan);  // nan is false here unless special
  return s.finish(d);
}

// sqrt(a) for a positive finite a: the significand normalised to bit 23 shifted left by
// 1 or 2 (the exponent left even) lies in [2^24, 2^26); M = that << 26 has 26 bit pairs,
// and the digit-by-digit root takes one a trip (as div's loop): rem = 4 rem + the next pair,
// t = rem - (4 root + 1), rem = min.u(rem, t), root = 2 root + (t >= 0). The root R of M
// lies in [2^25, 2^26): T = R << 5 with the remainder's sticky bit leads at bit 30, never
// subnormal or infinite; rounded and packed. nroot = ~root, so that t's sign bit is the
// complement of the root's next bit: t = 4 nroot + rem + 3, nroot = 2 nroot + u.
// Special: +-0 and +inf are their own roots; NaN and every other negative a give NaN.
std::vector<IrInstr> float_sqrt(IrOperand d, IrOperand a, FloatSeq& s) {
  Factor f = float_factor(a, s);  // for a special a, values never used
  IrOperand sh = s.op(Op::kSub, ir_imm(2), s.op(Op::kAnd, f.exp, 1));
  IrOperand m = s.op(Op::kShl, f.sig, s.op(Op::kAdd, sh, 6));  // the first pair at bits 31, 30
  IrOperand rem = s.op(Op::kMov, ir_imm(0)), nroot = s.op(Op::kMov, ir_imm(-1));
  s.repeat(26, [&] {
    s.set(rem, Op::kMadLo, rem, ir_imm(4), s.op(Op::kShrU, m, 30));
    s.set(m, Op::kShl, m, ir_imm(2));
    IrOperand t = s.op(Op::kAdd, s.op(Op::kMadLo, nroot, ir_imm(4), rem), 3);
    s.set(rem, Op::kMinU, rem, t);
    s.set(nroot, Op::kMadLo, nroot, ir_imm(2), s.op(Op::kShrU, t, 31));
  });
  IrOperand root = s.op(Op::kNot, nroot);
  IrOperand top = s.op(Op::kMadLo, root, ir_imm(32), s.nonzero(rem));
  // a = sig << sh * 2^(exp - 142 - sh) and T / 2^30 = sqrt(sig << sh) / 2^12, so
  // e - 1 = (exp - sh + 134) / 2 (exp - sh is even).
  IrOperand e1 = s.op(Op::kShrS, s.op(Op::kAdd, s.op(Op::kSub, f.exp, sh), 134), 1);
  IrOperand normal = s.op(Op::kMadLo, e1, ir_imm(0x800000), s.round_even(top));
  IrOperand special = s.setp(Op::kSetpGeU, s.op(Op::kSub, a, 1), kInf - 1);  // 0, or above +inf's last finite
  IrOperand not_inf = s.op(Op::kXor, a, kInf);
  IrOperand itself = s.setp(Op::kSetpEq, s.op(Op::kMinU, not_inf, s.op(Op::kShl, a, 1)), 0);  // +inf, +-0
  IrOperand edge = s.selp(a, ir_imm(kMag), itself);
  s.selp(edge, normal, special);
  return s.finish(d);
}

// (float) a for a signed or unsigned a, by add.f32.rnd: its word s is the integer (below
// 2^31) and its operands a float of exponent 156 (s << 0 x 2^(156 - 156)), so the layers
// normalise, round and pack it. Signed: |a| at most 2^31 - 1 (INT_MIN's 2^31 rounds the same
// as 2^31 - 1), the sign ORed in. Unsigned from 2^31: s = a >> 1 with the lost bit kept as
// sticky (the last place is then bit 8 of a) and exponent 157.
std::vector<IrInstr> float_from_int(IrOperand d, IrOperand a, bool is_signed, FloatSeq& s) {
  if (is_signed) {
    IrOperand mag = s.op(Op::kAbs, s.op(Op::kMaxS, a, -0x7fffffff));
    IrOperand rounded = s.op(Op::kAddFRnd, mag, ir_imm(0x4e000000), ir_imm(0x4e000000));
    s.op(Op::kOr, rounded, s.op(Op::kAnd, a, kSign));
    return s.finish(d);
  }
  IrOperand top = s.op(Op::kShrU, a, 31);
  IrOperand sum = s.op(Op::kOr, s.op(Op::kShrU, a, top), s.op(Op::kAnd, a, top));
  IrOperand scale = s.op(Op::kMadLo, top, ir_imm(0x800000), ir_imm(0x4e000000));
  s.op(Op::kAddFRnd, sum, scale, scale);
  return s.finish(d);
}

// cvt.r{n,m,p,z}i.f32.f32: a rounded to an integral float, with the float steps. For
// |a| < 2^23: toward zero is (float)(int)a (cvt.s32.f32, then add.f32.rnd of the integer's
// magnitude, exact below 2^23) with a's sign, so -0.5 gives -0; nearest even is
// (|a| + 2^23) - 2^23, whose first add rounds at the units (ties to even), with a's sign;
// floor and ceil are the truncation moved by one where it is above a (floor) or below it
// (ceil). |a| >= 2^23 (infinities too) is a itself, NaN the canonical NaN.
std::vector<IrInstr> float_round(IrOperand d, IrOperand a, Op op, FloatSeq& s) {
  IrOperand ma = s.op(Op::kAnd, a, kMag);
  IrOperand sign = s.op(Op::kAnd, a, kSign);
  IrOperand small;  // the result for |a| < 2^23
  if (op == Op::kRndNF) {
    IrOperand up = s.op(Op::kAddFRnd, s.op(Op::kAddFSig, ma, ir_imm(0x4b000000)), ma, ir_imm(0x4b000000));
    IrOperand whole = s.op(Op::kAddFRnd, s.op(Op::kAddFSig, up, ir_imm(0xcb000000)), up, ir_imm(0xcb000000));
    small = s.op(Op::kOr, whole, sign);
  } else {
    IrOperand magnitude = s.op(Op::kAbs, s.op(Op::kCvtSF, a));
    IrOperand trunc = s.op(Op::kOr, s.op(Op::kAddFRnd, magnitude, ir_imm(0x4e000000), ir_imm(0x4e000000)), sign);
    small = trunc;
    if (op != Op::kRndZF) {
      const bool floor = op == Op::kRndMF;
      const int64_t step = floor ? 0xbf800000 : kOne;  // -1 or +1
      IrOperand moved = s.op(Op::kAddFRnd, s.op(Op::kAddFSig, trunc, ir_imm(step)), trunc, ir_imm(step));
      small = s.selp(moved, trunc, s.setp(floor ? Op::kSetpLtF : Op::kSetpGtF, a, trunc));
    }
  }
  IrOperand nan = s.setp(Op::kSetpGtU, ma, kInf);
  IrOperand integral = s.selp(ir_imm(kMag), a, nan);
  IrOperand big = s.setp(Op::kSetpGeU, ma, 0x4b000000);
  s.selp(integral, small, big);
  return s.finish(d);
}

}  // namespace

IrInstr fold_fma(IrInstr in) {
  auto become = [&](Op op, IrOperand a, IrOperand b) {
    in.op = op, in.a = a, in.b = b, in.c = {};
    return in;
  };
  if (in.op != Op::kFmaF) return in;
  if (is_word(in.c, kSign)) return become(Op::kMulF, in.a, in.b);
  if (is_word(in.a, kOne) || is_word(in.a, kOne | kSign)) std::swap(in.a, in.b);
  if (is_word(in.b, kOne)) return become(Op::kAddF, in.a, in.c);
  if (is_word(in.b, kOne | kSign)) return become(Op::kSubF, in.c, in.a);
  return in;
}

std::optional<std::vector<IrInstr>> expand_float_op(const IrInstr& in, int at, const FreshReg& fresh,
                                                    const FreshReg& pred) {
  FloatSeq s(at, fresh, pred);
  switch (in.op) {
    case Op::kAddF: return float_add(in.d, in.a, in.b, s);
    case Op::kSubF: return float_add(in.d, in.a, s.op(Op::kXor, in.b, kSign), s);
    case Op::kMulF: return float_mul(in.d, in.a, in.b, s);
    case Op::kDivF: return float_div(in.d, in.a, in.b, s);
    case Op::kFmaF:
      if (is_word(in.c, 0)) return float_mul(in.d, in.a, in.b, s, true);
      return float_fma(in.d, in.a, in.b, in.c, s);
    case Op::kSqrtF: return float_sqrt(in.d, in.a, s);
    case Op::kCvtFS:
    case Op::kCvtFU: return float_from_int(in.d, in.a, in.op == Op::kCvtFS, s);
    case Op::kRndNF:
    case Op::kRndMF:
    case Op::kRndPF:
    case Op::kRndZF: return float_round(in.d, in.a, in.op, s);
    default: return std::nullopt;
  }
}

}  // namespace qgpu
