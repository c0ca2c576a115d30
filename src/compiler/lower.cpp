// PTX -> IR. Each PTX instruction becomes zero or more IR instructions over virtual
// registers; one dispatch on the base opcode, one small function per family.
//
// - 64-bit integer ops whose low 32 bits depend only on the low 32 bits of their inputs
//   (add, sub, mul.lo/wide, mad, shl, and/or/xor/not, neg, cvt between widths, cvta) are
//   done in 32 bits: with 126 words of memory every address fits. Ops that break the rule
//   (64-bit shr, compare, div, rem, min, max, mul.hi) are rejected.
// - A pointer parameter becomes an immediate (its array's byte address); a scalar one a
//   load of the memory word that holds it (compile.cpp places it), never its value;
//   module globals become their byte address; a __shared__ variable's address is its copy
//   for this CUDA block: base + %ctaslot * size.
// - Device functions are inlined at their call sites: .param stores and loads become
//   copies, `ret` a branch to the continuation.
// Every problem is collected; lower_kernel throws once with all of them.
#include "compiler/lower.h"

#include <fmt/format.h>

#include <algorithm>

#include "compiler/lower_internal.h"
#include "compiler/ptx_lines.h"
#include "compiler/ptx_ops.h"

namespace qgpu {
namespace lowering {

void Lowerer::error(const PtxInstr& in, int col, const std::string& msg) {
  CHECK(env_.source != nullptr);
  errors_.push_back(env_.source->diagnostic(in.line, col ? col : in.col, msg));
}

void Lowerer::unsupported(const PtxInstr& in, std::string_view why) {
  error(in, in.col, fmt::format("unsupported instruction '{}': {}", in.opcode, why));
}

int Lowerer::vreg(const Frame& fr, const std::string& name) {
  std::string full = fr.prefix + name;
  auto [it, fresh] = vregs_.emplace(full, f_.n_vregs);
  if (fresh) f_.vreg_names.push_back(full), ++f_.n_vregs;
  return it->second;
}

int Lowerer::predreg(const Frame& fr, const std::string& name) {
  std::string full = fr.prefix + name;
  auto [it, fresh] = preds_.emplace(full, f_.n_preds);
  if (fresh) f_.pred_names.push_back(full), ++f_.n_preds;
  return it->second;
}

int Lowerer::temp() {
  f_.vreg_names.push_back(fmt::format("%tmp{}", f_.n_vregs));
  return f_.n_vregs++;
}

// The declared type of a register name ("%rd3" -> ".b64") in the current function.
std::string Lowerer::reg_type(const Frame& fr, const std::string& name) {
  for (const PtxVar& v : fr.fn->locals)
    if (v.space == ".reg" && (v.count > 0 ? name.rfind(v.name, 0) == 0 &&
                                                name.size() > v.name.size() &&
                                                std::isdigit(static_cast<unsigned char>(name[v.name.size()]))
                                          : name == v.name))
      return v.type;
  return "";
}

bool Lowerer::is_local_var(const Frame& fr, const std::string& name) {
  for (const PtxVar& v : fr.fn->locals)
    if (v.space == ".local" && v.name == name) return true;
  return false;
}

int64_t Lowerer::wrap32(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(v)); }

// A source operand: register, special, immediate or symbol address.
std::optional<IrOperand> Lowerer::value(Frame& fr, const PtxInstr& in, const PtxOperand& o) {
  switch (o.kind) {
    case PtxOperandKind::kReg: {
      std::string t = reg_type(fr, o.name);
      if (t == ".pred") return ir_pred(predreg(fr, o.name));
      // A 16-bit register (%rs: char and short values) is a 32-bit one whose low 16 bits are
      // its value: the ops that read the bits above them extend it first (lower_16).
      if (std::string p = type_problem(t.empty() ? "" : t.substr(1)); !p.empty() && small_bytes(t.substr(1)) != 2)
        return error(in, o.col, fmt::format("register {}: {}", o.name, p)), std::nullopt;
      return ir_vreg(vreg(fr, o.name));
    }
    case PtxOperandKind::kSpecial:
      if (auto s = special_operand(o.name)) return s;
      return error(in, o.col, fmt::format("special register {} is not supported (clocks and other "
                                          "hardware counters)", o.name)), std::nullopt;
    case PtxOperandKind::kImm: return ir_imm(wrap32(o.imm));
    case PtxOperandKind::kFloatImm:
      if (o.name.size() == 10 && (o.name[1] == 'f' || o.name[1] == 'F')) return ir_imm(wrap32(o.imm));
      return error(in, o.col, fmt::format("a double constant ({}): {}", o.name, kNoDouble)), std::nullopt;
    case PtxOperandKind::kSymbol: return symbol_address(fr, in, o.name, o.col);
    case PtxOperandKind::kAddress: case PtxOperandKind::kList: break;
  }
  return error(in, o.col, "expected a register, an immediate or a symbol here"), std::nullopt;
}

// The byte address of a global or this CUDA block's copy of a shared variable.
std::optional<IrOperand> Lowerer::symbol_address(Frame& fr, const PtxInstr& in, const std::string& name, int col) {
  if (auto it = env_.global_address.find(name); it != env_.global_address.end()) return ir_imm(it->second);
  if (auto l = env_.local.find(name); l != env_.local.end()) {  // this thread's copy of a local array
    IrOperand slot = ir_vreg(temp()), scaled = ir_vreg(temp()), at = ir_vreg(temp());
    emit_helper(in, {.op = Op::kMadLo, .d = slot, .a = ir_special(Special::kWarpid), .b = ir_imm(kLanes),
                     .c = ir_special(Special::kLaneid)});
    emit_helper(in, {.op = Op::kMulLo, .d = scaled, .a = slot, .b = ir_imm(4 * l->second.words)});
    emit_helper(in, {.op = Op::kAdd, .d = at, .a = scaled, .b = ir_imm(4 * l->second.base_word)});
    return at;
  }
  auto it = env_.shared.find(name);
  if (it == env_.shared.end() && is_local_var(fr, name))  // __local_depot: a local array, or -O0
    return error(in, col, fmt::format("'{}': {}", name, kLocalMemory)), std::nullopt;
  if (it == env_.shared.end())
    return error(in, col, fmt::format("'{}' is not a variable in memory (function pointers and "
                                      "local arrays are not supported)", name)), std::nullopt;
  if (env_.ctas_per_wave == 1) return ir_imm(4 * it->second.base_word);
  IrOperand t = ir_vreg(temp());
  emit_helper(in, {.op = Op::kMadLo, .d = t, .a = ir_special(Special::kCtaslot),
                   .b = ir_imm(4 * it->second.words), .c = ir_imm(4 * it->second.base_word)});
  return t;
}

std::optional<IrOperand> Lowerer::dest(Frame& fr, const PtxInstr& in, size_t i) {
  if (i >= in.operands.size() || in.operands[i].kind != PtxOperandKind::kReg)
    return error(in, in.col, "expected a destination register"), std::nullopt;
  return value(fr, in, in.operands[i]);
}

// [base+off] into (base operand, byte offset).
bool Lowerer::address(Frame& fr, const PtxInstr& in, const PtxOperand& o, IrOperand& base, int64_t& off) {
  if (o.kind != PtxOperandKind::kAddress) return error(in, o.col, "expected an address [..]"), false;
  off = o.imm;
  base = {};
  if (o.name.empty()) return true;
  std::optional<IrOperand> b = o.base_is_reg ? value(fr, in, {PtxOperandKind::kReg, o.name, true, 0, {}, o.col})
                                             : symbol_address(fr, in, o.name, o.col);
  if (!b) return false;
  if (b->kind == K::kImm) off += b->imm, base = {};
  else base = *b;
  return true;
}

namespace {

// mul as the fma that computes it exactly (fold_fma's identity, read back): p + -0 is p
// for every p, the zeros' signs too. add and sub stay their own two steps.
IrInstr as_fma(IrInstr in) {
  constexpr int64_t kMinusZero = 0x80000000;
  if (in.op == Op::kMulF) in.c = ir_imm(kMinusZero);
  else return in;
  in.op = Op::kFmaF;
  return in;
}

}  // namespace

void Lowerer::emit(const PtxInstr& src, IrInstr out) {
  if (env_.float_sequences) {
    out = fold_fma(out);
    if (env_.fma_for_all) out = as_fma(out);
    if (env_.shared_float_ops.contains(out.op == Op::kSubF ? Op::kAddF : out.op)) return emit_float_call(src, out);
    if (std::optional<std::vector<IrInstr>> seq = expand_float_op(out, static_cast<int>(f_.code.size()), fresh_, fresh_pred_)) {
      seq->back().guard = out.guard;  // a guard the caller set; else the PTX's, as for any op
      seq->back().guard_negated = out.guard_negated;
      return emit_sequence(src, std::move(*seq));
    }
  }
  out.line = src.line;
  note_def64(src, out);
  const bool typed_d = !src.operands.empty() && src.operands[0].kind == PtxOperandKind::kReg;
  out.float_d = out.d.kind == K::kVReg && typed_d && reg_type(*frame_, src.operands[0].name) == ".f32";
  normalise_predicate_immediates(out);
  if (!src.guard.empty() && out.guard < 0) {
    out.guard = predreg(*frame_, src.guard);
    out.guard_negated = src.guard_negated;
  }
  f_.code.push_back(out);
}

// A helper value of a longer sequence (an address, a shift amount, a high half): left
// unguarded. The machine reads every source of every lane in the step's mask, guard or
// not (docs/isa.md), so a lane whose guard failed would read a helper it never wrote;
// the sequence's last instruction, which writes the PTX destination, carries the guard.
void Lowerer::emit_helper(const PtxInstr& src, IrInstr out) {
  if (env_.float_sequences)
    if (std::optional<std::vector<IrInstr>> seq = expand_float_op(out, static_cast<int>(f_.code.size()), fresh_, fresh_pred_)) {
      for (IrInstr& in : *seq) emit_helper(src, in);
      return;
    }
  out.line = src.line;
  f_.code.push_back(out);
}

// A sequence from lower_expand.h: helpers unguarded, the last (writing d) guarded.
void Lowerer::emit_sequence(const PtxInstr& src, std::vector<IrInstr> seq) {
  for (size_t i = 0; i + 1 < seq.size(); ++i) emit_helper(src, seq[i]);
  emit(src, seq.back());
}

// mov a, x; mov b, y (sub: y with its sign flipped); mov c, z; mov ret, site; bra copy;
// then, where the copy branches back, the guarded mov d, a.
void Lowerer::emit_float_call(const PtxInstr& src, const IrInstr& out) {
  const Op op = out.op == Op::kSubF ? Op::kAddF : out.op;
  auto r = std::find_if(routines_.begin(), routines_.end(), [&](const Routine& x) { return x.op == op; });
  if (r == routines_.end()) r = routines_.insert(r, {op, fresh_(), fresh_(), fresh_(), fresh_(), {}, {}, src.line});
  emit_helper(src, {.op = Op::kMov, .d = r->a, .a = out.a});
  if (out.op == Op::kSubF) emit_helper(src, {.op = Op::kXor, .d = r->b, .a = out.b, .b = ir_imm(0x80000000)});
  else if (out.b.kind != IrOperand::Kind::kNone) emit_helper(src, {.op = Op::kMov, .d = r->b, .a = out.b});
  if (out.c.kind != IrOperand::Kind::kNone) emit_helper(src, {.op = Op::kMov, .d = r->c, .a = out.c});
  emit_helper(src, {.op = Op::kMov, .d = r->ret, .a = ir_imm(std::ssize(r->calls))});
  r->calls.push_back(static_cast<int>(f_.code.size()));
  emit_helper(src, {.op = Op::kBra});
  r->returns.push_back(static_cast<int>(f_.code.size()));
  IrInstr result = out;
  result.op = Op::kMov, result.a = r->a, result.b = {}, result.c = {};
  emit(src, result);
}

// Each shared copy after the kernel's last block: the sequence, then a branch back to its
// call site by ret (a compare and a branch a site, the last site unconditional).
void Lowerer::append_routines() {
  for (Routine& r : routines_) {
    const int start = static_cast<int>(f_.code.size());
    for (int at : r.calls) f_.code[at].target = start;
    std::vector<IrInstr> seq =
        expand_float_op({.op = r.op, .d = r.a, .a = r.a, .b = r.b, .c = r.c}, start, fresh_, fresh_pred_).value();
    for (size_t k = 0; k + 1 < r.returns.size(); ++k) {
      IrOperand p = fresh_pred_();
      seq.push_back({.op = Op::kSetpEq, .d = p, .a = r.ret, .b = ir_imm(static_cast<int64_t>(k))});
      seq.push_back({.op = Op::kBra, .guard = p.index, .target = r.returns[k]});
    }
    seq.push_back({.op = Op::kBra, .target = r.returns.back()});
    for (IrInstr& in : seq) in.line = r.line, f_.code.push_back(in);
  }
}

bool Lowerer::operands(const PtxInstr& in, size_t n) {
  if (in.operands.size() == n) return true;
  error(in, in.col, fmt::format("'{}' needs {} operands, has {}", in.opcode, n, in.operands.size()));
  return false;
}

void Lowerer::lower_body(Frame& fr, int depth) {
  if (depth > 8) return;
  Frame* saved = frame_;
  frame_ = &fr;
  for (const PtxStmt& st : fr.fn->body) {
    if (st.label) labels_[fr.prefix + *st.label] = static_cast<int>(f_.code.size());
    if (st.instr) lower_instr(fr, *st.instr, depth);
  }
  frame_ = saved;
}

void Lowerer::lower_instr(Frame& fr, const PtxInstr& in, int depth) {
  const std::string& op = in.parts.at(0);
  if (env_.wide && op == "setp" && in.parts.size() == 3 && is_64(in.parts[2])) return lower_wide_setp(fr, in);
  if (env_.wide && !in.operands.empty() && op != "st" && op != "call" && is_wide_reg(fr, in.operands[0])) {
    if (lower_wide(fr, in)) return;
    wide_unknown_.insert(fr.prefix + in.operands[0].name);  // its low half as below; the high half unknown
  }
  if (small_bytes(last_part(in)) == 2 && op != "ld" && op != "st" && op != "cvt" && op != "atom" && op != "red")
    return lower_16(fr, in, depth);
  if (op == "mov") return lower_mov(fr, in);
  if (op == "cvta" || op == "cvt") return lower_cvt(fr, in);
  if (op == "ld") return lower_ld(fr, in);
  if (op == "st") return lower_st(fr, in);
  if (op == "atom" || op == "red") return lower_atom(fr, in);
  if (op == "setp") return lower_setp(fr, in);
  if (op == "selp") return lower_selp(fr, in);
  if (op == "bra") return lower_bra(fr, in);
  if (op == "ret" || op == "exit") return lower_ret(fr, in);
  if (op == "bar" || op == "barrier") return lower_bar(in);
  if (op == "membar" || op == "fence") return;  // memory is sequentially consistent here
  if (op == "call") return lower_call(fr, in, depth);
  if (op == "shfl") return lower_shfl(fr, in);
  if (op == "vote" || op == "activemask") return lower_vote(fr, in);
  if (op == "shf") return lower_shf(fr, in);
  if (op == "bfe") return lower_bfe(fr, in);
  if (op == "prmt") return lower_prmt(fr, in);
  if (op == "mul" && has_part(in, "wide")) return lower_mul_wide(fr, in);
  if (op == "shr" && is_64(last_part(in))) return lower_shr64(fr, in);
  if (lower_arith(fr, in)) return;
  unsupported(in, opcode_hint(op));
}

void Lowerer::lower_call(Frame& fr, const PtxInstr& in, int depth) {
  // call(.uni) (retval0), f, (param0, param1)  or  call f, (param0)
  size_t i = 0;
  std::vector<std::string> rets, args;
  if (i < in.operands.size() && in.operands[i].kind == PtxOperandKind::kList) rets = in.operands[i++].list;
  if (i >= in.operands.size() || in.operands[i].kind != PtxOperandKind::kSymbol)
    return skip_call(fr, in, rets, "indirect calls (function pointers) are not supported");
  std::string callee_name = in.operands[i++].name;
  if (i < in.operands.size() && in.operands[i].kind == PtxOperandKind::kList) args = in.operands[i].list;
  const PtxFunction* callee = nullptr;
  for (const PtxFunction& fn : m_.functions)
    if (fn.name == callee_name && !fn.is_entry) callee = &fn;
  if (!callee)
    return skip_call(fr, in, rets, fmt::format("'{}' has no body here (printf, malloc and other library "
                                               "calls are not supported)", callee_name));
  if (depth >= 8) return skip_call(fr, in, rets, "calls nested more than 8 deep (recursion?) are not supported");
  inline_call(fr, in, *callee, rets, args, depth);
}

// A call that cannot be inlined: its return values get placeholders, so the loads of
// them after the call report nothing of their own.
void Lowerer::skip_call(Frame& fr, const PtxInstr& in, const std::vector<std::string>& rets, std::string_view why) {
  for (const std::string& r : rets) fr.params[r] = ir_vreg(temp());
  unsupported(in, why);
}

void Lowerer::inline_call(Frame& fr, const PtxInstr& in, const PtxFunction& callee,
                 const std::vector<std::string>& rets, const std::vector<std::string>& args, int depth) {
  Frame child{&callee, fmt::format("{}#{}/", callee.name, ++inline_count_)};
  child.ret_label = child.prefix + "$ret";
  for (size_t k = 0; k < callee.params.size() && k < args.size(); ++k) {
    auto it = fr.params.find(args[k]);
    if (it == fr.params.end()) {  // an argument the callee never reads: LLVM passes poison, clang 19 no store
      IrOperand undefined = ir_vreg(temp());
      emit(in, {.op = Op::kMov, .d = undefined, .a = ir_imm(0)});
      child.params[callee.params[k].name] = undefined;
      continue;
    }
    child.params[callee.params[k].name] = it->second;
  }
  for (size_t k = 0; k < callee.returns.size(); ++k) {
    IrOperand r = ir_vreg(temp());
    child.returns.push_back(r);
    child.params[callee.returns[k].name] = r;
    if (k < rets.size()) fr.params[rets[k]] = r;
  }
  lower_body(child, depth + 1);
  labels_[child.ret_label] = static_cast<int>(f_.code.size());
}

// A 64-bit register's definition: an address (a pointer parameter, a variable's address,
// a copy of one, one plus or minus an offset), a small constant (NULL), or other (a long long).
void Lowerer::note_def64(const PtxInstr& src, const IrInstr& out) {
  if (out.d.kind != K::kVReg || src.operands.empty() || src.operands[0].kind != PtxOperandKind::kReg) return;
  const std::string type = reg_type(*frame_, src.operands[0].name);  // ".b64"
  if (type.size() < 2 || !is_64(type.substr(1))) return;
  auto pointer = [&](const IrOperand& o) { return o.kind == K::kVReg && pointer_defs_.count(o.index); };
  auto small = [](const IrOperand& o) { return o.kind == K::kImm && o.imm >= 0 && o.imm <= 4 * kMemWords; };
  const bool address = (out.op == Op::kMov && (pointer(out.a) || small(out.a))) ||
                       ((out.op == Op::kAdd || out.op == Op::kSub) && (pointer(out.a) || pointer(out.b)) &&
                        !(pointer(out.a) && pointer(out.b)));
  (address ? pointer_defs_ : other_defs_).insert(out.d.index);
}

// Each compared 64-bit register holds only addresses: then its low 32 bits are its value.
void Lowerer::check_pointer_compares() {
  std::set<std::pair<int, int>> reported;  // a compare of two long longs: one error
  for (const auto& [v, src] : pointer_compares_)
    if ((!pointer_defs_.count(v) || other_defs_.count(v)) && reported.insert({src.line, src.col}).second)
      unsupported(src, std::string(kNoPointerCompare) + " (p != NULL, p < end); this one "
                       "compares a long long or a value computed from one (a size_t or long index: use int or "
                       "unsigned, the machine's integers are 32 bits)");
}

void Lowerer::resolve_labels() {
  for (const Fixup& fx : fixups_) {
    auto it = labels_.find(fx.label);
    if (it == labels_.end()) {
      error(fx.src, fx.src.col, fmt::format("branch to unknown label '{}'", fx.label));
      continue;
    }
    f_.code[fx.instr].target = it->second;
  }
  // Falling off the end, or branching to a label at the very end, finishes the thread.
  int n = static_cast<int>(f_.code.size());
  bool to_end = false;
  for (const IrInstr& in : f_.code) to_end |= in.op == Op::kBra && in.target >= n;
  bool ends = n > 0 && f_.code.back().guard < 0 &&
              (f_.code.back().op == Op::kExit || f_.code.back().op == Op::kBra);
  if (to_end || !ends) f_.code.push_back({.op = Op::kExit});
}

}  // namespace lowering

IrFunction lower_kernel(const PtxModule& m, const PtxFunction& kernel, const LowerEnv& env) {
  return lowering::Lowerer(m, env).run(kernel);
}

}  // namespace qgpu
