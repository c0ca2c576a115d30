// Virtual registers -> the machine's r0..r23 and p0..p3.
#pragma once

#include "compiler/ir.h"

namespace qgpu {

// Memory words a kernel may spill values to: first_word .. first_word + words - 1 (16 a
// value: one per resident lane).
struct SpillRoom {
  int first_word = 0;
  int words = 0;
};

// The same function over machine registers (vreg i is now r_i, pred i is p_i), with
// copies between the same register removed; values spilled to `room` where more than 15
// would be live at once (the result's spill_words says how many words it used). Throws
// Error when more than 15 values (or 4 predicates) are live at once even so, naming the
// PTX line and the live values.
IrFunction allocate_registers(const IrFunction& f, SpillRoom room = {});

}  // namespace qgpu
