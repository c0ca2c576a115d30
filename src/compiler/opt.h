// IR passes between lowering and register allocation.
#pragma once

#include <vector>

#include "compiler/ir.h"

namespace qgpu {

// Constant, special-register and copy propagation, address folding ([x+k] for
// add(x, k) bases) and dead-code removal, to a fixed point.
void optimise(IrFunction& f);
// At most one immediate per instruction (a memory op's is its offset): the others are
// moved into fresh registers just before it.
void legalise(IrFunction& f);
// Keeps the instructions marked in keep; branch targets move to the next kept one.
void compact(IrFunction& f, const std::vector<bool>& keep);

}  // namespace qgpu
