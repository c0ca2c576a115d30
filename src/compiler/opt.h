// IR passes between lowering and register allocation.
#pragma once

#include <functional>
#include <vector>

#include "compiler/ir.h"

namespace qgpu {

// Constant, special-register and copy propagation, address folding ([x+k] for
// add(x, k) bases) and dead-code removal, to a fixed point.
void optimise(IrFunction& f);
// A register (or predicate) that some path reads before any write (a PTX value that is
// undefined there, e.g. a select's unused operand at -O1) is set to 0 at the kernel's
// entry: the machine reads every source of every lane in a step and traps on an unwritten
// register, where a GPU computes with whatever the register held.
void define_before_use(IrFunction& f);
// One immediate word per instruction (a memory op's is its offset), which several operands
// may read when they are the same value: the others are moved into fresh registers just
// before it.
void legalise(IrFunction& f);
// Keeps the instructions marked in keep; branch targets move to the next kept one.
void compact(IrFunction& f, const std::vector<bool>& keep);
// Calls before(in) on every instruction, which may change it and returns the instructions
// to put right before it; a branch to it then lands on the first of them.
void insert_before(IrFunction& f, const std::function<std::vector<IrInstr>(IrInstr&)>& before);

}  // namespace qgpu
