// Expansions of PTX bit manipulation into the machine's ops. Each is the textbook
// identity, written out so that the interpreter (and so the model) computes it exactly.
#include "compiler/lower_expand.h"

namespace qgpu {

std::vector<IrInstr> expand_funnel_shift(IrOperand d, IrOperand lo, IrOperand hi, IrOperand n, bool left,
                                         bool wrap, const FreshReg& fresh) {
  IrOperand amt = fresh(), rest = fresh(), x = fresh(), y = fresh();
  return {
      wrap ? IrInstr{.op = Op::kAnd, .d = amt, .a = n, .b = ir_imm(31)}
           : IrInstr{.op = Op::kMinU, .d = amt, .a = n, .b = ir_imm(32)},
      {.op = Op::kSub, .d = rest, .a = ir_imm(32), .b = amt},
      {.op = left ? Op::kShl : Op::kShrU, .d = x, .a = left ? hi : lo, .b = amt},
      {.op = left ? Op::kShrU : Op::kShl, .d = y, .a = left ? lo : hi, .b = rest},
      {.op = Op::kOr, .d = d, .a = x, .b = y},
  };
}

std::vector<IrInstr> expand_bfe(IrOperand d, IrOperand a, int64_t pos, int64_t len, bool sign,
                                const FreshReg& fresh) {
  IrOperand t = fresh();
  int64_t left = 32 - pos - len;
  return {
      {.op = Op::kShl, .d = t, .a = a, .b = ir_imm(left)},
      {.op = sign ? Op::kShrS : Op::kShrU, .d = d, .a = t, .b = ir_imm(left + pos)},
  };
}

// Each result byte i is byte (n & 3) of a (n < 4) or b, n = selector nibble i.
std::vector<IrInstr> expand_prmt(IrOperand d, IrOperand a, IrOperand b, int64_t selector, const FreshReg& fresh) {
  std::vector<IrInstr> out;
  IrOperand acc = ir_imm(0);
  for (int i = 0; i < 4; ++i) {
    int n = static_cast<int>(selector >> (4 * i) & 7);
    const IrOperand& src = n < 4 ? a : b;
    if (src.kind == IrOperand::Kind::kImm && (src.imm >> (8 * (n & 3)) & 0xff) == 0) continue;
    IrOperand t = fresh(), m = fresh(), sh = fresh(), next = fresh();
    out.push_back({.op = Op::kShrU, .d = t, .a = src, .b = ir_imm(8 * (n & 3))});
    out.push_back({.op = Op::kAnd, .d = m, .a = t, .b = ir_imm(0xff)});
    out.push_back({.op = Op::kShl, .d = sh, .a = m, .b = ir_imm(8 * i)});
    out.push_back({.op = Op::kOr, .d = next, .a = acc, .b = sh});
    acc = next;
  }
  out.push_back({.op = Op::kMov, .d = d, .a = acc});
  return out;
}

std::vector<IrInstr> expand_shr64(IrOperand d, IrOperand lo, IrOperand hi, int64_t k, bool sign,
                                  const FreshReg& fresh) {
  if (k >= 32) return {{.op = sign ? Op::kShrS : Op::kShrU, .d = d, .a = hi, .b = ir_imm(k - 32)}};
  if (k == 0) return {{.op = Op::kMov, .d = d, .a = lo}};
  IrOperand low = fresh(), up = fresh();
  return {
      {.op = Op::kShrU, .d = low, .a = lo, .b = ir_imm(k)},
      {.op = Op::kShl, .d = up, .a = hi, .b = ir_imm(32 - k)},
      {.op = Op::kOr, .d = d, .a = low, .b = up},
  };
}

}  // namespace qgpu
