// 64-bit integers compared (the Lowerer's third file: lower_internal.h). Every 64-bit value
// is its low 32 bits everywhere else (addresses fit; ops whose low half needs more are
// refused). A kernel that compares 64-bit values that are not all addresses (a size_t or
// long index against its bound) is lowered again with env.wide: each 64-bit register then
// has a shadow register with its high half, computed at every definition (carries,
// borrows, the high half of products), so a compare of the two halves is exact whatever
// the values. A definition this file does not know leaves the high half unknown, and a
// compare of that register is refused (check_wide_compares).
#include <fmt/format.h>

#include <map>

#include "compiler/lower_internal.h"
#include "compiler/ptx_ops.h"

namespace qgpu::lowering {

namespace {

bool int64_type(std::string_view t) { return t == ".b64" || t == ".u64" || t == ".s64"; }

}  // namespace

bool Lowerer::is_wide_reg(const Frame& fr, const PtxOperand& o) {
  return o.kind == PtxOperandKind::kReg && int64_type(reg_type(fr, o.name));
}

IrOperand Lowerer::shadow(const Frame& fr, const std::string& name) { return ir_vreg(vreg(fr, name + "^hi")); }

// The high half of a source operand: a register's shadow, an immediate's bits 32..63, 0 for
// a 32-bit register (zero-extended in 64-bit ops only through cvt, which says how), a
// symbol (an address) or a special register.
IrOperand Lowerer::high_of(Frame& fr, const PtxOperand& o) {
  if (is_wide_reg(fr, o)) {
    if (deps_) deps_->push_back(fr.prefix + o.name);
    return shadow(fr, o.name);
  }
  if (o.kind == PtxOperandKind::kImm) return ir_imm(wrap32(o.imm >> 32));
  return ir_imm(0);
}

// The high halves of operands at `at` that an instruction needs known (a compare, a shift
// right, a split): recorded for check_wide_compares, which refuses it if one is not.
std::vector<IrOperand> Lowerer::needed_highs(Frame& fr, const PtxInstr& in, std::initializer_list<size_t> at) {
  std::vector<std::string> roots;
  deps_ = &roots;
  std::vector<IrOperand> highs;
  for (size_t i : at) highs.push_back(high_of(fr, in.operands[i]));
  deps_ = nullptr;
  wide_compares_.push_back({roots, in});
  return highs;
}

// The instruction writes a 64-bit register: both halves (false: not an op this file knows,
// the caller lowers the low half and the high half is unknown).
bool Lowerer::lower_wide(Frame& fr, const PtxInstr& in) {
  std::vector<std::string> deps;  // the registers whose high halves this one's is made of
  deps_ = &deps;
  struct Reset {
    std::vector<std::string>*& p;
    ~Reset() { p = nullptr; }
  } reset{deps_};
  // Each half into a temporary first: the destination may be a source (i += stride).
  Wide w{fresh_(), fresh_()};
  const std::string& op = in.parts.at(0);
  const WideResult r = op == "mov" || op == "cvta" || op == "cvt" ? wide_copy(fr, in, w)
                       : op == "ld"                                ? wide_load(fr, in, w)
                       : op == "add" || op == "sub"               ? wide_add(fr, in, w)
                       : op == "mul" || op == "mad"               ? wide_mul(fr, in, w)
                                                                  : wide_bits(fr, in, w);
  if (r != WideResult::kDone) return r == WideResult::kError;
  const PtxOperand& dst = in.operands.at(0);
  emit(in, {.op = Op::kMov, .d = *value(fr, in, dst), .a = w.lo});
  emit(in, {.op = Op::kMov, .d = shadow(fr, dst.name), .a = w.hi});
  wide_defs_[fr.prefix + dst.name].insert(deps.begin(), deps.end());
  return true;
}

// mov, cvta (an address space: a copy), cvt from a narrower integer (zero or sign) or 64 bits.
Lowerer::WideResult Lowerer::wide_copy(Frame& fr, const PtxInstr& in, Wide& w) {
  if (in.operands.size() != 2) return WideResult::kUnknown;
  if (in.operands[1].kind == PtxOperandKind::kList) {  // mov.b64 x, {lo, hi}
    const PtxOperand& halves = in.operands[1];
    if (halves.list.size() != 2) return WideResult::kUnknown;
    for (size_t k = 0; k < 2; ++k) {
      auto h = value(fr, in, {PtxOperandKind::kReg, halves.list[k], false, 0, {}, halves.col, halves.line});
      if (!h) return WideResult::kError;
      emit_helper(in, {.op = Op::kMov, .d = k == 0 ? w.lo : w.hi, .a = *h});
    }
    return WideResult::kDone;
  }
  for (const char* rounding : {"rn", "rz", "rzi", "rni", "rmi", "rpi"})
    if (has_part(in, rounding)) return WideResult::kUnknown;
  const std::string from = in.parts.back();
  if (in.parts[0] == "cvt" && is_float_type(from)) return WideResult::kUnknown;
  auto a = value(fr, in, in.operands[1]);
  if (!a) return WideResult::kError;
  if (in.parts[0] != "cvt" || is_64(from)) {
    emit_helper(in, {.op = Op::kMov, .d = w.lo, .a = *a});
    emit_helper(in, {.op = Op::kMov, .d = w.hi, .a = high_of(fr, in.operands[1])});
    return WideResult::kDone;
  }
  const int small = small_bytes(from);
  const bool sign = from[0] == 's';
  emit_helper(in, {.op = Op::kMov, .d = w.lo, .a = small ? extended(fr, in, *a, small, sign) : *a});
  if (sign) emit_helper(in, {.op = Op::kShrS, .d = w.hi, .a = w.lo, .b = ir_imm(31)});
  else emit_helper(in, {.op = Op::kMov, .d = w.hi, .a = ir_imm(0)});
  return WideResult::kDone;
}

// ld.param of a pointer (its array's address) or of a long or size_t (its word, extended as
// its type says); a 64-bit load (two words).
Lowerer::WideResult Lowerer::wide_load(Frame& fr, const PtxInstr& in, Wide& w) {
  const std::string t = last_part(in);
  const bool word = t == "u32" || t == "s32" || t == "b32";  // a word into a 64-bit register: extended
  if (in.operands.size() != 2 || !(is_64(t) || (word && !has_part(in, "param"))) || has_part(in, "v2") ||
      has_part(in, "v4"))
    return WideResult::kUnknown;
  const PtxOperand& a = in.operands[1];
  if (has_part(in, "param")) {
    if (fr.params.count(a.name)) return WideResult::kUnknown;  // an inlined call's argument: only its low half
    auto it = env_.param_value.find(a.name);
    if (it == env_.param_value.end() || a.imm != 0) return WideResult::kUnknown;
    const bool scalar = env_.scalar_params.count(a.name) > 0;
    if (scalar) emit_helper(in, {.op = Op::kLd, .d = w.lo, .offset = it->second});
    else emit_helper(in, {.op = Op::kMov, .d = w.lo, .a = ir_imm(wrap32(it->second))});
    if (scalar && env_.signed_wide_params.count(a.name)) emit_helper(in, {.op = Op::kShrS, .d = w.hi, .a = w.lo, .b = ir_imm(31)});
    else emit_helper(in, {.op = Op::kMov, .d = w.hi, .a = ir_imm(0)});
    return WideResult::kDone;
  }
  if (!memory_type_ok(in)) return WideResult::kError;
  IrOperand base;
  int64_t off = 0;
  if (!address(fr, in, a, base, off)) return WideResult::kError;
  emit_helper(in, {.op = Op::kLd, .d = w.lo, .a = base, .offset = off});
  if (word && t == "s32") emit_helper(in, {.op = Op::kShrS, .d = w.hi, .a = w.lo, .b = ir_imm(31)});
  else if (word) emit_helper(in, {.op = Op::kMov, .d = w.hi, .a = ir_imm(0)});
  else emit_helper(in, {.op = Op::kLd, .d = w.hi, .a = base, .offset = off + 4});
  return WideResult::kDone;
}

// add and sub, with the carry (the low sum wrapped below an addend) or the borrow (the low
// subtrahend is larger).
Lowerer::WideResult Lowerer::wide_add(Frame& fr, const PtxInstr& in, Wide& w) {
  if (in.operands.size() != 3 || !is_64(last_part(in))) return WideResult::kUnknown;
  auto a = value(fr, in, in.operands[1]), b = value(fr, in, in.operands[2]);
  if (!a || !b) return WideResult::kError;
  const IrOperand ah = high_of(fr, in.operands[1]), bh = high_of(fr, in.operands[2]);
  IrOperand c = fresh_pred_(), cv = fresh_(), s = fresh_();
  const bool add = in.parts[0] == "add";
  if (add) {
    emit_helper(in, {.op = Op::kAdd, .d = w.lo, .a = *a, .b = *b});
    emit_helper(in, {.op = Op::kSetpLtU, .d = c, .a = w.lo, .b = *a});
  } else {
    emit_helper(in, {.op = Op::kSetpLtU, .d = c, .a = *a, .b = *b});
    emit_helper(in, {.op = Op::kSub, .d = w.lo, .a = *a, .b = *b});
  }
  emit_helper(in, {.op = Op::kSelp, .d = cv, .a = ir_imm(1), .b = ir_imm(0), .c = c});
  emit_helper(in, {.op = add ? Op::kAdd : Op::kSub, .d = s, .a = ah, .b = bh});
  emit_helper(in, {.op = add ? Op::kAdd : Op::kSub, .d = w.hi, .a = s, .b = cv});
  return WideResult::kDone;
}

// mul.lo.s64 d, a, b / mul.wide.{s,u}32 d, a, b / mad.lo.s64 d, a, b, c: low = a * b; high =
// umulhi(a, b) + a_lo * b_hi + a_hi * b_lo (mod 2^32), or the 32-bit operands' signed or
// unsigned high product for mul.wide; mad adds c with its carry.
Lowerer::WideResult Lowerer::wide_mul(Frame& fr, const PtxInstr& in, Wide& w) {
  const bool mad = in.parts[0] == "mad", wide = has_part(in, "wide");
  if ((!has_part(in, "lo") && !wide) || in.operands.size() != (mad ? 4u : 3u)) return WideResult::kUnknown;
  auto a = value(fr, in, in.operands[1]), b = value(fr, in, in.operands[2]);
  if (!a || !b) return WideResult::kError;
  emit_helper(in, {.op = Op::kMulLo, .d = w.lo, .a = *a, .b = *b});
  IrOperand mh = wide ? w.hi : fresh_();
  for (const IrInstr& x : expand_mul_hi(mh, *a, *b, wide && last_part(in) == "s32", fresh_)) emit_helper(in, x);
  if (!wide) {
    IrOperand x1 = fresh_(), x2 = fresh_(), s1 = fresh_();
    emit_helper(in, {.op = Op::kMulLo, .d = x1, .a = *a, .b = high_of(fr, in.operands[2])});
    emit_helper(in, {.op = Op::kMulLo, .d = x2, .a = high_of(fr, in.operands[1]), .b = *b});
    emit_helper(in, {.op = Op::kAdd, .d = s1, .a = mh, .b = x1});
    emit_helper(in, {.op = Op::kAdd, .d = w.hi, .a = s1, .b = x2});
  }
  if (!mad) return WideResult::kDone;
  auto c = value(fr, in, in.operands[3]);
  if (!c) return WideResult::kError;
  Wide sum{fresh_(), fresh_()};
  IrOperand cv = fresh_(), s2 = fresh_(), carry = fresh_pred_();
  emit_helper(in, {.op = Op::kAdd, .d = sum.lo, .a = w.lo, .b = *c});
  emit_helper(in, {.op = Op::kSetpLtU, .d = carry, .a = sum.lo, .b = w.lo});
  emit_helper(in, {.op = Op::kSelp, .d = cv, .a = ir_imm(1), .b = ir_imm(0), .c = carry});
  emit_helper(in, {.op = Op::kAdd, .d = s2, .a = w.hi, .b = high_of(fr, in.operands[3])});
  emit_helper(in, {.op = Op::kAdd, .d = sum.hi, .a = s2, .b = cv});
  w = sum;
  return WideResult::kDone;
}
// and, or, xor, not and selp half by half; neg (-x = ~x + 1: the high half gets the carry
// when the low one is 0); shl by a constant (bits cross from the low half to the high).
Lowerer::WideResult Lowerer::wide_bits(Frame& fr, const PtxInstr& in, Wide& w) {
  const std::string& op = in.parts[0];
  const size_t n = in.operands.size();
  std::vector<IrOperand> lo;  // the sources' low halves
  for (size_t i = 1; i < n; ++i) {
    auto v = value(fr, in, in.operands[i]);
    if (!v) return WideResult::kError;
    lo.push_back(*v);
  }
  auto hi = [&](size_t i) { return high_of(fr, in.operands[i]); };
  static const std::map<std::string, Op> logic = {{"and", Op::kAnd}, {"or", Op::kOr}, {"xor", Op::kXor}};
  if (logic.count(op) && n == 3) {
    emit_helper(in, {.op = logic.at(op), .d = w.lo, .a = lo[0], .b = lo[1]});
    emit_helper(in, {.op = logic.at(op), .d = w.hi, .a = hi(1), .b = hi(2)});
  } else if (op == "not" && n == 2) {
    emit_helper(in, {.op = Op::kNot, .d = w.lo, .a = lo[0]});
    emit_helper(in, {.op = Op::kNot, .d = w.hi, .a = hi(1)});
  } else if (op == "selp" && n == 4) {
    emit_helper(in, {.op = Op::kSelp, .d = w.lo, .a = lo[0], .b = lo[1], .c = lo[2]});
    emit_helper(in, {.op = Op::kSelp, .d = w.hi, .a = hi(1), .b = hi(2), .c = lo[2]});
  } else if (op == "neg" && n == 2) {
    IrOperand nh = fresh_(), cv = fresh_(), zero = fresh_pred_();
    emit_helper(in, {.op = Op::kSub, .d = w.lo, .a = ir_imm(0), .b = lo[0]});
    emit_helper(in, {.op = Op::kSetpEq, .d = zero, .a = lo[0], .b = ir_imm(0)});
    emit_helper(in, {.op = Op::kSelp, .d = cv, .a = ir_imm(1), .b = ir_imm(0), .c = zero});
    emit_helper(in, {.op = Op::kNot, .d = nh, .a = hi(1)});
    emit_helper(in, {.op = Op::kAdd, .d = w.hi, .a = nh, .b = cv});
  } else if (op == "shl" && n == 3 && in.operands[2].kind == PtxOperandKind::kImm && in.operands[2].imm >= 0 &&
             in.operands[2].imm < 64) {
    const int64_t k = in.operands[2].imm;
    IrOperand up = fresh_(), over = fresh_();
    if (k == 0) {
      emit_helper(in, {.op = Op::kMov, .d = w.lo, .a = lo[0]});
      emit_helper(in, {.op = Op::kMov, .d = w.hi, .a = hi(1)});
    } else if (k < 32) {
      emit_helper(in, {.op = Op::kShl, .d = w.lo, .a = lo[0], .b = ir_imm(k)});
      emit_helper(in, {.op = Op::kShl, .d = up, .a = hi(1), .b = ir_imm(k)});
      emit_helper(in, {.op = Op::kShrU, .d = over, .a = lo[0], .b = ir_imm(32 - k)});
      emit_helper(in, {.op = Op::kOr, .d = w.hi, .a = up, .b = over});
    } else {
      emit_helper(in, {.op = Op::kMov, .d = w.lo, .a = ir_imm(0)});
      emit_helper(in, {.op = Op::kShl, .d = w.hi, .a = lo[0], .b = ir_imm(k - 32)});
    }
  } else {
    return WideResult::kUnknown;
  }
  return WideResult::kDone;
}

// setp.CMP.{s64,u64,b64}: the high halves decide, and where they are equal the low halves
// (unsigned).
void Lowerer::lower_wide_setp(Frame& fr, const PtxInstr& in) {
  if (!operands(in, 3)) return;
  const std::string cmp = in.parts[1];
  const bool sign = in.parts[2] == "s64";
  auto d = dest(fr, in, 0);
  auto a = value(fr, in, in.operands[1]);
  auto b = value(fr, in, in.operands[2]);
  if (!d || !a || !b) return;
  const std::vector<IrOperand> highs = needed_highs(fr, in, {1, 2});
  const IrOperand ah = highs[0], bh = highs[1];
  IrOperand he = fresh_pred_(), le = fresh_pred_();
  emit_helper(in, {.op = Op::kSetpEq, .d = he, .a = ah, .b = bh});
  if (cmp == "eq" || cmp == "ne") {
    emit_helper(in, {.op = Op::kSetpEq, .d = le, .a = *a, .b = *b});
    if (cmp == "eq") return emit(in, {.op = Op::kAndPred, .d = *d, .a = he, .b = le});
    IrOperand both = fresh_pred_();
    emit_helper(in, {.op = Op::kAndPred, .d = both, .a = he, .b = le});
    return emit(in, {.op = Op::kNotPred, .d = *d, .a = both});
  }
  // lt le gt ge (signed by the type) and lo ls hi hs (unsigned): as a < b, a <= b, b < a, b <= a.
  const bool swap = cmp == "gt" || cmp == "ge" || cmp == "hi" || cmp == "hs";
  const bool or_equal = cmp == "le" || cmp == "ge" || cmp == "ls" || cmp == "hs";
  const bool sgn = sign && (cmp == "lt" || cmp == "le" || cmp == "gt" || cmp == "ge");
  if (!(cmp == "lt" || cmp == "le" || cmp == "gt" || cmp == "ge" || cmp == "lo" || cmp == "ls" || cmp == "hi" ||
        cmp == "hs"))
    return unsupported(in, "only eq, ne, lt, le, gt, ge (and lo, ls, hi, hs) 64-bit compares are supported");
  const IrOperand x = swap ? *b : *a, y = swap ? *a : *b, xh = swap ? bh : ah, yh = swap ? ah : bh;
  IrOperand hl = fresh_pred_(), low = fresh_pred_(), tie = fresh_pred_();
  emit_helper(in, {.op = sgn ? Op::kSetpLtS : Op::kSetpLtU, .d = hl, .a = xh, .b = yh});
  emit_helper(in, {.op = or_equal ? Op::kSetpLeU : Op::kSetpLtU, .d = low, .a = x, .b = y});
  emit_helper(in, {.op = Op::kAndPred, .d = tie, .a = he, .b = low});
  emit(in, {.op = Op::kOrPred, .d = *d, .a = hl, .b = tie});
}

// Every register compared as 64 bits has a known high half at every definition, made of
// known ones (the largest such set: a loop's i += stride keeps i known).
void Lowerer::check_wide_compares() {
  std::set<std::string> known;
  for (const auto& [name, deps] : wide_defs_)
    if (!wide_unknown_.count(name)) known.insert(name);
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = known.begin(); it != known.end();) {
      bool ok = true;
      for (const std::string& dep : wide_defs_.at(*it)) ok = ok && known.count(dep);
      if (ok) ++it;
      else it = known.erase(it), changed = true;
    }
  }
  std::set<std::pair<int, int>> reported;
  for (const auto& [roots, src] : wide_compares_)
    for (const std::string& name : roots)
      if (!known.count(name) && reported.insert({src.line, src.col}).second)
        unsupported(src, fmt::format("this 64-bit compare needs the high half of {}, which qgpu computes in 32 bits "
                                     "only (a 64-bit division, shift right, min or max, or a value passed to a "
                                     "function): use int or unsigned, the machine's integers are 32 bits",
                                     name.substr(name.rfind('/') + 1)));
}

}  // namespace qgpu::lowering
