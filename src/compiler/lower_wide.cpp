// 64-bit integers compared (the Lowerer's third file: lower_internal.h). Every 64-bit value
// is its low 32 bits everywhere else (addresses fit; ops whose low half needs more are
// refused). A kernel that compares 64-bit values that are not all addresses (a size_t or
// long index against its bound) is lowered again with env.wide: each 64-bit register then
// has a shadow register with its high half, computed at every definition (carries,
// borrows, the high half of products), so a compare of the two halves is exact whatever
// the values. A definition this file does not know leaves the high half unknown, and a
// compare of that register is refused (check_wide_compares).
#include <fmt/format.h>

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

// The instruction writes a 64-bit register: both halves (false: not an op this file knows,
// the caller lowers the low half and the high half is unknown).
bool Lowerer::lower_wide(Frame& fr, const PtxInstr& in) {
  const std::string& op = in.parts.at(0);
  const std::string t = last_part(in);
  const PtxOperand& dst = in.operands.at(0);
  auto src = [&](size_t i) { return value(fr, in, in.operands.at(i)); };
  auto hi = [&](size_t i) { return high_of(fr, in.operands.at(i)); };
  IrOperand lo = fresh_(), h = fresh_();
  std::vector<std::string> deps;  // the registers whose high halves this one's is made of
  deps_ = &deps;
  struct Reset {
    std::vector<std::string>*& p;
    ~Reset() { p = nullptr; }
  } reset{deps_};
  // Each half into a temporary first: the destination may be a source (i += stride).
  auto finish = [&]() {
    emit(in, {.op = Op::kMov, .d = *value(fr, in, dst), .a = lo});
    emit(in, {.op = Op::kMov, .d = shadow(fr, dst.name), .a = h});
    wide_defs_[fr.prefix + dst.name].insert(deps.begin(), deps.end());
    return true;
  };
  auto helper = [&](IrInstr x) { emit_helper(in, x); };
  const size_t n = in.operands.size();
  if ((op == "mov" || op == "cvta") && n == 2) {
    auto a = src(1);
    if (!a) return true;
    helper({.op = Op::kMov, .d = lo, .a = *a});
    helper({.op = Op::kMov, .d = h, .a = hi(1)});
    return finish();
  }
  if (op == "cvt" && n == 2 && in.parts.size() >= 3 && !has_part(in, "rn") && !has_part(in, "rz") &&
      !has_part(in, "rzi") && !has_part(in, "rni") && !has_part(in, "rmi") && !has_part(in, "rpi")) {
    const std::string from = in.parts.back();
    auto a = src(1);
    if (!a || is_float_type(from)) return false;
    if (is_64(from)) {
      helper({.op = Op::kMov, .d = lo, .a = *a});
      helper({.op = Op::kMov, .d = h, .a = hi(1)});
    } else {
      const int small = small_bytes(from);
      const bool sign = from[0] == 's';
      helper({.op = Op::kMov, .d = lo, .a = small ? extended(fr, in, *a, small, sign) : *a});
      if (sign) helper({.op = Op::kShrS, .d = h, .a = lo, .b = ir_imm(31)});
      else helper({.op = Op::kMov, .d = h, .a = ir_imm(0)});
    }
    return finish();
  }
  if (op == "ld" && n == 2 && has_part(in, "param") && is_64(t)) {
    const PtxOperand& a = in.operands[1];
    if (fr.params.count(a.name)) return false;  // an inlined call's argument: its halves are the caller's
    auto it = env_.param_value.find(a.name);
    if (it == env_.param_value.end() || a.imm != 0) return false;
    if (!env_.scalar_params.count(a.name)) {  // a pointer: the array's address
      helper({.op = Op::kMov, .d = lo, .a = ir_imm(wrap32(it->second))});
      helper({.op = Op::kMov, .d = h, .a = ir_imm(0)});
    } else {  // a long or size_t argument: its word, extended as its type says
      helper({.op = Op::kLd, .d = lo, .offset = it->second});
      if (env_.signed_wide_params.count(a.name)) helper({.op = Op::kShrS, .d = h, .a = lo, .b = ir_imm(31)});
      else helper({.op = Op::kMov, .d = h, .a = ir_imm(0)});
    }
    return finish();
  }
  if (op == "ld" && n == 2 && is_64(t) && !has_part(in, "v2") && !has_part(in, "v4")) {
    if (!memory_type_ok(in)) return true;
    IrOperand base;
    int64_t off = 0;
    if (!address(fr, in, in.operands[1], base, off)) return true;
    helper({.op = Op::kLd, .d = lo, .a = base, .offset = off});
    helper({.op = Op::kLd, .d = h, .a = base, .offset = off + 4});
    return finish();
  }
  if ((op == "add" || op == "sub") && n == 3 && is_64(t)) {
    auto a = src(1), b = src(2);
    if (!a || !b) return true;
    const IrOperand ah = hi(1), bh = hi(2);
    IrOperand c = fresh_pred_(), cv = fresh_(), s = fresh_();
    if (op == "add") {  // carry: the low sum wrapped below an addend
      helper({.op = Op::kAdd, .d = lo, .a = *a, .b = *b});
      helper({.op = Op::kSetpLtU, .d = c, .a = lo, .b = *a});
      helper({.op = Op::kSelp, .d = cv, .a = ir_imm(1), .b = ir_imm(0), .c = c});
      helper({.op = Op::kAdd, .d = s, .a = ah, .b = bh});
      helper({.op = Op::kAdd, .d = h, .a = s, .b = cv});
    } else {  // borrow: the low subtrahend is larger
      helper({.op = Op::kSetpLtU, .d = c, .a = *a, .b = *b});
      helper({.op = Op::kSub, .d = lo, .a = *a, .b = *b});
      helper({.op = Op::kSelp, .d = cv, .a = ir_imm(1), .b = ir_imm(0), .c = c});
      helper({.op = Op::kSub, .d = s, .a = ah, .b = bh});
      helper({.op = Op::kSub, .d = h, .a = s, .b = cv});
    }
    return finish();
  }
  if ((op == "mul" || op == "mad") && (has_part(in, "lo") || has_part(in, "wide")) && n == (op == "mad" ? 4u : 3u)) {
    // mul.lo.s64 d, a, b / mul.wide.{s,u}32 d, a, b / mad.lo.s64 d, a, b, c:
    // low = a*b; high = umulhi(a, b) + a_lo * b_hi + a_hi * b_lo (mod 2^32), or the 32-bit
    // operands' signed or unsigned high product for mul.wide.
    auto a = src(1), b = src(2);
    if (!a || !b) return true;
    const bool wide = has_part(in, "wide");
    helper({.op = Op::kMulLo, .d = lo, .a = *a, .b = *b});
    IrOperand mh = fresh_();
    for (const IrInstr& x : expand_mul_hi(mh, *a, *b, wide && t == "s32", fresh_)) helper(x);
    if (wide) {
      helper({.op = Op::kMov, .d = h, .a = mh});
    } else {
      IrOperand x1 = fresh_(), x2 = fresh_(), s1 = fresh_();
      helper({.op = Op::kMulLo, .d = x1, .a = *a, .b = hi(2)});
      helper({.op = Op::kMulLo, .d = x2, .a = hi(1), .b = *b});
      helper({.op = Op::kAdd, .d = s1, .a = mh, .b = x1});
      helper({.op = Op::kAdd, .d = h, .a = s1, .b = x2});
    }
    if (op == "mad") {  // + c, with its carry
      auto c = src(3);
      if (!c) return true;
      IrOperand sum = fresh_(), cv = fresh_(), s2 = fresh_(), h2 = fresh_();
      IrOperand carry = fresh_pred_();
      helper({.op = Op::kAdd, .d = sum, .a = lo, .b = *c});
      helper({.op = Op::kSetpLtU, .d = carry, .a = sum, .b = lo});
      helper({.op = Op::kSelp, .d = cv, .a = ir_imm(1), .b = ir_imm(0), .c = carry});
      helper({.op = Op::kAdd, .d = s2, .a = h, .b = hi(3)});
      helper({.op = Op::kAdd, .d = h2, .a = s2, .b = cv});
      lo = sum, h = h2;
    }
    return finish();
  }
  if ((op == "and" || op == "or" || op == "xor") && n == 3) {
    auto a = src(1), b = src(2);
    if (!a || !b) return true;
    const Op o = op == "and" ? Op::kAnd : op == "or" ? Op::kOr : Op::kXor;
    helper({.op = o, .d = lo, .a = *a, .b = *b});
    helper({.op = o, .d = h, .a = hi(1), .b = hi(2)});
    return finish();
  }
  if (op == "not" && n == 2) {
    auto a = src(1);
    if (!a) return true;
    helper({.op = Op::kNot, .d = lo, .a = *a});
    helper({.op = Op::kNot, .d = h, .a = hi(1)});
    return finish();
  }
  if (op == "neg" && n == 2) {  // -x = ~x + 1: the high half gets the carry when the low is 0
    auto a = src(1);
    if (!a) return true;
    IrOperand nh = fresh_(), cv = fresh_();
    IrOperand zero = fresh_pred_();
    helper({.op = Op::kSub, .d = lo, .a = ir_imm(0), .b = *a});
    helper({.op = Op::kSetpEq, .d = zero, .a = *a, .b = ir_imm(0)});
    helper({.op = Op::kSelp, .d = cv, .a = ir_imm(1), .b = ir_imm(0), .c = zero});
    helper({.op = Op::kNot, .d = nh, .a = hi(1)});
    helper({.op = Op::kAdd, .d = h, .a = nh, .b = cv});
    return finish();
  }
  if (op == "shl" && n == 3 && in.operands[2].kind == PtxOperandKind::kImm && in.operands[2].imm >= 0 &&
      in.operands[2].imm < 64) {
    auto a = src(1);
    if (!a) return true;
    const int64_t k = in.operands[2].imm;
    if (k == 0) {
      helper({.op = Op::kMov, .d = lo, .a = *a});
      helper({.op = Op::kMov, .d = h, .a = hi(1)});
    } else if (k < 32) {
      IrOperand up = fresh_(), over = fresh_();
      helper({.op = Op::kShl, .d = lo, .a = *a, .b = ir_imm(k)});
      helper({.op = Op::kShl, .d = up, .a = hi(1), .b = ir_imm(k)});
      helper({.op = Op::kShrU, .d = over, .a = *a, .b = ir_imm(32 - k)});
      helper({.op = Op::kOr, .d = h, .a = up, .b = over});
    } else {
      helper({.op = Op::kMov, .d = lo, .a = ir_imm(0)});
      helper({.op = Op::kShl, .d = h, .a = *a, .b = ir_imm(k - 32)});
    }
    return finish();
  }
  if (op == "selp" && n == 4) {
    auto a = src(1), b = src(2), p = src(3);
    if (!a || !b || !p) return true;
    helper({.op = Op::kSelp, .d = lo, .a = *a, .b = *b, .c = *p});
    helper({.op = Op::kSelp, .d = h, .a = hi(1), .b = hi(2), .c = *p});
    return finish();
  }
  return false;
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
  std::vector<std::string> roots;
  deps_ = &roots;
  const IrOperand ah = high_of(fr, in.operands[1]), bh = high_of(fr, in.operands[2]);
  deps_ = nullptr;
  wide_compares_.push_back({roots, in});
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
