// PTX -> IR. Each PTX instruction becomes zero or more IR instructions over virtual
// registers; one dispatch on the base opcode, one small function per family.
//
// - 64-bit integer ops whose low 32 bits depend only on the low 32 bits of their inputs
//   (add, sub, mul.lo/wide, mad, shl, and/or/xor/not, neg, cvt between widths, cvta) are
//   done in 32 bits: with 126 words of memory every address fits. Ops that break the rule
//   (64-bit shr, compare, div, rem, min, max, mul.hi) are rejected.
// - Kernel parameters become immediates (an array's byte address, or a scalar's value);
//   module globals become their byte address; a __shared__ variable's address is its copy
//   for this CUDA block: base + %ctaslot * size.
// - Device functions are inlined at their call sites: .param stores and loads become
//   copies, `ret` a branch to the continuation.
// Every problem is collected; lower_kernel throws once with all of them.
#include "compiler/lower.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/error.h"
#include "compiler/lower_expand.h"
#include "compiler/ptx_ops.h"

namespace qgpu {
namespace {

using K = IrOperand::Kind;

constexpr const char* kLocalMemory =
    "local memory (a local array, or -O0) is not supported; use -Os and shared or global arrays";

struct Frame {
  const PtxFunction* fn = nullptr;
  std::string prefix;                         // register and label namespace of this inline copy
  std::map<std::string, IrOperand> params;    // .param name -> value (callee params, retvals)
  std::vector<IrOperand> returns;             // callee's func_retval vregs
  std::string ret_label;                      // continuation label; empty in the kernel
};

class Lowerer {
 public:
  Lowerer(const PtxModule& m, const LowerEnv& env) : m_(m), env_(env) {}

  IrFunction run(const PtxFunction& kernel) {
    Frame top{&kernel, ""};
    lower_body(top, 0);
    resolve_labels();
    check_single_defs();
    if (!errors_.empty()) {
      std::string all;
      for (const std::string& e : errors_) all += (all.empty() ? "" : "\n") + e;
      throw Error(all);
    }
    return std::move(f_);
  }

 private:
  // ---- Diagnostics.

  void error(const PtxInstr& in, int col, const std::string& msg) {
    std::string src = in.line >= 1 && in.line <= static_cast<int>(m_.lines.size()) ? m_.lines[in.line - 1] : "";
    std::replace(src.begin(), src.end(), '\t', ' ');  // one column per byte: the caret lines up
    errors_.push_back(diagnostic(env_.file, in.line, col ? col : in.col, msg, src));
  }

  void unsupported(const PtxInstr& in, std::string_view why) {
    error(in, in.col, fmt::format("unsupported instruction '{}': {}", in.opcode, why));
  }

  // ---- Registers and operands.

  int vreg(const Frame& fr, const std::string& name) {
    std::string full = fr.prefix + name;
    auto [it, fresh] = vregs_.emplace(full, f_.n_vregs);
    if (fresh) f_.vreg_names.push_back(full), ++f_.n_vregs;
    return it->second;
  }

  int predreg(const Frame& fr, const std::string& name) {
    std::string full = fr.prefix + name;
    auto [it, fresh] = preds_.emplace(full, f_.n_preds);
    if (fresh) f_.pred_names.push_back(full), ++f_.n_preds;
    return it->second;
  }

  int temp() {
    f_.vreg_names.push_back(fmt::format("%tmp{}", f_.n_vregs));
    return f_.n_vregs++;
  }

  // The declared type of a register name ("%rd3" -> ".b64") in the current function.
  static std::string reg_type(const Frame& fr, const std::string& name) {
    for (const PtxVar& v : fr.fn->locals)
      if (v.space == ".reg" && (v.count > 0 ? name.rfind(v.name, 0) == 0 &&
                                                  name.size() > v.name.size() &&
                                                  std::isdigit(static_cast<unsigned char>(name[v.name.size()]))
                                            : name == v.name))
        return v.type;
    return "";
  }

  static bool is_local_var(const Frame& fr, const std::string& name) {
    for (const PtxVar& v : fr.fn->locals)
      if (v.space == ".local" && v.name == name) return true;
    return false;
  }

