// Expansions of PTX bit manipulation into the machine's ops. Each is the textbook
// identity, written out so that the interpreter (and so the model) computes it exactly.
#include "compiler/lower_expand.h"

namespace qgpu {

std::vector<IrInstr> expand_funnel_shift(IrOperand d, IrOperand lo, IrOperand hi, IrOperand n, bool left,
                                         bool wrap, const FreshReg& fresh) {
  IrOperand amt = fresh(), rest = fresh(), x = fresh(), y = fresh();
  return {
      wrap ? IrInstr{.op = Op::kAnd, .d = amt, .a = n, .b = ir_imm(31)}
           : IrInstr{.op = Op::kMinU, .d = amt, .a = n, .b = ir_imm(32)},
      {.op = Op::kSub, .d = rest, .a = ir_imm(32), .b = amt},
      {.op = left ? Op::kShl : Op::kShrU, .d = x, .a = left ? hi : lo, .b = amt},
      {.op = left ? Op::kShrU : Op::kShl, .d = y, .a = left ? lo : hi, .b = rest},
      {.op = Op::kOr, .d = d, .a = x, .b = y},
  };
}

std::vector<IrInstr> expand_extend(IrOperand d, IrOperand v, int bytes, bool sign, const FreshReg& fresh) {
  if (!sign) return {{.op = Op::kAnd, .d = d, .a = v, .b = ir_imm(bytes == 1 ? 0xff : 0xffff)}};
  const int64_t shift = 32 - 8 * bytes;
  IrOperand up = fresh();
  return {{.op = Op::kShl, .d = up, .a = v, .b = ir_imm(shift)}, {.op = Op::kShrS, .d = d, .a = up, .b = ir_imm(shift)}};
}

std::vector<IrInstr> expand_bfe(IrOperand d, IrOperand a, int64_t pos, int64_t len, bool sign,
                                const FreshReg& fresh) {
  IrOperand t = fresh();
  int64_t left = 32 - pos - len;
  return {
      {.op = Op::kShl, .d = t, .a = a, .b = ir_imm(left)},
      {.op = sign ? Op::kShrS : Op::kShrU, .d = d, .a = t, .b = ir_imm(left + pos)},
  };
}

// Each result byte i is byte (n & 3) of a (n < 4) or b, n = selector nibble i.
std::vector<IrInstr> expand_prmt(IrOperand d, IrOperand a, IrOperand b, int64_t selector, const FreshReg& fresh) {
  std::vector<IrInstr> out;
  IrOperand acc = ir_imm(0);
  for (int i = 0; i < 4; ++i) {
    int n = static_cast<int>(selector >> (4 * i) & 7);
    const IrOperand& src = n < 4 ? a : b;
    if (src.kind == IrOperand::Kind::kImm && (src.imm >> (8 * (n & 3)) & 0xff) == 0) continue;
    IrOperand t = fresh(), m = fresh(), sh = fresh(), next = fresh();
    out.push_back({.op = Op::kShrU, .d = t, .a = src, .b = ir_imm(8 * (n & 3))});
    out.push_back({.op = Op::kAnd, .d = m, .a = t, .b = ir_imm(0xff)});
    out.push_back({.op = Op::kShl, .d = sh, .a = m, .b = ir_imm(8 * i)});
    out.push_back({.op = Op::kOr, .d = next, .a = acc, .b = sh});
    acc = next;
  }
  out.push_back({.op = Op::kMov, .d = d, .a = acc});
  return out;
}

std::vector<IrInstr> expand_shr64(IrOperand d, IrOperand lo, IrOperand hi, int64_t k, bool sign,
                                  const FreshReg& fresh) {
  if (k >= 32) return {{.op = sign ? Op::kShrS : Op::kShrU, .d = d, .a = hi, .b = ir_imm(k - 32)}};
  if (k == 0) return {{.op = Op::kMov, .d = d, .a = lo}};
  IrOperand low = fresh(), up = fresh();
  return {
      {.op = Op::kShrU, .d = low, .a = lo, .b = ir_imm(k)},
      {.op = Op::kShl, .d = up, .a = hi, .b = ir_imm(32 - k)},
      {.op = Op::kOr, .d = d, .a = low, .b = up},
  };
}

// Hacker's Delight 8-2 (mulhu, mulhs), 16-bit halves a = a1:a0, b = b1:b0:
//   t = a1 b0 + (a0 b0 >> 16); w = a0 b1 + (t & 0xffff); hi = a1 b1 + (t >> 16) + (w >> 16).
// Each product is at most (2^16 - 1)^2 = 2^32 - 2^17 + 1 and each added term under 2^16,
// so no step wraps. Immediate halves are folded by optimise().
std::vector<IrInstr> expand_mul_hi(IrOperand d, IrOperand a, IrOperand b, bool sign, const FreshReg& fresh) {
  IrOperand a0 = fresh(), a1 = fresh(), b0 = fresh(), b1 = fresh(), p = fresh(), p16 = fresh();
  IrOperand t = fresh(), t0 = fresh(), w = fresh(), w16 = fresh(), t16 = fresh(), h = fresh();
  std::vector<IrInstr> out = {
      {.op = Op::kAnd, .d = a0, .a = a, .b = ir_imm(0xffff)},
      {.op = Op::kAnd, .d = b0, .a = b, .b = ir_imm(0xffff)},
      {.op = Op::kMulLo, .d = p, .a = a0, .b = b0},
      {.op = Op::kShrU, .d = p16, .a = p, .b = ir_imm(16)},
      {.op = Op::kShrU, .d = a1, .a = a, .b = ir_imm(16)},
      {.op = Op::kMadLo, .d = t, .a = a1, .b = b0, .c = p16},
      {.op = Op::kShrU, .d = b1, .a = b, .b = ir_imm(16)},
      {.op = Op::kAnd, .d = t0, .a = t, .b = ir_imm(0xffff)},
      {.op = Op::kMadLo, .d = w, .a = a0, .b = b1, .c = t0},
      {.op = Op::kShrU, .d = w16, .a = w, .b = ir_imm(16)},
      {.op = Op::kShrU, .d = t16, .a = t, .b = ir_imm(16)},
      {.op = Op::kMadLo, .d = h, .a = a1, .b = b1, .c = t16},
      {.op = Op::kAdd, .d = sign ? fresh() : d, .a = h, .b = w16},
  };
  if (!sign) return out;
  // mulhs = mulhu - (a < 0 ? b : 0) - (b < 0 ? a : 0): (a >> 31) is all ones when a < 0.
  IrOperand hu = out.back().d, sa = fresh(), ma = fresh(), h1 = fresh(), sb = fresh(), mb = fresh();
  out.insert(out.end(), {
      {.op = Op::kShrS, .d = sa, .a = a, .b = ir_imm(31)},
      {.op = Op::kAnd, .d = ma, .a = sa, .b = b},
      {.op = Op::kSub, .d = h1, .a = hu, .b = ma},
      {.op = Op::kShrS, .d = sb, .a = b, .b = ir_imm(31)},
      {.op = Op::kAnd, .d = mb, .a = sb, .b = a},
      {.op = Op::kSub, .d = d, .a = h1, .b = mb},
  });
  return out;
}

// Restoring division of n = |a| by z = |b|, one dividend bit per round from the top one
// down: x = 2x + bit; if x >= z then x -= z and the quotient bit is 1. 2x + 1 never wraps:
// before the round for bit j, x = (n >> (j + 1)) mod z < 2^(31 - j). The subtraction is
// min.u(x, x - z): x - z wraps above x when x < z (and is x when z = 0), so a remainder
// needs no predicate. Rounds go in pairs from an odd top index (a leading 0 bit more:
// x stays 0), so the loop's count, compare and branch are paid once per two bits, and
// one shift serves both. Signed results take their signs after: the quotient's from
// a ^ b, the remainder's from a; abs(INT_MIN) is 2^31 unsigned, so INT_MIN / -1 = INT_MIN
// and INT_MIN % -1 = 0. With z = 0 every round subtracts 0: x ends as n (a % 0 = a) and
// the quotient is forced to all ones (signed: -1, or 1 when a < 0).
std::vector<IrInstr> expand_divide(IrOperand d, IrOperand a, IrOperand b, Op op, int at, const FreshReg& fresh,
                                   const FreshReg& pred) {
  const bool sign = op == Op::kDivS || op == Op::kRemS, quotient = op == Op::kDivS || op == Op::kDivU;
  std::vector<IrInstr> out;
  IrOperand n = a, z = b;
  if (sign) {
    n = fresh(), z = fresh();
    out.push_back({.op = Op::kAbs, .d = n, .a = a});
    out.push_back({.op = Op::kAbs, .d = z, .a = b});
  }
  IrOperand j = fresh(), j1 = fresh(), x = fresh(), q = fresh(), u = fresh(), hi = fresh(), bit = fresh(),
            t = fresh(), s = fresh(), p = pred(), more = pred();
  out.insert(out.end(), {
      {.op = Op::kClz, .d = j, .a = n},
      {.op = Op::kSub, .d = j, .a = ir_imm(31), .b = j},  // the top bit; -1 when n = 0
      {.op = Op::kOr, .d = j, .a = j, .b = ir_imm(1)},    // odd: rounds in pairs
      {.op = Op::kMov, .d = x, .a = ir_imm(0)},
  });
  if (quotient) out.push_back({.op = Op::kMov, .d = q, .a = ir_imm(0)});
  out.push_back({.op = Op::kSetpLtS, .d = p, .a = j, .b = ir_imm(0)});
  const size_t skip = out.size();
  out.push_back({.op = Op::kBra, .guard = p.index});
  const int top = at + static_cast<int>(out.size());
  auto round = [&](IrOperand digit) {
    out.push_back({.op = Op::kMadLo, .d = x, .a = x, .b = ir_imm(2), .c = digit});
    if (quotient) out.push_back({.op = Op::kSetpGeU, .d = p, .a = x, .b = z});
    out.push_back({.op = Op::kSub, .d = t, .a = x, .b = z});
    out.push_back({.op = Op::kMinU, .d = x, .a = x, .b = t});
    if (!quotient) return;
    out.push_back({.op = Op::kSelp, .d = s, .a = ir_imm(1), .b = ir_imm(0), .c = p});
    out.push_back({.op = Op::kMadLo, .d = q, .a = q, .b = ir_imm(2), .c = s});
  };
  out.insert(out.end(), {
      {.op = Op::kSub, .d = j1, .a = j, .b = ir_imm(1)},
      {.op = Op::kShrU, .d = u, .a = n, .b = j1},  // bits j and j - 1 at the bottom
      {.op = Op::kShrU, .d = hi, .a = u, .b = ir_imm(1)},
      {.op = Op::kAnd, .d = hi, .a = hi, .b = ir_imm(1)},
  });
  round(hi);
  out.push_back({.op = Op::kAnd, .d = bit, .a = u, .b = ir_imm(1)});
  round(bit);
  out.insert(out.end(), {
      {.op = Op::kSub, .d = j, .a = j, .b = ir_imm(2)},
      {.op = Op::kSetpGeS, .d = more, .a = j, .b = ir_imm(0)},
      {.op = Op::kBra, .guard = more.index, .target = top},
  });
  out[skip].target = at + static_cast<int>(out.size());
  if (!quotient) {
    if (!sign) return out.push_back({.op = Op::kMov, .d = d, .a = x}), out;
    IrOperand neg = fresh();
    out.insert(out.end(), {
        {.op = Op::kSetpLtS, .d = p, .a = a, .b = ir_imm(0)},
        {.op = Op::kNeg, .d = neg, .a = x},
        {.op = Op::kSelp, .d = d, .a = neg, .b = x, .c = p},
    });
    return out;
  }
  IrOperand qq = sign ? fresh() : d;
  out.insert(out.end(), {
      {.op = Op::kSetpEq, .d = p, .a = z, .b = ir_imm(0)},
      {.op = Op::kSelp, .d = qq, .a = ir_imm(-1), .b = q, .c = p},
  });
  if (!sign) return out;
  IrOperand sg = fresh(), neg = fresh();
  out.insert(out.end(), {
      {.op = Op::kXor, .d = sg, .a = a, .b = b},
      {.op = Op::kSetpLtS, .d = p, .a = sg, .b = ir_imm(0)},
      {.op = Op::kNeg, .d = neg, .a = qq},
      {.op = Op::kSelp, .d = d, .a = neg, .b = qq, .c = p},
  });
  return out;
}

// PTX's shfl with 2-bit lane fields: seg = (c >> 8) & 3, clamp = c & 3, min = lane & seg,
// max = min | (clamp & ~seg & 3); idx: j = min | (b & ~seg & 3), bfly: j = lane ^ (b & 3),
// down: j = lane + (b & 31), up: j = lane - (b & 31); j out of [.., max] (up: [max, ..])
// gives the lane its own value. The area's address is every memory op's offset.
std::vector<IrInstr> expand_shfl(IrOperand d, IrOperand a, IrOperand b, IrOperand c, ShflMode mode, int area_word,
                                 const FreshReg& fresh, const FreshReg& pred) {
  const IrOperand lane = ir_special(Special::kLaneid);
  const int64_t at = 4 * area_word;
  IrOperand base = fresh(), self = fresh(), c8 = fresh(), seg = fresh(), rest = fresh(), cv = fresh(),
            minl = fresh(), maxl = fresh(), bb = fresh(), j = fresh(), js = fresh(), addr = fresh(), ok = pred();
  std::vector<IrInstr> out = {
      {.op = Op::kShl, .d = base, .a = ir_special(Special::kWarpid), .b = ir_imm(4)},  // 4 words a warp
      {.op = Op::kMadLo, .d = self, .a = lane, .b = ir_imm(4), .c = base},
      {.op = Op::kSt, .a = self, .b = a, .offset = at},
      {.op = Op::kShrU, .d = c8, .a = c, .b = ir_imm(8)},
      {.op = Op::kAnd, .d = seg, .a = c8, .b = ir_imm(kLanes - 1)},
      {.op = Op::kXor, .d = rest, .a = seg, .b = ir_imm(kLanes - 1)},  // ~seg in 2 bits
      {.op = Op::kAnd, .d = cv, .a = c, .b = rest},
      {.op = Op::kAnd, .d = minl, .a = lane, .b = seg},
      {.op = Op::kOr, .d = maxl, .a = minl, .b = cv},
  };
  switch (mode) {
    case ShflMode::kIdx:
      out.push_back({.op = Op::kAnd, .d = bb, .a = b, .b = rest});
      out.push_back({.op = Op::kOr, .d = j, .a = minl, .b = bb});
      break;
    case ShflMode::kBfly:
      out.push_back({.op = Op::kAnd, .d = bb, .a = b, .b = ir_imm(kLanes - 1)});
      out.push_back({.op = Op::kXor, .d = j, .a = lane, .b = bb});
      break;
    case ShflMode::kUp:
    case ShflMode::kDown:
      out.push_back({.op = Op::kAnd, .d = bb, .a = b, .b = ir_imm(31)});
      out.push_back({.op = mode == ShflMode::kUp ? Op::kSub : Op::kAdd, .d = j, .a = lane, .b = bb});
      break;
  }
  out.insert(out.end(), {
      {.op = mode == ShflMode::kUp ? Op::kSetpGeS : Op::kSetpLeS, .d = ok, .a = j, .b = maxl},
      {.op = Op::kSelp, .d = js, .a = j, .b = lane, .c = ok},
      {.op = Op::kMadLo, .d = addr, .a = js, .b = ir_imm(4), .c = base},
      {.op = Op::kLd, .d = d, .a = addr, .offset = at},
  });
  return out;
}

// all is the ballot of !p, which must be empty; any the ballot of p, which must not be.
std::vector<IrInstr> expand_vote(IrOperand d, IrOperand p, IrOperand mask, VoteMode mode, int area_word,
                                 const FreshReg& fresh) {
  const int64_t at = 4 * area_word;
  const bool all = mode == VoteMode::kAll;
  IrOperand word = fresh(), zero = fresh(), mine = fresh(), bit = fresh(), old = fresh(), got = fresh(),
            r = mode == VoteMode::kBallot || mode == VoteMode::kActive ? d : fresh();
  std::vector<IrInstr> out = {
      {.op = Op::kShl, .d = word, .a = ir_special(Special::kWarpid), .b = ir_imm(2)},
      {.op = Op::kMov, .d = zero, .a = ir_imm(0)},
      {.op = Op::kSt, .a = word, .b = zero, .offset = at},
      {.op = Op::kShl, .d = mine, .a = ir_imm(1), .b = ir_special(Special::kLaneid)},
      p.kind == IrOperand::Kind::kImm ? IrInstr{.op = Op::kMov, .d = bit, .a = (p.imm != 0) != all ? mine : zero}
      : all ? IrInstr{.op = Op::kSelp, .d = bit, .a = ir_imm(0), .b = mine, .c = p}
            : IrInstr{.op = Op::kSelp, .d = bit, .a = mine, .b = ir_imm(0), .c = p},
      {.op = Op::kAtomAdd, .d = old, .a = word, .b = bit, .offset = at},
      {.op = Op::kLd, .d = got, .a = word, .offset = at},
      {.op = Op::kAnd, .d = r, .a = got, .b = mask},
  };
  if (mode == VoteMode::kAny) out.push_back({.op = Op::kSetpNe, .d = d, .a = r, .b = ir_imm(0)});
  if (all) out.push_back({.op = Op::kSetpEq, .d = d, .a = r, .b = ir_imm(0)});
  return out;
}

std::optional<std::vector<IrInstr>> expand_model_op(const IrInstr& in, int at, const FreshReg& fresh,
                                                    const FreshReg& pred) {
  switch (in.op) {
    case Op::kMulHiS:
    case Op::kMulHiU: return expand_mul_hi(in.d, in.a, in.b, in.op == Op::kMulHiS, fresh);
    case Op::kDivS:
    case Op::kDivU:
    case Op::kRemS:
    case Op::kRemU: return expand_divide(in.d, in.a, in.b, in.op, at, fresh, pred);
    default: return std::nullopt;
  }
}

}  // namespace qgpu
