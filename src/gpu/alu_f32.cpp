// The binary32 ops: IEEE-754 round to nearest even with subnormals (no flush to zero),
// as sm_75 computes them without -ftz, and every NaN an op produces is NVIDIA's
// canonical 0x7fffffff. The host's SSE arithmetic is IEEE binary32 with the same
// rounding; each op below is one host operation (nothing to contract), and the results
// are then canonicalised. docs/isa.md, "Floating point", lists the rules.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "base/error.h"
#include "gpu/alu.h"

namespace qgpu {
namespace {

float f(uint32_t v) { return std::bit_cast<float>(v); }

uint32_t bits(float x) { return std::isnan(x) ? kCanonicalNaN : std::bit_cast<uint32_t>(x); }

// min/max: one NaN operand gives the other, -0 is below +0.
uint32_t min_max(uint32_t a, uint32_t b, bool max) {
  const float x = f(a), y = f(b);
  if (std::isnan(x) && std::isnan(y)) return kCanonicalNaN;
  if (std::isnan(x)) return b;
  if (std::isnan(y)) return a;
  if (x == y) return (std::signbit(x) == max) ? b : a;  // +-0 pairs; equal values are the same bits
  return (x < y) != max ? a : b;
}

uint32_t to_s32(uint32_t a) {
  const float x = f(a);
  if (std::isnan(x)) return 0;
  if (x >= 2147483648.0f) return 0x7fffffffu;
  if (x <= -2147483648.0f) return 0x80000000u;
  return static_cast<uint32_t>(static_cast<int32_t>(x));  // in range: truncates
}

uint32_t to_u32(uint32_t a) {
  const float x = f(a);
  if (std::isnan(x) || x <= 0.0f) return 0;
  if (x >= 4294967296.0f) return 0xffffffffu;
  return static_cast<uint32_t>(x);
}

}  // namespace

// The float microcode. The field names follow the layers' (src/lift/stage_float.cpp).
namespace {

constexpr uint32_t kMagMask = 0x7fffffffu, kInfBits = 0x7f800000u;

uint32_t exponent_field(uint32_t x) { return x >> 23 & 0xffu; }
// The exponent a significand's place goes with: a subnormal's (and zero's) is 1.
uint32_t place(uint32_t x) { return std::max(exponent_field(x), 1u); }
// The significand with its hidden bit (none for a subnormal or zero).
uint32_t significand(uint32_t x) { return (x & 0x7fffffu) | (exponent_field(x) != 0 ? 0x800000u : 0u); }
// v >> n with every bit shifted out ORed into bit 0.
uint32_t shr_sticky(uint32_t v, uint32_t n) {
  if (n >= 32) return v != 0 ? 1u : 0u;
  return (v >> n) | ((v & ((1u << n) - 1u)) != 0 ? 1u : 0u);
}
bool is_nan(uint32_t x) { return (x & kMagMask) > kInfBits; }
bool is_inf(uint32_t x) { return (x & kMagMask) == kInfBits; }

}  // namespace

// x is the operand of larger magnitude (a on a tie), y the other: x's significand at bits
// 29..6 plus or minus (signs apart) y's aligned to x's place with a sticky bit, which
// never goes below 0 and never reaches bit 31; bit 31 says x is b.
uint32_t add_f32_sig(uint32_t a, uint32_t b) {
  const bool x_is_b = (b & kMagMask) > (a & kMagMask);
  const uint32_t x = x_is_b ? b : a, y = x_is_b ? a : b;
  const uint32_t aligned = shr_sticky(significand(y) << 6, std::min(place(x) - place(y), 31u));
  const uint32_t sum = (significand(x) << 6) + (((a ^ b) >> 31) != 0 ? 0u - aligned : aligned);
  return (sum & kMagMask) | (x_is_b ? 0x80000000u : 0u);
}

// s (add_f32_sig's word, for the same a and b) normalised by a left shift k = the leading
// zeros above bit 30, at most x's place (a subnormal result keeps exponent 1), rounded to
// nearest even at bit 7 and packed: (place - k) << 23 plus the rounded significand (whose
// hidden bit carries into the exponent), infinity from 0x7f800000 up. A NaN operand, or
// opposite infinities, give the canonical NaN, an infinity itself; an exact zero is -0 only
// when both operands are negative.
uint32_t add_f32_rnd(uint32_t s, uint32_t a, uint32_t b) {
  if (is_nan(a) || is_nan(b) || (is_inf(a) && is_inf(b) && (a ^ b) >> 31 != 0)) return kCanonicalNaN;
  if (is_inf(a)) return a;
  if (is_inf(b)) return b;
  const uint32_t x = s >> 31 != 0 ? b : a, sum = s & kMagMask;
  if (sum == 0) return a & b & 0x80000000u;
  const uint32_t k = std::min(static_cast<uint32_t>(std::countl_zero(sum)) - 1u, place(x));
  const uint32_t norm = sum << k;
  const uint32_t round = (norm >> 6 & 1u) & ((norm >> 7 & 1u) | ((norm & 0x3fu) != 0 ? 1u : 0u));
  const uint32_t mag = std::min(((place(x) - k) << 23) + (norm >> 7) + round, kInfBits);
  return mag | (x & 0x80000000u);
}

uint32_t alu_f32(Op op, uint32_t a, uint32_t b, uint32_t c) {
  switch (op) {
    case Op::kAddF: return bits(f(a) + f(b));
    case Op::kSubF: return bits(f(a) - f(b));
    case Op::kMulF: return bits(f(a) * f(b));
    case Op::kFmaF: return bits(std::fma(f(a), f(b), f(c)));
    case Op::kMinF: return min_max(a, b, false);
    case Op::kMaxF: return min_max(a, b, true);
    case Op::kNegF: return std::isnan(f(a)) ? kCanonicalNaN : a ^ 0x80000000u;
    case Op::kAbsF: return std::isnan(f(a)) ? kCanonicalNaN : a & 0x7fffffffu;
    case Op::kDivF: return bits(f(a) / f(b));
    case Op::kSqrtF: return bits(std::sqrt(f(a)));
    case Op::kCvtFS: return bits(static_cast<float>(static_cast<int32_t>(a)));
    case Op::kCvtFU: return bits(static_cast<float>(a));
    case Op::kCvtSF: return to_s32(a);
    case Op::kCvtUF: return to_u32(a);
    case Op::kRndNF: return bits(std::nearbyint(f(a)));  // the default mode: ties to even
    case Op::kRndMF: return bits(std::floor(f(a)));
    case Op::kRndPF: return bits(std::ceil(f(a)));
    case Op::kRndZF: return bits(std::trunc(f(a)));
    default: break;
  }
  CHECK(false && "alu_f32: not a binary32 value op");
}

bool compare_f32(Op op, uint32_t a, uint32_t b) {
  const float x = f(a), y = f(b);
  switch (op) {
    case Op::kSetpEqF: return x == y;
    case Op::kSetpNeF: return x < y || x > y;
    case Op::kSetpLtF: return x < y;
    case Op::kSetpLeF: return x <= y;
    case Op::kSetpGtF: return x > y;
    case Op::kSetpGeF: return x >= y;
    case Op::kSetpEquF: return !(x < y || x > y);
    case Op::kSetpNeuF: return !(x == y);
    case Op::kSetpLtuF: return !(x >= y);
    case Op::kSetpLeuF: return !(x > y);
    case Op::kSetpGtuF: return !(x <= y);
    case Op::kSetpGeuF: return !(x < y);
    default: break;
  }
  CHECK(false && "compare_f32: not a binary32 compare");
}

}  // namespace qgpu