  static int64_t wrap32(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(v)); }

  // A source operand: register, special, immediate or symbol address.
  std::optional<IrOperand> value(Frame& fr, const PtxInstr& in, const PtxOperand& o) {
    switch (o.kind) {
      case PtxOperandKind::kReg: {
        std::string t = reg_type(fr, o.name);
        if (t == ".pred") return ir_pred(predreg(fr, o.name));
        if (std::string p = type_problem(t.empty() ? "" : t.substr(1)); !p.empty())
          return error(in, o.col, fmt::format("register {}: {}", o.name, p)), std::nullopt;
        return ir_vreg(vreg(fr, o.name));
      }
      case PtxOperandKind::kSpecial:
        if (auto s = special_operand(o.name)) return s;
        return error(in, o.col, fmt::format("special register {} is not supported (warpSize-dependent "
                                            "or clock intrinsics)", o.name)), std::nullopt;
      case PtxOperandKind::kImm: return ir_imm(wrap32(o.imm));
      case PtxOperandKind::kFloatImm:
        return error(in, o.col, "floating point is not supported yet (a float or double constant)"), std::nullopt;
      case PtxOperandKind::kSymbol: return symbol_address(fr, in, o.name, o.col);
      case PtxOperandKind::kAddress: case PtxOperandKind::kList: break;
    }
    return error(in, o.col, "expected a register, an immediate or a symbol here"), std::nullopt;
  }

