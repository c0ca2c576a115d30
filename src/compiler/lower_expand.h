// Sequences of machine ops for PTX instructions the machine has no single op for: funnel
// shifts (rotates), bit-field extracts, byte permutes and 64-bit right shifts of values
// whose high half is known. Each returns the instructions in order; helpers write fresh
// registers, and only the last instruction writes d (the caller guards only that one).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "compiler/ir.h"

namespace qgpu {

using FreshReg = std::function<IrOperand()>;

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

}  // namespace qgpu
