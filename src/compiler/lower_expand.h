// Sequences of machine ops for PTX instructions the machine has no single op for: funnel
// shifts (rotates), bit-field extracts, byte permutes, 64-bit right shifts of values whose
// high half is known; and for ops the compiled model lacks (mul.hi, div, rem: the machine
// has them; docs/design.md, "the rest of the ALU"). Each returns the instructions in order;
// helpers write fresh registers, and only the last instruction writes d (the caller guards
// only that one).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "compiler/ir.h"

namespace qgpu {

using FreshReg = std::function<IrOperand()>;

// d = the low `bytes` bytes of v (1 or 2: a char or a short), zero- or sign-extended.
std::vector<IrInstr> expand_extend(IrOperand d, IrOperand v, int bytes, bool sign, const FreshReg& fresh);

// shf.{l,r}.{wrap,clamp}.b32 d, lo, hi, n
std::vector<IrInstr> expand_funnel_shift(IrOperand d, IrOperand lo, IrOperand hi, IrOperand n, bool left,
                                         bool wrap, const FreshReg& fresh);
// bfe.{u32,s32} d, a, pos, len with 0 <= pos, 1 <= len, pos + len <= 32
std::vector<IrInstr> expand_bfe(IrOperand d, IrOperand a, int64_t pos, int64_t len, bool sign,
                                const FreshReg& fresh);
// prmt.b32 d, a, b, selector in the default mode, without sign replication
std::vector<IrInstr> expand_prmt(IrOperand d, IrOperand a, IrOperand b, int64_t selector, const FreshReg& fresh);
// The low half of (hi:lo) >> k for 0 <= k <= 63, arithmetic when sign.
std::vector<IrInstr> expand_shr64(IrOperand d, IrOperand lo, IrOperand hi, int64_t k, bool sign,
                                  const FreshReg& fresh);

// mul.hi.{u32,s32} d, a, b: the high 32 bits of the 64-bit product, from four 16 x 16-bit
// products (mul.lo and mad.lo, none of which overflows 32 bits); signed subtracts
// (a < 0 ? b : 0) + (b < 0 ? a : 0) from the unsigned high word.
std::vector<IrInstr> expand_mul_hi(IrOperand d, IrOperand a, IrOperand b, bool sign, const FreshReg& fresh);

// {div,rem}.{u32,s32} d, a, b with the machine's results (b = 0 included: docs/isa.md),
// as a shift-subtract loop over the significant bits of |a| only (31 - clz: a small
// dividend takes a few rounds). The loop's two branches go to absolute instruction
// indices: the sequence must be placed at index `at`. pred: a fresh predicate register.
std::vector<IrInstr> expand_divide(IrOperand d, IrOperand a, IrOperand b, Op op, int at, const FreshReg& fresh,
                                   const FreshReg& pred);

// Warp shuffles and votes (docs/isa.md, "Warp shuffles and votes"; design.md §2). The
// machine has no cross-lane op: a warp's lanes exchange values through memory words of
// their own. A step runs all its lanes at once, so every lane of the step stores before any
// of them loads; min-PC scheduling brings a converged warp's lanes to the call together.
enum class ShflMode { kIdx, kUp, kDown, kBfly };
enum class VoteMode { kBallot, kAny, kAll, kActive };

// shfl.sync.MODE.b32 d, a, b, c: every lane stores a in its word (area_word + 4 warp +
// lane), computes the source lane j by PTX's definition for a 4-lane warp and loads lane
// j's word. With constant b and c optimise() folds all but a few ops.
std::vector<IrInstr> expand_shfl(IrOperand d, IrOperand a, IrOperand b, IrOperand c, ShflMode mode, int area_word,
                                 const FreshReg& fresh, const FreshReg& pred);
// vote.sync.{ballot,any,all} d, p, mask (d a predicate for any/all) and activemask d: the
// lanes store 0 in their warp's word (area_word + warp), add p << laneid to it (an atomic:
// one lane after another) and load it.
std::vector<IrInstr> expand_vote(IrOperand d, IrOperand p, IrOperand mask, VoteMode mode, int area_word,
                                 const FreshReg& fresh);

// The binary32 ops the compiled model's layers lack as sequences of integer ops with
// alu_f32's bits (lower_float.cpp): add, sub, mul, the int <-> float conversions and the
// roundings to an integer branch-free; div, sqrt and fma with branches (absolute targets:
// the sequence must be placed at index `at`; fma's special case branches to its last
// instruction); nothing for any other op. Only the last instruction writes in.d.
std::optional<std::vector<IrInstr>> expand_float_op(const IrInstr& in, int at, const FreshReg& fresh,
                                                    const FreshReg& pred);
// An fma with an operand that makes it one of the other ops, rewritten as that op: c = -0 is
// the product (p + -0 = p for every p, zeros' signs too), a or b = +-1 the sum or the
// difference (a * 1 is exact). Everything else comes back as it is. (fma(a, b, +0) is the
// product but for an exact zero's sign: expand_float_op's mul with that fix.)
IrInstr fold_fma(IrInstr in);

// The sequence for an op the compiled model lacks (mul.hi, div, rem; `in` as lowered, to
// be placed at index `at`), or nothing for any other op.
std::optional<std::vector<IrInstr>> expand_model_op(const IrInstr& in, int at, const FreshReg& fresh,
                                                    const FreshReg& pred);

}  // namespace qgpu
