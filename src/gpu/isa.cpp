// Lookups over the ISA tables and the small integer codes of operand fields and guards.
#include "gpu/isa.h"

#include "base/error.h"

namespace qgpu {

static_assert([] {
  for (int i = 0; i < kNumOps; ++i)
    if (static_cast<int>(kOps[i].op) != i) return false;
  return true;
}(), "kOps rows must be in Op enum order");

static_assert([] {
  for (int i = 0; i < kNumSpecials; ++i)
    if (static_cast<int>(kSpecials[i].special) != i) return false;
  return true;
}(), "kSpecials rows must be in Special enum order");

std::optional<Op> find_op(std::string_view mnemonic) {
  for (const OpInfo& info : kOps)
    if (info.mnemonic == mnemonic) return info.op;
  return std::nullopt;
}

std::optional<Special> find_special(std::string_view name) {
  for (const SpecialInfo& info : kSpecials)
    if (info.name == name) return info.special;
  return std::nullopt;
}

int field_code(Operand o) {
  switch (o.kind) {
    case OperandKind::kNone: return 0;
    case OperandKind::kReg: return 1 + o.index;
    case OperandKind::kPred: return 1 + kRegs + o.index;
    case OperandKind::kSpecial: return 1 + kRegs + kPreds + o.index;
    case OperandKind::kImm: return kFieldCodes - 1;
  }
  CHECK(false);
}

Operand operand_from_code(int code) {
  CHECK(code >= 0 && code < kFieldCodes);
  if (code == 0) return {};
  if (code == kFieldCodes - 1) return imm();
  int i = code - 1;
  if (i < kRegs) return reg(i);
  i -= kRegs;
  if (i < kPreds) return pred(i);
  return special(static_cast<Special>(i - kPreds));
}

int guard_code(Guard g) {
  if (g.pred < 0) return 0;
  return 1 + (g.negate ? kPreds : 0) + g.pred;
}

Guard guard_from_code(int code) {
  CHECK(code >= 0 && code < kGuardCodes);
  if (code == 0) return {};
  int i = code - 1;
  return {static_cast<int8_t>(i % kPreds), i >= kPreds};
}

}  // namespace qgpu