  // The byte address of a global or this CUDA block's copy of a shared variable.
  std::optional<IrOperand> symbol_address(Frame& fr, const PtxInstr& in, const std::string& name, int col) {
    if (auto it = env_.global_address.find(name); it != env_.global_address.end()) return ir_imm(it->second);
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

  std::optional<IrOperand> dest(Frame& fr, const PtxInstr& in, size_t i) {
    if (i >= in.operands.size() || in.operands[i].kind != PtxOperandKind::kReg)
      return error(in, in.col, "expected a destination register"), std::nullopt;
    return value(fr, in, in.operands[i]);
  }

  // [base+off] into (base operand, byte offset).
  bool address(Frame& fr, const PtxInstr& in, const PtxOperand& o, IrOperand& base, int64_t& off) {
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

  // ---- Emission.

  void emit(const PtxInstr& src, IrInstr out) {
    out.line = src.line;
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
  void emit_helper(const PtxInstr& src, IrInstr out) {
    out.line = src.line;
    f_.code.push_back(out);
  }

  // A sequence from lower_expand.h: helpers unguarded, the last (writing d) guarded.
  void emit_sequence(const PtxInstr& src, std::vector<IrInstr> seq) {
    for (size_t i = 0; i + 1 < seq.size(); ++i) emit_helper(src, seq[i]);
    emit(src, seq.back());
  }

  bool operands(const PtxInstr& in, size_t n) {
    if (in.operands.size() == n) return true;
    error(in, in.col, fmt::format("'{}' needs {} operands, has {}", in.opcode, n, in.operands.size()));
    return false;
  }

  // ---- Bodies and calls.

  void lower_body(Frame& fr, int depth) {
    if (depth > 8) return;
    Frame* saved = frame_;
    frame_ = &fr;
    for (const PtxStmt& st : fr.fn->body) {
      if (st.label) labels_[fr.prefix + *st.label] = static_cast<int>(f_.code.size());
      if (st.instr) lower_instr(fr, *st.instr, depth);
    }
    frame_ = saved;
  }

  void lower_instr(Frame& fr, const PtxInstr& in, int depth) {
    const std::string& op = in.parts.at(0);
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
    if (op == "shf") return lower_shf(fr, in);
    if (op == "bfe") return lower_bfe(fr, in);
    if (op == "prmt") return lower_prmt(fr, in);
    if (op == "mul" && has_part(in, "wide")) return lower_mul_wide(fr, in);
    if (op == "shr" && is_64(last_part(in))) return lower_shr64(fr, in);
    if (lower_arith(fr, in)) return;
    unsupported(in, opcode_hint(op));
  }

  void lower_call(Frame& fr, const PtxInstr& in, int depth) {
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
  void skip_call(Frame& fr, const PtxInstr& in, const std::vector<std::string>& rets, std::string_view why) {
    for (const std::string& r : rets) fr.params[r] = ir_vreg(temp());
    unsupported(in, why);
  }

  void inline_call(Frame& fr, const PtxInstr& in, const PtxFunction& callee,
                   const std::vector<std::string>& rets, const std::vector<std::string>& args, int depth) {
    Frame child{&callee, fmt::format("{}#{}/", callee.name, ++inline_count_)};
    child.ret_label = child.prefix + "$ret";
    for (size_t k = 0; k < callee.params.size() && k < args.size(); ++k) {
      auto it = fr.params.find(args[k]);
      if (it == fr.params.end()) return error(in, in.col, fmt::format("argument '{}' was never stored", args[k]));
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

  // ---- Families.

  void lower_mov(Frame& fr, const PtxInstr& in) {
    if (!operands(in, 2)) return;
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
  void lower_cvt(Frame& fr, const PtxInstr& in) {
    if (!operands(in, 2)) return;
    for (const std::string& p : in.parts)
      if (is_float_type(p) || p == "rn" || p == "rz" || p == "rzi" || p == "rni" || p == "sat")
        return unsupported(in, "floating point is not supported yet (a float/int conversion)");
    auto d = dest(fr, in, 0);
    auto a = value(fr, in, in.operands[1]);
    if (!d || !a) return;
    std::string from = in.parts.size() >= 3 ? in.parts.back() : "u32";
    if (from == "u8" || from == "u16") {
      emit(in, {.op = Op::kAnd, .d = *d, .a = *a, .b = ir_imm(from == "u8" ? 0xff : 0xffff)});
    } else if (from == "s8" || from == "s16") {
      int shift = from == "s8" ? 24 : 16;
      IrOperand t = ir_vreg(temp());
      emit_helper(in, {.op = Op::kShl, .d = t, .a = *a, .b = ir_imm(shift)});
      emit(in, {.op = Op::kShrS, .d = *d, .a = t, .b = ir_imm(shift)});
    } else {
      emit(in, {.op = Op::kMov, .d = *d, .a = *a});
      if (d->kind == K::kVReg && in.parts.size() >= 3 && is_64(in.parts[1])) record_high(in, *d, *a, from == "s32");
    }
  }

  // ---- 64-bit values whose high half is cheap (ptx.md section 7 exceptions).
  //
  // clang turns some loops into closed forms such as (a * b) >> 1 computed in 64 bits
  // (mul.wide, shr.u64, cvt.u32.u64). For a 64-bit value made by mul.wide or by widening
  // a 32-bit one, the high half is computed right after it (dead-code removal drops it
  // when unused), so a 64-bit right shift of that value can be done exactly.

  void record_high(const PtxInstr& in, IrOperand d, IrOperand a, bool sign) {
    if (!sign) return void(high_[d.index] = ir_imm(0));
    IrOperand h = ir_vreg(temp());
    emit_helper(in, {.op = Op::kShrS, .d = h, .a = a, .b = ir_imm(31)});
    high_[d.index] = h;
  }

  void lower_mul_wide(Frame& fr, const PtxInstr& in) {
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
  void lower_shr64(Frame& fr, const PtxInstr& in) {
    if (!operands(in, 3)) return;
    auto d = dest(fr, in, 0);
    auto x = value(fr, in, in.operands[1]);
    const PtxOperand& k = in.operands[2];
    if (!d || !x) return;
    auto hi = x->kind == K::kVReg ? high_.find(x->index) : high_.end();
    if (k.kind != PtxOperandKind::kImm || k.imm < 0 || k.imm > 63 || hi == high_.end())
      return unsupported(in, "a 64-bit shift right is supported only by a constant, of a product "
                             "(mul.wide) or a widened int; long long arithmetic is not supported");
    single_def_checks_.push_back({x->index, in});
    emit_sequence(in, expand_shr64(*d, *x, hi->second, k.imm, last_part(in) == "s64", fresh_));
  }

  // The high half recorded for a 64-bit register is only right if nothing else writes it.
  void check_single_defs() {
    for (const auto& [v, src] : single_def_checks_) {
      int defs = 0;
      for (const IrInstr& in : f_.code) defs += in.d.kind == K::kVReg && in.d.index == v;
      if (defs != 1)
        unsupported(src, "a 64-bit shift right of a value that is assigned more than once (long long "
                         "arithmetic in a loop) is not supported");
    }
  }

  bool memory_type_ok(const PtxInstr& in) {
    for (const std::string& p : in.parts) {
      if (p == "v2" || p == "v4") return unsupported(in, "vector loads and stores (int2, int4) are not supported"), false;
      if (p == "local") return unsupported(in, kLocalMemory), false;
      if (is_64(p)) return unsupported(in, "64-bit memory access (a pointer or a long stored in memory) "
                                           "is not supported"), false;
      if (std::string why = type_problem(p); !why.empty()) return unsupported(in, why), false;
    }
    return true;
  }

  void lower_ld(Frame& fr, const PtxInstr& in) {
    if (!operands(in, 2)) return;
    if (has_part(in, "param")) return lower_ld_param(fr, in);
    if (!memory_type_ok(in)) return;
    auto d = dest(fr, in, 0);
    IrOperand base;
    int64_t off = 0;
    if (!d || !address(fr, in, in.operands[1], base, off)) return;
    emit(in, {.op = Op::kLd, .d = *d, .a = base, .offset = off});
  }

  // ld.param: a kernel parameter (an immediate), or a value passed to an inlined function.
  void lower_ld_param(Frame& fr, const PtxInstr& in) {
    std::string t = last_part(in);
    if (std::string p = type_problem(t); !p.empty()) return unsupported(in, p);
    auto d = dest(fr, in, 0);
    const PtxOperand& a = in.operands[1];
    if (!d || a.kind != PtxOperandKind::kAddress) return;
    if (auto it = fr.params.find(a.name); it != fr.params.end() && a.imm == 0)
      return emit(in, {.op = Op::kMov, .d = *d, .a = it->second});
    auto it = env_.param_value.find(a.name);
    if (it == env_.param_value.end() || a.imm != 0)
      return unsupported(in, "parameters passed by value as structs are not supported");
    emit(in, {.op = Op::kMov, .d = *d, .a = ir_imm(wrap32(it->second))});
  }

  void lower_st(Frame& fr, const PtxInstr& in) {
    if (!operands(in, 2)) return;
    if (has_part(in, "param")) return lower_st_param(fr, in);
    if (!memory_type_ok(in)) return;
    IrOperand base;
    int64_t off = 0;
    auto v = value(fr, in, in.operands[1]);
    if (!v || !address(fr, in, in.operands[0], base, off)) return;
    emit(in, {.op = Op::kSt, .a = base, .b = *v, .offset = off});
  }

  // st.param: an argument for the next call (a copy, so later writes do not change it), or
  // a function's return value.
  void lower_st_param(Frame& fr, const PtxInstr& in) {
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

  void lower_atom(Frame& fr, const PtxInstr& in) {
    if (!memory_type_ok(in)) return;
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

  void lower_setp(Frame& fr, const PtxInstr& in) {
    OpMapping m = setp_mapping(in);
    if (!m.problem.empty()) return unsupported(in, m.problem);
    if (!operands(in, 3)) return;
    Op op = *m.op;
    auto d = dest(fr, in, 0);
    auto a = value(fr, in, in.operands[1]);
    auto b = value(fr, in, in.operands[2]);
    if (d && a && b) emit(in, {.op = op, .d = *d, .a = *a, .b = *b});
  }

  void lower_selp(Frame& fr, const PtxInstr& in) {
    if (std::string p = type_problem(last_part(in)); !p.empty()) return unsupported(in, p);
    if (!operands(in, 4)) return;
    auto d = dest(fr, in, 0);
    auto a = value(fr, in, in.operands[1]);
    auto b = value(fr, in, in.operands[2]);
    auto c = value(fr, in, in.operands[3]);
    if (d && a && b && c) emit(in, {.op = Op::kSelp, .d = *d, .a = *a, .b = *b, .c = *c});
  }

  void lower_bra(Frame& fr, const PtxInstr& in) {
    if (in.operands.size() != 1 || in.operands[0].kind != PtxOperandKind::kSymbol)
      return unsupported(in, "indirect branches (brx.idx, a switch jump table) are not supported");
    fixups_.push_back({static_cast<int>(f_.code.size()), fr.prefix + in.operands[0].name, in});
    emit(in, {.op = Op::kBra});
  }

  void lower_ret(Frame& fr, const PtxInstr& in) {
    if (fr.ret_label.empty()) return emit(in, {.op = Op::kExit});
    fixups_.push_back({static_cast<int>(f_.code.size()), fr.ret_label, in});
    emit(in, {.op = Op::kBra});
  }

  void lower_bar(const PtxInstr& in) {
    bool sync = has_part(in, "sync");
    bool zero = in.operands.size() == 1 && in.operands[0].kind == PtxOperandKind::kImm && in.operands[0].imm == 0;
    if (!sync || !zero) return unsupported(in, "only __syncthreads() (bar.sync 0) is supported");
    emit(in, {.op = Op::kBar});
  }

  // shf.{l,r}.{wrap,clamp}.b32 d, lo, hi, n: funnel shift (rotates come out as this).
  void lower_shf(Frame& fr, const PtxInstr& in) {
    if (!operands(in, 4) || in.parts.size() != 4) return unsupported(in, "malformed funnel shift");
    auto d = dest(fr, in, 0);
    auto lo = value(fr, in, in.operands[1]);
    auto hi = value(fr, in, in.operands[2]);
    auto n = value(fr, in, in.operands[3]);
    if (!d || !lo || !hi || !n) return;
    emit_sequence(in, expand_funnel_shift(*d, *lo, *hi, *n, in.parts[1] == "l", in.parts[2] == "wrap", fresh_));
  }

  // bfe.{u32,s32} d, a, pos, len with constant pos and len (shift-and-mask patterns).
  void lower_bfe(Frame& fr, const PtxInstr& in) {
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
  void lower_prmt(Frame& fr, const PtxInstr& in) {
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
  bool lower_arith(Frame& fr, const PtxInstr& in) {
    OpMapping m = arith_mapping(in);
    if (!m.known) return false;
    if (!m.problem.empty()) return unsupported(in, m.problem), true;
    std::optional<Op> op = m.op;
    const OpInfo& info = op_info(*op);
    size_t n = info.form == Form::kDA || info.form == Form::kPP ? 2
             : info.form == Form::kDABC ? 4 : 3;
    if (!operands(in, n)) return true;
    IrInstr out{.op = *op};
    IrOperand* slots[] = {&out.d, &out.a, &out.b, &out.c};
    for (size_t i = 0; i < n; ++i) {
      auto o = i == 0 ? dest(fr, in, 0) : value(fr, in, in.operands[i]);
      if (!o) return true;
      *slots[i] = *o;
    }
    if (auto seq = expand_model_op(out, static_cast<int>(f_.code.size()), fresh_, fresh_pred_))
      return emit_sequence(in, *seq), true;  // mul.hi, div, rem: the model has none
    emit(in, out);
    return true;
  }

  // ---- Labels.

  struct Fixup {
    int instr;
    std::string label;
    PtxInstr src;
  };

  void resolve_labels() {
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

  const PtxModule& m_;
  const LowerEnv& env_;
  IrFunction f_;
  Frame* frame_ = nullptr;
  std::map<std::string, int> vregs_, preds_, labels_;
  std::vector<Fixup> fixups_;
  FreshReg fresh_ = [this] { return ir_vreg(temp()); };
  FreshReg fresh_pred_ = [this] { return f_.pred_names.push_back(fmt::format("%ptmp{}", f_.n_preds)), ir_pred(f_.n_preds++); };
  std::map<int, IrOperand> high_;                           // 64-bit vreg -> its high half
  std::vector<std::pair<int, PtxInstr>> single_def_checks_;
  std::vector<std::string> errors_;
  int inline_count_ = 0;
};

}  // namespace

IrFunction lower_kernel(const PtxModule& m, const PtxFunction& kernel, const LowerEnv& env) {
  return Lowerer(m, env).run(kernel);
}

}  // namespace qgpu
