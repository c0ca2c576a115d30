// 8- and 16-bit data (the Lowerer's fourth file: lower_internal.h): char, bool and short
// values in 32-bit registers, and their loads and stores inside the machine's words.
#include <fmt/format.h>

#include <set>

#include "compiler/lower_internal.h"
#include "compiler/ptx_ops.h"

namespace qgpu::lowering {

// v with the bits above its low `bytes` bytes set from them: zero, or its sign.
IrOperand Lowerer::extended(Frame&, const PtxInstr& in, IrOperand v, int bytes, bool sign) {
  IrOperand out = fresh_();
  for (const IrInstr& x : expand_extend(out, v, bytes, sign, fresh_)) emit_helper(in, x);
  return out;
}

// add sub mul.lo mad.lo and or xor not shl neg selp mov on 16-bit registers are the 32-bit ops:
// the low 16 bits of their results depend only on those of their operands. A compare, a
// right shift, div, rem, min, max, abs and mul.wide read more: their operands are extended
// (by the instruction's signedness) first.
void Lowerer::lower_16(Frame& fr, const PtxInstr& in, int depth) {
  const std::string& base = in.parts.at(0);
  const std::string t = last_part(in);
  static const std::set<std::string> same = {"add", "sub", "and", "or", "xor", "not", "shl", "neg", "selp", "mov", "mul", "mad"};
  static const std::set<std::string> extend = {"setp", "shr", "div", "rem", "min", "max", "abs", "mul"};
  const bool wide = has_part(in, "wide"), hi = has_part(in, "hi");
  if (!same.count(base) && !extend.count(base)) return unsupported(in, type_problem(t));
  if (hi && base == "mul" && in.operands.size() == 3) return lower_mul_hi16(fr, in);
  if (hi || ((base == "mul" || base == "mad") && !wide && !has_part(in, "lo")))
    return unsupported(in, "a 16-bit mad.hi is not supported");
  PtxInstr w = in;
  std::erase(w.parts, std::string("wide"));
  if (wide) w.parts.insert(w.parts.begin() + 1, "lo");
  for (std::string& p : w.parts)
    if (small_bytes(p) == 2) p = p.substr(0, 1) + "32";  // u16 -> u32, s16 -> s32, b16 -> b32
  w.opcode.clear();
  for (const std::string& p : w.parts) w.opcode += (w.opcode.empty() ? "" : ".") + p;
  const bool needs_extension = (extend.count(base) && base != "mul") || wide;
  if (needs_extension) {
    const size_t last = base == "shr" ? 2 : in.operands.size();  // a shift's amount is a u32
    for (size_t i = 1; i < last && i < w.operands.size(); ++i) {
      PtxOperand& o = w.operands[i];
      if (o.kind != PtxOperandKind::kReg || small_bytes(reg_type(fr, o.name).substr(std::min<size_t>(1, reg_type(fr, o.name).size()))) != 2)
        continue;
      auto v = value(fr, in, o);
      if (!v) return;
      const IrOperand x = extended(fr, in, *v, 2, t[0] == 's');
      o.name = fmt::format("%qgpu_ext{}", small_count_++);
      emit_helper(in, {.op = Op::kMov, .d = ir_vreg(vreg(fr, o.name)), .a = x});
    }
  }
  lower_instr(fr, w, depth);
}

// mul.hi.{u16,s16} (clang divides a char or short by a constant so): the operands extended,
// their 32-bit product (exact: at most 2^32 - 2^17 + 1 unsigned, 2^30 signed), shifted down.
void Lowerer::lower_mul_hi16(Frame& fr, const PtxInstr& in) {
  const bool sign = last_part(in)[0] == 's';
  auto d = dest(fr, in, 0);
  auto a = value(fr, in, in.operands[1]), b = value(fr, in, in.operands[2]);
  if (!d || !a || !b) return;
  const IrOperand ea = extended(fr, in, *a, 2, sign), eb = extended(fr, in, *b, 2, sign), p = fresh_();
  emit_helper(in, {.op = Op::kMulLo, .d = p, .a = ea, .b = eb});
  emit(in, {.op = sign ? Op::kShrS : Op::kShrU, .d = *d, .a = p, .b = ir_imm(16)});
}

// The word that holds a char or short at byte address base + off, and where in it.
Lowerer::SubWord Lowerer::sub_word(const PtxInstr& in, IrOperand base, int64_t off) {
  if (base.kind == K::kNone) return {{}, off & ~int64_t{3}, ir_imm(8 * (off & 3))};
  IrOperand at = base;
  if (off != 0) at = fresh_(), emit_helper(in, {.op = Op::kAdd, .d = at, .a = base, .b = ir_imm(wrap32(off))});
  IrOperand word = fresh_(), low = fresh_(), shift = fresh_();
  emit_helper(in, {.op = Op::kAnd, .d = word, .a = at, .b = ir_imm(~int64_t{3})});
  emit_helper(in, {.op = Op::kAnd, .d = low, .a = at, .b = ir_imm(3)});
  emit_helper(in, {.op = Op::kShl, .d = shift, .a = low, .b = ir_imm(3)});
  return {word, 0, shift};
}

// A guarded load or store of a char or short: the lanes whose guard fails branch past its
// ops (which read registers they may never have written). Returns the branch, or -1.
int Lowerer::guard_skip(const PtxInstr& in) {
  if (in.guard.empty()) return -1;
  const int at = static_cast<int>(f_.code.size());
  f_.code.push_back({.op = Op::kBra, .guard = predreg(*frame_, in.guard), .guard_negated = !in.guard_negated, .line = in.line});
  return at;
}

void Lowerer::end_guard_skip(int at) {
  if (at >= 0) f_.code[at].target = static_cast<int>(f_.code.size());
}

// ld.{u8,s8,u16,s16}: the word, shifted down, then zero- or sign-extended.
void Lowerer::lower_ld_small(const PtxInstr& in, IrOperand d, IrOperand base, int64_t off, int bytes, bool sign) {
  const int skip = guard_skip(in);
  const SubWord s = sub_word(in, base, off);
  IrOperand w = fresh_(), down = fresh_();
  emit_helper(in, {.op = Op::kLd, .d = w, .a = s.word, .offset = s.offset});
  emit_helper(in, {.op = Op::kShrU, .d = down, .a = w, .b = s.shift});
  emit_sequence(in, expand_extend(d, down, bytes, sign, fresh_));
  end_guard_skip(skip);
}

// st.{u8,u16}: the word with those bytes replaced, by compare-and-swap until no other write
// to the word came between (a GPU's byte stores never disturb their neighbours: threads
// writing adjacent chars of one word, or the same flag, must all land).
void Lowerer::lower_st_small(const PtxInstr& in, IrOperand v, IrOperand base, int64_t off, int bytes) {
  const int skip = guard_skip(in);
  const SubWord s = sub_word(in, base, off);
  const int64_t mask = bytes == 1 ? 0xff : 0xffff;
  IrOperand w = fresh_(), value = fresh_(), placed = fresh_(), keep = fresh_(), m = fresh_();
  emit_helper(in, {.op = Op::kLd, .d = w, .a = s.word, .offset = s.offset});
  emit_helper(in, {.op = Op::kAnd, .d = value, .a = v, .b = ir_imm(mask)});
  emit_helper(in, {.op = Op::kShl, .d = placed, .a = value, .b = s.shift});
  emit_helper(in, {.op = Op::kShl, .d = m, .a = ir_imm(mask), .b = s.shift});
  emit_helper(in, {.op = Op::kNot, .d = keep, .a = m});
  const int loop = static_cast<int>(f_.code.size());
  IrOperand cleared = fresh_(), merged = fresh_(), seen = fresh_(), again = fresh_pred_();
  emit_helper(in, {.op = Op::kAnd, .d = cleared, .a = w, .b = keep});
  emit_helper(in, {.op = Op::kOr, .d = merged, .a = cleared, .b = placed});
  emit_helper(in, {.op = Op::kAtomCas, .d = seen, .a = s.word, .b = w, .c = merged, .offset = s.offset});
  emit_helper(in, {.op = Op::kSetpNe, .d = again, .a = seen, .b = w});
  emit_helper(in, {.op = Op::kMov, .d = w, .a = seen});
  f_.code.push_back({.op = Op::kBra, .guard = again.index, .target = loop, .line = in.line});
  end_guard_skip(skip);
}

}  // namespace qgpu::lowering
