// Virtual registers -> the machine's r0..r14 and p0..p3.
#pragma once

#include "compiler/ir.h"

namespace qgpu {

// The same function over machine registers (vreg i is now r_i, pred i is p_i), with
// copies between the same register removed. Throws Error when more than 15 values (or
// 4 predicates) are live at once, naming the PTX line and the live values.
IrFunction allocate_registers(const IrFunction& f);

}  // namespace qgpu
