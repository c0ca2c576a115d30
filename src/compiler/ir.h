// The lowering's intermediate form: machine ops over virtual registers, in PTX order.
//
// PTX from clang numbers its virtual registers without reuse (%r<119>), keeps 64-bit
// address arithmetic and puts several immediates in one instruction. The IR is the
// machine ISA (isa.h) with unlimited virtual registers, any number of immediates and
// branch targets as instruction indices; legalisation and register allocation turn it
// into a machine Program.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpu/isa.h"

namespace qgpu {

struct IrOperand {
  enum class Kind : uint8_t { kNone, kVReg, kPred, kSpecial, kImm };
  Kind kind = Kind::kNone;
  int index = 0;      // virtual register / predicate number, or Special
  int64_t imm = 0;    // for kImm: the 32-bit value (kept in 64 bits for range checks)

  friend bool operator==(const IrOperand&, const IrOperand&) = default;
};

inline IrOperand ir_vreg(int i) { return {IrOperand::Kind::kVReg, i}; }
inline IrOperand ir_pred(int i) { return {IrOperand::Kind::kPred, i}; }
inline IrOperand ir_imm(int64_t v) { return {IrOperand::Kind::kImm, 0, v}; }
inline IrOperand ir_special(Special s) { return {IrOperand::Kind::kSpecial, static_cast<int>(s)}; }

struct IrInstr {
  Op op = Op::kExit;
  int guard = -1;           // predicate vreg, -1 unguarded
  bool guard_negated = false;
  IrOperand d, a, b, c;     // as in Instr; for memory forms a is the base (kNone for [imm])
  int64_t offset = 0;       // memory forms: the byte offset added to the base
  int target = -1;          // kBra: index of the target instruction
  int line = 0;             // PTX source line, for diagnostics
  bool float_d = false;     // d is a .f32 register in the PTX (for display: traces print it as a float)

  friend bool operator==(const IrInstr&, const IrInstr&) = default;
};

struct IrFunction {
  std::vector<IrInstr> code;
  int n_vregs = 0;          // value registers %r, %rd, ... all 32 bits here
  int n_preds = 0;
  std::vector<std::string> vreg_names;  // PTX name of each vreg (for messages and dumps)
  std::vector<std::string> pred_names;
  std::vector<int64_t> param_words;     // byte addresses of the scalar parameters' words: read-only,
                                        // so a load of one may be repeated anywhere (regalloc)
  int spill_words = 0;                  // memory words the allocator spilled values to (regalloc.h)
};

// Source operands read by an instruction (guard included), and the register it writes.
std::vector<IrOperand> ir_uses(const IrInstr& in);
IrOperand ir_def(const IrInstr& in);
// Whether the instruction does more than write its register d or predicate (a store, an
// atomic, a branch, a barrier, an exit): such an instruction is never dead code.
bool ir_has_side_effect(const IrInstr& in);
// Successor instruction indices (fallthrough and branch target).
std::vector<int> ir_successors(const IrFunction& f, int i);
// Text form of one instruction / a whole function (--dump=ir).
std::string ir_text(const IrFunction& f, const IrInstr& in);
std::string ir_dump(const IrFunction& f);

}  // namespace qgpu
