// One readable case per op. Signed views are int32_t; all wrap-around is done in
// uint32_t so that nothing here is undefined behaviour in C++.
#include "gpu/alu.h"

#include <bit>

#include "base/error.h"

namespace qgpu {
namespace {

constexpr uint32_t kIntMin = 0x80000000u;

int32_t s(uint32_t v) { return static_cast<int32_t>(v); }

uint32_t div_s(uint32_t a, uint32_t b) {
  if (b == 0) return s(a) < 0 ? 1u : 0xffffffffu;  // |a| / 0 = 0xffffffff, then the sign
  if (a == kIntMin && b == 0xffffffffu) return kIntMin;
  return static_cast<uint32_t>(s(a) / s(b));
}

uint32_t rem_s(uint32_t a, uint32_t b) {
  if (b == 0) return a;
  if (a == kIntMin && b == 0xffffffffu) return 0;
  return static_cast<uint32_t>(s(a) % s(b));
}

uint32_t mul_hi_s(uint32_t a, uint32_t b) {
  int64_t p = static_cast<int64_t>(s(a)) * s(b);
  return static_cast<uint32_t>(static_cast<uint64_t>(p) >> 32);
}

uint32_t mul_hi_u(uint32_t a, uint32_t b) {
  return static_cast<uint32_t>(static_cast<uint64_t>(a) * b >> 32);
}

uint32_t shr_s(uint32_t a, uint32_t b) {
  if (b >= 32) return s(a) < 0 ? 0xffffffffu : 0;
  return static_cast<uint32_t>(s(a) >> b);
}

uint32_t brev(uint32_t a) {
  uint32_t r = 0;
  for (int i = 0; i < 32; ++i) r |= (a >> i & 1u) << (31 - i);
  return r;
}

}  // namespace

uint32_t alu(Op op, uint32_t a, uint32_t b, uint32_t c) {
  switch (op) {
    case Op::kMov: return a;
    case Op::kAdd: return a + b;
    case Op::kSub: return a - b;
    case Op::kMulLo: return a * b;
    case Op::kMulHiS: return mul_hi_s(a, b);
    case Op::kMulHiU: return mul_hi_u(a, b);
    case Op::kMadLo: return a * b + c;
    case Op::kDivS: return div_s(a, b);
    case Op::kDivU: return b == 0 ? 0xffffffffu : a / b;
    case Op::kRemS: return rem_s(a, b);
    case Op::kRemU: return b == 0 ? a : a % b;
    case Op::kNeg: return 0u - a;
    case Op::kAbs: return s(a) < 0 ? 0u - a : a;
    case Op::kMinS: return s(a) < s(b) ? a : b;
    case Op::kMinU: return a < b ? a : b;
    case Op::kMaxS: return s(a) > s(b) ? a : b;
    case Op::kMaxU: return a > b ? a : b;
    case Op::kAnd: return a & b;
    case Op::kOr: return a | b;
    case Op::kXor: return a ^ b;
    case Op::kNot: return ~a;
    case Op::kShl: return b >= 32 ? 0 : a << b;
    case Op::kShrU: return b >= 32 ? 0 : a >> b;
    case Op::kShrS: return shr_s(a, b);
    case Op::kPopc: return static_cast<uint32_t>(std::popcount(a));
    case Op::kClz: return static_cast<uint32_t>(std::countl_zero(a));
    case Op::kBrev: return brev(a);
    case Op::kSelp: return c ? a : b;
    case Op::kAddFSig: return add_f32_sig(a, b);
    case Op::kAddFRnd: return add_f32_rnd(a, b, c);
    default: break;
  }
  if (is_float_op(op)) return alu_f32(op, a, b, c);
  CHECK(false && "alu: not a value op");
}

bool compare(Op op, uint32_t a, uint32_t b) {
  switch (op) {
    case Op::kSetpEq: return a == b;
    case Op::kSetpNe: return a != b;
    case Op::kSetpLtS: return s(a) < s(b);
    case Op::kSetpLeS: return s(a) <= s(b);
    case Op::kSetpGtS: return s(a) > s(b);
    case Op::kSetpGeS: return s(a) >= s(b);
    case Op::kSetpLtU: return a < b;
    case Op::kSetpLeU: return a <= b;
    case Op::kSetpGtU: return a > b;
    case Op::kSetpGeU: return a >= b;
    default: break;
  }
  if (is_float_op(op)) return compare_f32(op, a, b);
  CHECK(false && "compare: not a setp op");
}

bool pred_logic(Op op, bool a, bool b) {
  switch (op) {
    case Op::kAndPred: return a && b;
    case Op::kOrPred: return a || b;
    case Op::kXorPred: return a != b;
    case Op::kNotPred: return !a;
    case Op::kMovPred: return a;
    default: break;
  }
  CHECK(false && "pred_logic: not a predicate op");
}

uint32_t atomic_update(Op op, uint32_t old, uint32_t b, uint32_t c) {
  switch (op) {
    case Op::kAtomAdd: return old + b;
    case Op::kAtomMinS: return s(old) < s(b) ? old : b;
    case Op::kAtomMinU: return old < b ? old : b;
    case Op::kAtomMaxS: return s(old) > s(b) ? old : b;
    case Op::kAtomMaxU: return old > b ? old : b;
    case Op::kAtomExch: return b;
    case Op::kAtomCas: return old == b ? c : old;
    default: break;
  }
  CHECK(false && "atomic_update: not an atomic op");
}

}  // namespace qgpu
