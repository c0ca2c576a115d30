// The lowering of each PTX instruction family (the Lowerer's second file: lower_internal.h):
// moves and conversions, 64-bit values with a known high half, memory, compares and
// selects, branches and barriers, bit manipulation, warp shuffles and votes, arithmetic.
#include <fmt/format.h>

#include "compiler/lower_internal.h"
#include "compiler/ptx_ops.h"

namespace qgpu::lowering {

void Lowerer::lower_mov(Frame& fr, const PtxInstr& in) {
  if (!operands(in, 2)) return;
  const bool halves32 = last_part(in) == "b32" || last_part(in) == "u32" || last_part(in) == "s32";
  if ((in.operands[0].kind == PtxOperandKind::kList || in.operands[1].kind == PtxOperandKind::kList) && halves32)
    return lower_halves16(fr, in);
  if (in.operands[0].kind == PtxOperandKind::kList) return lower_unpack64(fr, in);
  if (in.operands[1].kind == PtxOperandKind::kList) return unsupported(in, kNoHighHalf);  // mov.b64 x, {lo, hi}
  std::string t = last_part(in);
  if (std::string p = type_problem(t); !p.empty()) return unsupported(in, p);
  auto d = dest(fr, in, 0);
  auto a = value(fr, in, in.operands[1]);
  if (!d || !a) return;
  Op op = d->kind == K::kPred ? Op::kMovPred : Op::kMov;
  emit(in, {.op = op, .d = *d, .a = *a});
}

// cvta (address space conversion) is a copy on one flat memory; cvt between integer
// widths is a copy (to 64: the low 32 bits are the value), or a mask/sign-extension
// when the source is 8 or 16 bits.
void Lowerer::lower_cvt(Frame& fr, const PtxInstr& in) {
  if (!operands(in, 2)) return;
  bool to_float = false;
  for (const std::string& p : in.parts) to_float |= is_float_type(p);
  if (to_float) return lower_float_cvt(fr, in);
  for (const std::string& p : in.parts)
    if (p == "rn" || p == "rz" || p == "rm" || p == "rp" || p == "sat")
      return unsupported(in, "integer conversions with a rounding or saturation are not supported");
  auto d = dest(fr, in, 0);
  auto a = value(fr, in, in.operands[1]);
  if (!d || !a) return;
  std::string from = in.parts.size() >= 3 ? in.parts.back() : "u32";
  if (from == "u8" || from == "u16" || from == "s8" || from == "s16") {
    emit_sequence(in, expand_extend(*d, *a, small_bytes(from), from[0] == 's', fresh_));
  } else {
    emit(in, {.op = Op::kMov, .d = *d, .a = *a});
    if (d->kind == K::kVReg && in.parts.size() >= 3 && is_64(in.parts[1])) note_high(in, *d, *a, from == "s32");
  }
}

// cvt between f32 and s32/u32, or f32 to an integral f32 (floorf, rintf, ...): the
// machine's conversions; a float to an int rounded other than toward zero is a rounding
// to an integer first (the same value, so the same saturation and NaN -> 0).
//
// A char or short source is extended to 32 bits first; a char or short destination gets the
// 32-bit conversion clamped to its range, as PTX clamps cvt.rzi.u8.f32 (NaN is 0 either way).
void Lowerer::lower_float_cvt(Frame& fr, const PtxInstr& in) {
  PtxInstr w = in;
  const size_t n = in.parts.size();
  const std::string to_type = n >= 3 ? in.parts[n - 2] : "", from_type = in.parts.back();
  const int small_from = small_bytes(from_type), small_to = small_bytes(to_type);
  if (small_from) w.parts[n - 1] = from_type[0] == 's' ? "s32" : "u32";
  if (small_to) w.parts[n - 2] = to_type[0] == 's' ? "s32" : "u32";
  CvtMapping m = float_cvt_mapping(w);
  if (!m.problem.empty()) return unsupported(in, m.problem);
  auto d = dest(fr, in, 0);
  auto a = value(fr, in, in.operands[1]);
  if (!d || !a) return;
  if (small_from) a = extended(fr, in, *a, small_from, from_type[0] == 's');
  if (m.ops.empty()) return emit(in, {.op = Op::kMov, .d = *d, .a = *a});
  std::vector<IrInstr> seq;
  IrOperand x = *a;
  for (size_t i = 0; i < m.ops.size(); ++i) {
    IrOperand to = i + 1 == m.ops.size() && !small_to ? *d : ir_vreg(temp());
    seq.push_back({.op = m.ops[i], .d = to, .a = x});
    x = to;
  }
  if (small_to) {
    const int64_t bits = 8 * small_to;
    if (to_type[0] == 's') {
      IrOperand lo = ir_vreg(temp());
      seq.push_back({.op = Op::kMinS, .d = lo, .a = x, .b = ir_imm((int64_t{1} << (bits - 1)) - 1)});
      seq.push_back({.op = Op::kMaxS, .d = *d, .a = lo, .b = ir_imm(-(int64_t{1} << (bits - 1)))});
    } else {
      seq.push_back({.op = Op::kMinU, .d = *d, .a = x, .b = ir_imm((int64_t{1} << bits) - 1)});
    }
  }
  emit_sequence(in, seq);
}

// 64-bit values whose high half is cheap (ptx.md section 7 exceptions).
//
// clang turns some loops into closed forms such as (a * b) >> 1 computed in 64 bits
// (mul.wide, shr.u64, cvt.u32.u64). For a 64-bit value made by mul.wide or by widening
// a 32-bit one, the high half is computed right after it (dead-code removal drops it
// when unused), so a 64-bit right shift of that value can be done exactly.

void Lowerer::note_high(const PtxInstr& in, IrOperand d, IrOperand a, bool sign) {
  if (!sign) return void(high_[d.index] = ir_imm(0));
  IrOperand h = ir_vreg(temp());
  emit_helper(in, {.op = Op::kShrS, .d = h, .a = a, .b = ir_imm(31)});
  high_[d.index] = h;
}

void Lowerer::lower_mul_wide(Frame& fr, const PtxInstr& in) {
  if (!operands(in, 3)) return;
  auto d = dest(fr, in, 0);
  auto a = value(fr, in, in.operands[1]);
  auto b = value(fr, in, in.operands[2]);
  if (!d || !a || !b) return;
  emit(in, {.op = Op::kMulLo, .d = *d, .a = *a, .b = *b});
  high_[d->index] = fresh_();  // the high half: unguarded helpers, as a sequence's
  for (const IrInstr& x : expand_mul_hi(high_[d->index], *a, *b, last_part(in) == "s32", fresh_)) emit_helper(in, x);
}

// shr.{u64,s64} d, x, k with a constant k, when x's high half is known: the low half of
// the result is (lo >> k) | (hi << (32 - k)), or hi >> (k - 32).
void Lowerer::lower_shr64(Frame& fr, const PtxInstr& in) {
  if (!operands(in, 3)) return;
  auto d = dest(fr, in, 0);
  auto x = value(fr, in, in.operands[1]);
  const PtxOperand& k = in.operands[2];
  if (!d || !x) return;
  if (env_.wide && is_wide_reg(fr, in.operands[1]) && k.kind == PtxOperandKind::kImm && k.imm >= 0 && k.imm <= 63) {
    const IrOperand high = needed_highs(fr, in, {1})[0];  // its shadow, which must be known
    return emit_sequence(in, expand_shr64(*d, *x, high, k.imm, last_part(in) == "s64", fresh_));
  }
  auto hi = x->kind == K::kVReg ? high_.find(x->index) : high_.end();
  if (k.kind != PtxOperandKind::kImm || k.imm < 0 || k.imm > 63 || hi == high_.end())
    return unsupported(in, k.kind != PtxOperandKind::kImm || k.imm < 0 || k.imm > 63
                               ? "a 64-bit shift right is supported only by a constant; long long arithmetic is not supported"
                               : kNoHighHalf);
  single_def_checks_.push_back({x->index, in});
  emit_sequence(in, expand_shr64(*d, *x, hi->second, k.imm, last_part(in) == "s64", fresh_));
}

// mov.b64 {lo, hi}, x: a 64-bit value's halves (clang 19 takes a product's high half so,
// in a block of its own with a `.reg .b32 tmp` for the unused half). The high half is the
// shadow (env.wide) or the one noted for a product or a widened int.
void Lowerer::lower_unpack64(Frame& fr, const PtxInstr& in) {
  const PtxOperand& halves = in.operands[0];
  if (halves.list.size() != 2 || !is_64(last_part(in)) || in.operands[1].kind == PtxOperandKind::kList)
    return unsupported(in, "only mov.b64 {lo, hi}, x splits a value into registers");
  auto x = value(fr, in, in.operands[1]);
  if (!x) return;
  std::optional<IrOperand> hi;
  if (env_.wide && is_wide_reg(fr, in.operands[1])) {
    hi = needed_highs(fr, in, {1})[0];
  } else if (in.operands[1].kind == PtxOperandKind::kImm) {
    hi = ir_imm(wrap32(in.operands[1].imm >> 32));
  } else if (auto it = x->kind == K::kVReg ? high_.find(x->index) : high_.end(); it != high_.end()) {
    single_def_checks_.push_back({x->index, in});
    hi = it->second;
  }
  if (!hi) return unsupported(in, kNoHighHalf);
  for (size_t k = 0; k < 2; ++k) {
    auto d = value(fr, in, {PtxOperandKind::kReg, halves.list[k], false, 0, {}, halves.col, halves.line});
    if (!d) return;
    emit(in, {.op = Op::kMov, .d = *d, .a = k == 0 ? *x : *hi});
  }
}

// mov.b32 {lo, hi}, x and mov.b32 x, {lo, hi}: a word's 16-bit halves (clang 19 packs two
// shorts so). A 16-bit register's value is its low half (lower_16), so lo = x, hi = x >> 16,
// and x = (lo & 0xffff) | (hi << 16).
void Lowerer::lower_halves16(Frame& fr, const PtxInstr& in) {
  const bool split = in.operands[0].kind == PtxOperandKind::kList;
  const PtxOperand& halves = in.operands[split ? 0 : 1];
  if (halves.list.size() != 2 || in.operands[split ? 1 : 0].kind == PtxOperandKind::kList)
    return unsupported(in, "only mov.b32 {lo, hi}, x and mov.b32 x, {lo, hi} split or join a word's halves");
  auto half = [&](size_t k) {
    return value(fr, in, {PtxOperandKind::kReg, halves.list[k], false, 0, {}, halves.col, halves.line});
  };
  auto x = value(fr, in, in.operands[split ? 1 : 0]);
  auto lo = half(0), hi = half(1);
  if (!x || !lo || !hi) return;
  if (split) {
    emit(in, {.op = Op::kMov, .d = *lo, .a = *x});
    return emit(in, {.op = Op::kShrU, .d = *hi, .a = *x, .b = ir_imm(16)});
  }
  IrOperand low = fresh_(), high = fresh_();
  emit_helper(in, {.op = Op::kAnd, .d = low, .a = *lo, .b = ir_imm(0xffff)});
  emit_helper(in, {.op = Op::kShl, .d = high, .a = *hi, .b = ir_imm(16)});
  emit(in, {.op = Op::kOr, .d = *x, .a = low, .b = high});
}

// The high half noted for a 64-bit register is only right if nothing else writes it.
void Lowerer::check_single_defs() {
  for (const auto& [v, src] : single_def_checks_) {
    int defs = 0;
    for (const IrInstr& in : f_.code) defs += in.d.kind == K::kVReg && in.d.index == v;
    if (defs != 1)
      unsupported(src, "a 64-bit shift right of a value that is assigned more than once (long long "
                       "arithmetic in a loop) is not supported");
  }
}

bool Lowerer::memory_type_ok(const PtxInstr& in) {
  for (const std::string& p : in.parts) {
    if ((p == "v2" || p == "v4") && (in.parts[0] != "ld" && in.parts[0] != "st"))
      return unsupported(in, "vector atomics are not supported"), false;
    if (p == "v2" || p == "v4" || p == "v8") continue;
    if (is_64(p) && (in.parts[0] == "atom" || in.parts[0] == "red" || has_part(in, "v2") || has_part(in, "v4")))
      return unsupported(in, "64-bit atomics and vectors of 64-bit values are not supported"), false;
    if (is_64(p)) continue;  // two words (lower_ld, lower_st)
    if (small_bytes(p) && (in.parts[0] == "ld" || in.parts[0] == "st")) continue;  // lower_ld_small, lower_st_small
    if (std::string why = type_problem(p); !why.empty()) return unsupported(in, why), false;
  }
  return true;
}

// The registers of a vector load's or store's {a, b, c, d} (int2, int4, float4: ld.v4.u32),
// each the word after the one before; a scalar access's one operand. Empty after an error.
std::vector<PtxOperand> Lowerer::vector_elements(const PtxInstr& in, const PtxOperand& o) {
  const int n = has_part(in, "v2") ? 2 : has_part(in, "v4") ? 4 : has_part(in, "v8") ? 8 : 1;
  if (n == 1) return {o};
  if (o.kind != PtxOperandKind::kList || static_cast<int>(o.list.size()) != n || n == 8)
    return error(in, o.col, fmt::format("expected a vector of {} registers {{...}} (v8 is not supported)", n)),
           std::vector<PtxOperand>{};
  std::vector<PtxOperand> out;
  for (const std::string& name : o.list) {
    if (name == "_") return unsupported(in, "a vector load or store with a sink '_'"), std::vector<PtxOperand>{};
    out.push_back({PtxOperandKind::kReg, name, false, 0, {}, o.col, o.line});
  }
  return out;
}

void Lowerer::lower_ld(Frame& fr, const PtxInstr& in) {
  if (!operands(in, 2)) return;
  if (has_part(in, "param")) return lower_ld_param(fr, in);
  if (!memory_type_ok(in)) return;
  IrOperand base;
  int64_t off = 0;
  if (!address(fr, in, in.operands[1], base, off)) return;
  int64_t at = off;
  const int small = small_bytes(last_part(in));
  for (const PtxOperand& e : vector_elements(in, in.operands[0])) {
    if (e.kind != PtxOperandKind::kReg) return void(error(in, e.col, "expected a destination register"));
    auto d = value(fr, in, e);
    if (!d) return;
    if (small) {  // a char or short in its word
      lower_ld_small(in, *d, base, at, small, last_part(in)[0] == 's');
      at += small;
      continue;
    }
    emit(in, {.op = Op::kLd, .d = *d, .a = base, .offset = at});
    at += 4;
    // A 64-bit load (a struct or an int4 copied as two longs): the low word is the value, as
    // for every 64-bit register, and the high word its known high half (a store writes it).
    if (is_64(last_part(in)) && d->kind == K::kVReg) {
      high_[d->index] = fresh_();
      emit_helper(in, {.op = Op::kLd, .d = high_[d->index], .a = base, .offset = at});
      single_def_checks_.push_back({d->index, in});
      at += 4;
    } else if (d->kind == K::kVReg && is_64(reg_type(fr, e.name).substr(std::min<size_t>(1, reg_type(fr, e.name).size())))) {
      note_high(in, *d, *d, last_part(in) == "s32");  // ld.u32 into a 64-bit register: extended
    }
  }
}

// ld.param: a kernel parameter (a scalar's load from its word, an array's address as an
// immediate), or a value passed to an inlined function.
void Lowerer::lower_ld_param(Frame& fr, const PtxInstr& in) {
  std::string t = last_part(in);
  const int small = small_bytes(t);  // a char, short or bool argument: its value extended
  if (std::string p = type_problem(t); !p.empty() && !small) return unsupported(in, p);
  auto d = dest(fr, in, 0);
  const PtxOperand& a = in.operands[1];
  if (!d || a.kind != PtxOperandKind::kAddress) return;
  std::optional<IrOperand> from;
  if (auto it = fr.params.find(a.name); it != fr.params.end() && a.imm == 0) from = it->second;
  auto it = env_.param_value.find(a.name);
  // A char or short inside a scalar's word (clang loads (short)(p >> 16) as ld.param.u16 [p+2]).
  if (!from && small && a.imm > 0 && a.imm + small <= 4 && it != env_.param_value.end() &&
      env_.scalar_params.count(a.name)) {
    IrOperand word = fresh_(), part = fresh_();
    emit_helper(in, {.op = Op::kLd, .d = word, .offset = it->second});
    emit_helper(in, {.op = Op::kShrU, .d = part, .a = word, .b = ir_imm(8 * a.imm)});
    return emit(in, {.op = Op::kMov, .d = *d, .a = extended(fr, in, part, small, t[0] == 's')});
  }
  if (!from && (it == env_.param_value.end() || a.imm != 0))
    return unsupported(in, "parameters passed by value as structs are not supported");
  if (!from && !env_.scalar_params.count(a.name)) return emit(in, {.op = Op::kMov, .d = *d, .a = ir_imm(wrap32(it->second))});
  if (!small) return emit(in, from ? IrInstr{.op = Op::kMov, .d = *d, .a = *from} : IrInstr{.op = Op::kLd, .d = *d, .offset = it->second});
  IrOperand word = *from;
  if (!from) word = fresh_(), emit_helper(in, {.op = Op::kLd, .d = word, .offset = it->second});
  emit(in, {.op = Op::kMov, .d = *d, .a = extended(fr, in, word, small, t[0] == 's')});
}

void Lowerer::lower_st(Frame& fr, const PtxInstr& in) {
  if (!operands(in, 2)) return;
  if (has_part(in, "param")) return lower_st_param(fr, in);
  if (!memory_type_ok(in)) return;
  IrOperand base;
  int64_t off = 0;
  if (!address(fr, in, in.operands[0], base, off)) return;
  int64_t at = off;
  for (const PtxOperand& e : vector_elements(in, in.operands[1])) {
    auto v = value(fr, in, e);
    if (!v) return;
    if (const int small = small_bytes(last_part(in))) {  // a char or short in its word
      lower_st_small(in, *v, base, at, small);
      at += small;
      continue;
    }
    if (is_64(last_part(in))) {  // two words: the value's high half must be known
      std::optional<IrOperand> hi = v->kind == K::kImm ? std::optional<IrOperand>(ir_imm(wrap32(e.imm >> 32))) : std::nullopt;
      if (auto it = v->kind == K::kVReg ? high_.find(v->index) : high_.end(); it != high_.end()) hi = it->second;
      if (!hi)
        return unsupported(in, "a 64-bit store of a value computed in 64 bits (a long long, or a pointer stored "
                               "in memory) is not supported; a 64-bit copy of loaded data is");
      if (v->kind == K::kVReg) single_def_checks_.push_back({v->index, in});
      emit(in, {.op = Op::kSt, .a = base, .b = *v, .offset = at});
      emit(in, {.op = Op::kSt, .a = base, .b = *hi, .offset = at + 4});
      at += 8;
      continue;
    }
    emit(in, {.op = Op::kSt, .a = base, .b = *v, .offset = at});
    at += 4;
  }
}

// st.param: an argument for the next call (a copy, so later writes do not change it), or
// a function's return value.
void Lowerer::lower_st_param(Frame& fr, const PtxInstr& in) {
  const PtxOperand& a = in.operands[0];
  auto v = value(fr, in, in.operands[1]);
  if (!v || a.kind != PtxOperandKind::kAddress || a.imm != 0)
    return unsupported(in, "struct arguments and return values are not supported");
  for (const PtxVar& r : fr.fn->returns)
    if (r.name == a.name) return emit(in, {.op = Op::kMov, .d = fr.params.at(a.name), .a = *v});
  IrOperand t = ir_vreg(temp());
  emit(in, {.op = Op::kMov, .d = t, .a = *v});
  fr.params[a.name] = t;
}

void Lowerer::lower_atom(Frame& fr, const PtxInstr& in_ptx) {
  if (!memory_type_ok(in_ptx)) return;
  // LLVM rewrites an atomic that cannot change its word (atomicMin(p, UINT_MAX), atomicAnd(p, ~0u),
  // atomicAdd(p, 0), one that folds so) into `atom.or p, 0`, an atomic read: an add of 0 here.
  PtxInstr in = in_ptx;
  const size_t value_at = in.parts[0] == "red" ? 1 : 2;
  for (std::string& p : in.parts)
    if ((p == "or" || p == "xor" || p == "and") && in.operands.size() == value_at + 1 &&
        in.operands[value_at].kind == PtxOperandKind::kImm &&
        (in.operands[value_at].imm & 0xffffffff) == (p == "and" ? 0xffffffff : 0)) {
      p = "add";
      in.operands[value_at].imm = 0;
    }
  OpMapping m = atom_mapping(in);
  if (!m.problem.empty()) return unsupported(in, m.problem);
  std::optional<Op> op = m.op;
  bool red = in.parts[0] == "red";
  size_t n = (red ? 2 : 3) + (*op == Op::kAtomCas);
  if (!operands(in, n)) return;
  size_t k = 0;
  std::optional<IrOperand> d = red ? std::optional<IrOperand>(ir_vreg(temp())) : dest(fr, in, k++);
  IrOperand base;
  int64_t off = 0;
  if (!d || !address(fr, in, in.operands[k++], base, off)) return;
  auto b = value(fr, in, in.operands[k++]);
  std::optional<IrOperand> c = *op == Op::kAtomCas ? value(fr, in, in.operands[k]) : std::optional<IrOperand>(IrOperand{});
  if (!b || !c) return;
  emit(in, {.op = *op, .d = *d, .a = base, .b = *b, .c = *c, .offset = off});
}

void Lowerer::lower_setp(Frame& fr, const PtxInstr& in) {
  if (in.parts.size() == 3 && is_64(in.parts[2]) && in.parts[2] != "f64") {  // pointers compared
    PtxInstr as32 = in;
    as32.parts[2] = "u32";
    const OpMapping m = setp_mapping(as32);
    if (!m.problem.empty() || !m.op || !operands(in, 3)) return unsupported(in, m.problem);
    auto d = dest(fr, in, 0);
    auto a = value(fr, in, in.operands[1]);
    auto b = value(fr, in, in.operands[2]);
    if (!d || !a || !b) return;
    for (int k : {1, 2}) {
      const IrOperand& o = k == 1 ? *a : *b;
      if (o.kind == K::kVReg) pointer_compares_.push_back({o.index, in});
      else if (in.operands[k].kind == PtxOperandKind::kImm && (in.operands[k].imm < 0 || in.operands[k].imm > 4 * kMemWords))
        return unsupported(in, "a pointer compared with a constant that is not an address");
    }
    return emit(in, {.op = *m.op, .d = *d, .a = *a, .b = *b});
  }
  OpMapping m = setp_mapping(in);
  if (!m.problem.empty()) return unsupported(in, m.problem);
  if (!operands(in, 3)) return;
  auto d = dest(fr, in, 0);
  auto a = value(fr, in, in.operands[1]);
  auto b = value(fr, in, in.operands[2]);
  if (!d || !a || !b) return;
  if (m.op) return emit(in, {.op = *m.op, .d = *d, .a = *a, .b = *b});
  // setp.nan.f32 (isnan): a or b is NaN, i.e. x != x (unordered) for either; num: neither.
  const bool nan = in.parts[1] == "nan";
  const Op self = nan ? Op::kSetpNeuF : Op::kSetpEqF;
  if (*a == *b) return emit(in, {.op = self, .d = *d, .a = *a, .b = *a});
  IrOperand pa = fresh_pred_(), pb = fresh_pred_();
  emit_sequence(in, {{.op = self, .d = pa, .a = *a, .b = *a}, {.op = self, .d = pb, .a = *b, .b = *b},
                     {.op = nan ? Op::kOrPred : Op::kAndPred, .d = *d, .a = pa, .b = pb}});
}

void Lowerer::lower_selp(Frame& fr, const PtxInstr& in) {
  if (std::string p = type_problem(last_part(in)); !p.empty()) return unsupported(in, p);
  if (!operands(in, 4)) return;
  auto d = dest(fr, in, 0);
  auto a = value(fr, in, in.operands[1]);
  auto b = value(fr, in, in.operands[2]);
  auto c = value(fr, in, in.operands[3]);
  if (d && a && b && c) emit(in, {.op = Op::kSelp, .d = *d, .a = *a, .b = *b, .c = *c});
}

void Lowerer::lower_bra(Frame& fr, const PtxInstr& in) {
  if (in.operands.size() != 1 || in.operands[0].kind != PtxOperandKind::kSymbol)
    return unsupported(in, "indirect branches (brx.idx, a switch jump table) are not supported");
  fixups_.push_back({static_cast<int>(f_.code.size()), fr.prefix + in.operands[0].name, in});
  emit(in, {.op = Op::kBra});
}

void Lowerer::lower_ret(Frame& fr, const PtxInstr& in) {
  if (fr.ret_label.empty()) return emit(in, {.op = Op::kExit});
  fixups_.push_back({static_cast<int>(f_.code.size()), fr.ret_label, in});
  emit(in, {.op = Op::kBra});
}

// bar.sync 0 (__syncthreads) is the machine's bar. bar.warp.sync (__syncwarp) is the warp's
// rendezvous (emit_rendezvous): then memory is the same for its lanes, since it is
// sequentially consistent (docs/isa.md).
void Lowerer::lower_bar(const PtxInstr& in) {
  if (has_part(in, "warp") && has_part(in, "sync") && in.operands.size() == 1 && in.guard.empty())
    return emit_rendezvous(in);
  bool sync = has_part(in, "sync");
  bool zero = in.operands.size() == 1 && in.operands[0].kind == PtxOperandKind::kImm && in.operands[0].imm == 0;
  if (!sync || !zero) return unsupported(in, "only __syncthreads() (bar.sync 0) is supported");
  emit(in, {.op = Op::kBar});
}

// shf.{l,r}.{wrap,clamp}.b32 d, lo, hi, n: funnel shift (rotates come out as this).
void Lowerer::lower_shf(Frame& fr, const PtxInstr& in) {
  if (!operands(in, 4) || in.parts.size() != 4) return unsupported(in, "malformed funnel shift");
  auto d = dest(fr, in, 0);
  auto lo = value(fr, in, in.operands[1]);
  auto hi = value(fr, in, in.operands[2]);
  auto n = value(fr, in, in.operands[3]);
  if (!d || !lo || !hi || !n) return;
  emit_sequence(in, expand_funnel_shift(*d, *lo, *hi, *n, in.parts[1] == "l", in.parts[2] == "wrap", fresh_));
}

// shfl.sync.{idx,up,down,bfly}.b32 d, a, b, c, membermask
void Lowerer::lower_shfl(Frame& fr, const PtxInstr& in) {
  const std::string mode = in.parts.size() >= 3 ? in.parts[2] : "";
  if (in.parts.size() < 2 || in.parts[1] != "sync") return unsupported(in, kNoSync);
  const std::map<std::string, ShflMode> modes = {
      {"idx", ShflMode::kIdx}, {"up", ShflMode::kUp}, {"down", ShflMode::kDown}, {"bfly", ShflMode::kBfly}};
  if (in.parts.size() != 4 || in.parts[3] != "b32" || !modes.count(mode))
    return unsupported(in, "only shfl.sync.{idx,up,down,bfly}.b32 (__shfl*_sync on 32-bit values) is supported");
  if (!operands(in, 5)) return;
  auto d = dest(fr, in, 0);
  auto a = value(fr, in, in.operands[1]);
  auto b = value(fr, in, in.operands[2]);
  auto c = value(fr, in, in.operands[3]);
  if (!d || !a || !b || !c || !value(fr, in, in.operands[4])) return;
  CHECK(env_.shfl_word >= 0);
  emit_warp_sequence(in, expand_shfl(*d, *a, *b, *c, modes.at(mode), env_.shfl_word, fresh_, fresh_pred_));
}

// vote.sync.{ballot.b32,any.pred,all.pred} d, p, membermask and activemask.b32 d
void Lowerer::lower_vote(Frame& fr, const PtxInstr& in) {
  const bool active = in.parts[0] == "activemask";
  const std::string mode = in.parts.size() >= 3 ? in.parts[2] : "";
  if (!active && (in.parts.size() < 2 || in.parts[1] != "sync")) return unsupported(in, kNoSync);
  if (active ? in.parts.size() != 2 || in.parts[1] != "b32"
             : in.parts.size() != 4 || !((mode == "ballot" && in.parts[3] == "b32") ||
                                         ((mode == "any" || mode == "all") && in.parts[3] == "pred")))
    return unsupported(in, "only vote.sync.{ballot.b32,any.pred,all.pred} and activemask.b32 are supported");
  if (!operands(in, active ? 1 : 3)) return;
  auto d = dest(fr, in, 0);
  std::optional<IrOperand> p = active ? std::optional<IrOperand>(ir_imm(1)) : value(fr, in, in.operands[1]);
  std::optional<IrOperand> mask = active ? std::optional<IrOperand>(ir_imm(-1)) : value(fr, in, in.operands[2]);
  if (!d || !p || !mask) return;
  if (p->kind != K::kPred && p->kind != K::kImm) return error(in, in.operands[1].col, "vote needs a predicate operand");
  CHECK(env_.vote_word >= 0);
  const VoteMode m = active ? VoteMode::kActive : mode == "ballot" ? VoteMode::kBallot
                   : mode == "any" ? VoteMode::kAny : VoteMode::kAll;
  emit_warp_sequence(in, expand_vote(*d, *p, *mask, m, env_.vote_word, fresh_));
}

// A shuffle's or vote's ops, unguarded: CUDA's functions never guard one, and under a
// guard the lanes that fail it would read helpers they never wrote.
void Lowerer::emit_warp_sequence(const PtxInstr& src, const std::vector<IrInstr>& seq) {
  if (!src.guard.empty()) return unsupported(src, "a guarded shuffle or vote (@p shfl, @p vote) is not supported");
  emit_rendezvous(src);
  for (const IrInstr& x : seq) emit_helper(src, x);
}

void Lowerer::emit_rendezvous(const PtxInstr& src) {
  const int at = static_cast<int>(f_.code.size());
  emit_helper(src, {.op = Op::kBra});
  rendezvous_.push_back({at, at + 1});
}

void Lowerer::append_rendezvous() {
  for (const auto& [bra, back] : rendezvous_) {
    f_.code[bra].target = static_cast<int>(f_.code.size());
    f_.code.push_back({.op = Op::kBra, .target = back, .line = f_.code[bra].line});
  }
}

// bfe.{u32,s32} d, a, pos, len with constant pos and len (shift-and-mask patterns).
void Lowerer::lower_bfe(Frame& fr, const PtxInstr& in) {
  if (!operands(in, 4)) return;
  const PtxOperand &pos = in.operands[2], &len = in.operands[3];
  if (pos.kind != PtxOperandKind::kImm || len.kind != PtxOperandKind::kImm || pos.imm < 0 ||
      len.imm < 1 || pos.imm + len.imm > 32 || is_64(last_part(in)))
    return unsupported(in, "bit-field extract with variable or out-of-range position is not supported");
  auto d = dest(fr, in, 0);
  auto a = value(fr, in, in.operands[1]);
  if (d && a) emit_sequence(in, expand_bfe(*d, *a, pos.imm, len.imm, last_part(in) == "s32", fresh_));
}

// prmt.b32 d, a, b, selector with a constant selector (byte swaps, __byte_perm).
void Lowerer::lower_prmt(Frame& fr, const PtxInstr& in) {
  if (!operands(in, 4) || in.parts.size() != 2) return unsupported(in, "only the default prmt mode is supported");
  const PtxOperand& sel = in.operands[3];
  if (sel.kind != PtxOperandKind::kImm || (sel.imm & 0x8888) != 0)
    return unsupported(in, "byte permute with a variable or sign-replicating selector is not supported");
  auto d = dest(fr, in, 0);
  auto a = value(fr, in, in.operands[1]);
  auto b = value(fr, in, in.operands[2]);
  if (d && a && b) emit_sequence(in, expand_prmt(*d, *a, *b, sel.imm, fresh_));
}

// add sub mul mad div rem neg abs min max and or xor not shl shr popc clz brev.
bool Lowerer::lower_arith(Frame& fr, const PtxInstr& in) {
  OpMapping m = arith_mapping(in);
  if (!m.known) return false;
  if (!m.problem.empty()) return unsupported(in, m.problem), true;
  std::optional<Op> op = m.op;
  const OpInfo& info = op_info(*op);
  const bool rcp = in.parts[0] == "rcp";  // rcp.rn.f32 d, a: the correctly rounded 1 / a
  size_t n = info.form == Form::kDA || info.form == Form::kPP || rcp ? 2
           : info.form == Form::kDABC ? 4 : 3;
  if (!operands(in, n)) return true;
  IrInstr out{.op = *op};
  IrOperand* slots[] = {&out.d, &out.a, &out.b, &out.c};
  for (size_t i = 0; i < n; ++i) {
    auto o = i == 0 ? dest(fr, in, 0) : value(fr, in, in.operands[i]);
    if (!o) return true;
    *slots[i] = *o;
  }
  if (rcp) out.b = out.a, out.a = ir_imm(0x3f800000);  // 1.0f
  if (auto seq = expand_model_op(out, static_cast<int>(f_.code.size()), fresh_, fresh_pred_))
    return emit_sequence(in, *seq), true;  // mul.hi, div, rem: the model has none
  emit(in, out);
  return true;
}

}  // namespace qgpu::lowering
