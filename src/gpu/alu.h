// What each op computes on 32-bit words, lane by lane: the arithmetic half of the spec.
//
// Semantics are those of PTX on a real NVIDIA GPU (two's complement, wrap-around),
// including the cases PTX leaves to the machine: division by zero and shift counts of
// 32 or more are defined here and listed in docs/isa.md.
#pragma once

#include <cstdint>

#include "gpu/isa.h"

namespace qgpu {

// NVIDIA's canonical NaN: what every binary32 op returns for a NaN result.
inline constexpr uint32_t kCanonicalNaN = 0x7fffffffu;

// Result of an Effect::kValue op other than kLd (c is 0/1 for kSelp).
uint32_t alu(Op op, uint32_t a, uint32_t b, uint32_t c);
// The binary32 value ops (alu_f32.cpp; alu() calls it for them).
uint32_t alu_f32(Op op, uint32_t a, uint32_t b, uint32_t c);
bool compare_f32(Op op, uint32_t a, uint32_t b);
// The float microcode (alu_f32.cpp): a + b = add_f32_rnd(add_f32_sig(a, b), a, b), bit for bit
// alu_f32(kAddF, a, b); each is total (any words), as the layers compute it.
uint32_t add_f32_sig(uint32_t a, uint32_t b);
uint32_t add_f32_rnd(uint32_t s, uint32_t a, uint32_t b);
// Result of a setp op.
bool compare(Op op, uint32_t a, uint32_t b);
// Result of a predicate-logic op (and/or/xor/not/mov.pred).
bool pred_logic(Op op, bool a, bool b);
// New memory word of an atomic op, from the old word and operands b, c.
uint32_t atomic_update(Op op, uint32_t old, uint32_t b, uint32_t c);

}  // namespace qgpu
