// The binary32 ops: IEEE-754 round to nearest even with subnormals (no flush to zero),
// as sm_75 computes them without -ftz, and every NaN an op produces is NVIDIA's
// canonical 0x7fffffff. The host's SSE arithmetic is IEEE binary32 with the same
// rounding; each op below is one host operation (nothing to contract), and the results
// are then canonicalised. docs/isa.md, "Floating point", lists the rules.
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
