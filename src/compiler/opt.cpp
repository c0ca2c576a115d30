// IR clean-up before allocation. Every removed instruction is a step (several tokens)
// the model does not generate, so these passes pay for themselves in launch time.
//
// Propagation only uses registers with a single unguarded definition: clang's PTX is
// close to SSA, and such a register holds one value wherever it is read.
#include "compiler/opt.h"

#include <algorithm>

#include "base/error.h"
#include "gpu/alu.h"

namespace qgpu {
namespace {

using K = IrOperand::Kind;

bool is_memory(Op op) {
  Form f = op_info(op).form;
  return f == Form::kLoad || f == Form::kStore || f == Form::kAtom || f == Form::kCas;
}

bool has_side_effect(const IrInstr& in) {
  Effect e = op_info(in.op).effect;
  return e == Effect::kStore || e == Effect::kAtomic || e == Effect::kBranch ||
         e == Effect::kBarrier || e == Effect::kExit;
}

// For each register: its single unguarded defining instruction, or -1.
struct Defs {
  std::vector<int> vreg, pred;
};

Defs single_defs(const IrFunction& f) {
  Defs d{std::vector<int>(f.n_vregs, -1), std::vector<int>(f.n_preds, -1)};
  std::vector<int> nv(f.n_vregs, 0), np(f.n_preds, 0);
  for (int i = 0; i < static_cast<int>(f.code.size()); ++i) {
    const IrInstr& in = f.code[i];
    std::vector<int>& def = in.d.kind == K::kPred ? d.pred : d.vreg;
    std::vector<int>& n = in.d.kind == K::kPred ? np : nv;
    if (in.d.kind != K::kVReg && in.d.kind != K::kPred) continue;
    ++n[in.d.index];
    def[in.d.index] = in.guard < 0 ? i : -2;
  }
  for (int v = 0; v < f.n_vregs; ++v) if (nv[v] != 1 || d.vreg[v] < 0) d.vreg[v] = -1;
  for (int p = 0; p < f.n_preds; ++p) if (np[p] != 1 || d.pred[p] < 0) d.pred[p] = -1;
  return d;
}

// The value a single-def register always holds, if it is a constant, special or another
// single-def register (a copy).
std::optional<IrOperand> known_value(const IrFunction& f, const Defs& defs, const IrOperand& o) {
  if (o.kind != K::kVReg && o.kind != K::kPred) return std::nullopt;
  int i = (o.kind == K::kVReg ? defs.vreg : defs.pred)[o.index];
  if (i < 0) return std::nullopt;
  const IrInstr& def = f.code[i];
  if (def.op != Op::kMov && def.op != Op::kMovPred) return std::nullopt;
  const IrOperand& src = def.a;
  if (src.kind == K::kImm || src.kind == K::kSpecial) return src;
  if (src.kind == K::kVReg && defs.vreg[src.index] >= 0) return src;
  if (src.kind == K::kPred && defs.pred[src.index] >= 0) return src;
  return std::nullopt;
}

bool propagate_values(IrFunction& f) {
  Defs defs = single_defs(f);
  bool changed = false;
  for (IrInstr& in : f.code) {
    for (IrOperand* o : {&in.a, &in.b, &in.c}) {
      std::optional<IrOperand> v = known_value(f, defs, *o);
      if (!v) continue;
      if (in.op == Op::kSelp && o == &in.c && v->kind != K::kPred) continue;  // must stay a predicate
      if (is_memory(in.op) && o == &in.a && v->kind == K::kImm) {
        in.offset += v->imm;
        *o = {};
      } else {
        *o = *v;
      }
      changed = true;
    }
    if (in.guard >= 0) {
      std::optional<IrOperand> v = known_value(f, defs, ir_pred(in.guard));
      if (v && v->kind == K::kPred) in.guard = v->index, changed = true;
    }
  }
  return changed;
}

// [d + k] where d = add(x, imm) and x holds one value: use [x + imm + k].
bool fold_addresses(IrFunction& f) {
  Defs defs = single_defs(f);
  bool changed = false;
  for (IrInstr& in : f.code) {
    if (!is_memory(in.op) || in.a.kind != K::kVReg) continue;
    int i = defs.vreg[in.a.index];
    if (i < 0 || f.code[i].op != Op::kAdd) continue;
    const IrInstr& add = f.code[i];
    const IrOperand* x = add.b.kind == K::kImm ? &add.a : add.a.kind == K::kImm ? &add.b : nullptr;
    const IrOperand* k = x == &add.a ? &add.b : &add.a;
    if (!x || !((x->kind == K::kVReg && defs.vreg[x->index] >= 0) || x->kind == K::kSpecial)) continue;
    in.offset += k->imm;
    in.a = *x;
    changed = true;
  }
  return changed;
}

bool is_imm(const IrOperand& o, int64_t v) { return o.kind == K::kImm && o.imm == v; }

// x+0, x-0, x|0, x^0, x<<0, x>>0, x*1, x&-1 -> mov x; x*1+y -> x+y.
bool simplify_algebra(IrFunction& f) {
  bool changed = false;
  for (IrInstr& in : f.code) {
    const IrOperand* keep = nullptr;
    switch (in.op) {
      case Op::kAdd: case Op::kOr: case Op::kXor:
        keep = is_imm(in.b, 0) ? &in.a : is_imm(in.a, 0) ? &in.b : nullptr;
        break;
      case Op::kSub: case Op::kShl: case Op::kShrU: case Op::kShrS:
        keep = is_imm(in.b, 0) ? &in.a : nullptr;
        break;
      case Op::kMulLo: keep = is_imm(in.b, 1) ? &in.a : is_imm(in.a, 1) ? &in.b : nullptr; break;
      case Op::kAnd: keep = is_imm(in.b, -1) ? &in.a : is_imm(in.a, -1) ? &in.b : nullptr; break;
      case Op::kMadLo:
        if (is_imm(in.b, 1) || is_imm(in.a, 1)) {
          in = {.op = Op::kAdd, .guard = in.guard, .guard_negated = in.guard_negated, .d = in.d,
                .a = is_imm(in.b, 1) ? in.a : in.b, .b = in.c, .line = in.line};
          changed = true;
        }
        break;
      default: break;
    }
    if (!keep) continue;
    IrOperand a = *keep;
    in = {.op = Op::kMov, .guard = in.guard, .guard_negated = in.guard_negated, .d = in.d, .a = a, .line = in.line};
    changed = true;
  }
  return changed;
}

// Ops whose sources are all immediates are computed now, by the interpreter's own ALU:
// they become moves of constants, which propagation then removes.
bool fold_constants(IrFunction& f) {
  bool changed = false;
  for (IrInstr& in : f.code) {
    const OpInfo& info = op_info(in.op);
    bool value = info.effect == Effect::kValue && in.op != Op::kLd && in.op != Op::kMov;
    bool compare_op = info.form == Form::kPAB;
    if (!value && !compare_op) continue;
    bool all_imm = true;
    for (const IrOperand* o : {&in.a, &in.b, &in.c})
      all_imm = all_imm && (o->kind == K::kImm || o->kind == K::kNone);
    if (!all_imm) continue;
    auto u = [](const IrOperand& o) { return static_cast<uint32_t>(o.imm); };
    int64_t r = value ? static_cast<int32_t>(alu(in.op, u(in.a), u(in.b), u(in.c)))
                      : compare(in.op, u(in.a), u(in.b));
    in = {.op = value ? Op::kMov : Op::kMovPred, .guard = in.guard, .guard_negated = in.guard_negated,
          .d = in.d, .a = ir_imm(r), .line = in.line};
    changed = true;
  }
  return changed;
}

// A guard whose predicate is a known constant: drop the guard, or the instruction.
bool resolve_constant_guards(IrFunction& f) {
  Defs defs = single_defs(f);
  std::vector<bool> keep(f.code.size(), true);
  bool changed = false;
  for (size_t i = 0; i < f.code.size(); ++i) {
    IrInstr& in = f.code[i];
    if (in.guard < 0) continue;
    std::optional<IrOperand> v = known_value(f, defs, ir_pred(in.guard));
    if (!v || v->kind != K::kImm) continue;
    if ((v->imm != 0) != in.guard_negated) in.guard = -1, in.guard_negated = false;
    else keep[i] = false;
    changed = true;
  }
  if (changed) compact(f, keep);
  return changed;
}

// "@p bra L1; bra L2; L1:" -> "@!p bra L2": one step less per pass through it.
bool invert_branches(IrFunction& f) {
  int n = static_cast<int>(f.code.size());
  std::vector<bool> keep(n, true);
  bool changed = false;
  for (int i = 0; i + 1 < n; ++i) {
    IrInstr &cond = f.code[i], &jump = f.code[i + 1];
    if (cond.op != Op::kBra || cond.guard < 0 || cond.target != i + 2 || !keep[i]) continue;
    if (jump.op != Op::kBra || jump.guard >= 0) continue;
    bool target_of_other = false;
    for (const IrInstr& in : f.code) target_of_other |= in.op == Op::kBra && in.target == i + 1;
    if (target_of_other) continue;
    cond.target = jump.target;
    cond.guard_negated = !cond.guard_negated;
    keep[i + 1] = false;
    changed = true;
  }
  if (changed) compact(f, keep);
  return changed;
}

// Drops instructions whose result nobody reads.
bool remove_dead(IrFunction& f) {
  std::vector<int> reads_v(f.n_vregs, 0), reads_p(f.n_preds, 0);
  for (const IrInstr& in : f.code)
    for (const IrOperand& o : ir_uses(in)) ++(o.kind == K::kVReg ? reads_v : reads_p)[o.index];
  std::vector<bool> keep(f.code.size(), true);
  bool changed = false;
  for (size_t i = 0; i < f.code.size(); ++i) {
    const IrInstr& in = f.code[i];
    IrOperand d = ir_def(in);
    bool unread = d.kind == K::kNone || (d.kind == K::kVReg ? reads_v : reads_p)[d.index] == 0;
    bool self_move = (in.op == Op::kMov || in.op == Op::kMovPred) && in.a == in.d;
    if ((unread && !has_side_effect(in)) || self_move) keep[i] = false, changed = true;
  }
  if (changed) compact(f, keep);
  return changed;
}

}  // namespace

void compact(IrFunction& f, const std::vector<bool>& keep) {
  int n = static_cast<int>(f.code.size());
  std::vector<int> new_index(n + 1, 0);
  int k = 0;
  for (int i = 0; i < n; ++i) new_index[i] = k, k += keep[i];
  new_index[n] = k;
  std::vector<IrInstr> out;
  for (int i = 0; i < n; ++i) {
    if (!keep[i]) continue;
    IrInstr in = f.code[i];
    if (in.op == Op::kBra) in.target = new_index[std::min(in.target, n)];
    out.push_back(in);
  }
  f.code = std::move(out);
}

void optimise(IrFunction& f) {
  for (int round = 0; round < 32; ++round) {
    bool changed = propagate_values(f);
    changed |= simplify_algebra(f);
    changed |= fold_constants(f);
    changed |= resolve_constant_guards(f);
    changed |= fold_addresses(f);
    changed |= invert_branches(f);
    changed |= remove_dead(f);
    if (!changed) return;
  }
}

void legalise(IrFunction& f) {
  std::vector<IrInstr> out;
  std::vector<int> new_index(f.code.size() + 1);
  for (size_t i = 0; i < f.code.size(); ++i) {
    new_index[i] = static_cast<int>(out.size());
    IrInstr in = f.code[i];
    bool memory = is_memory(in.op);
    bool imm_used = memory;  // a memory op's immediate is its offset
    for (IrOperand* o : {&in.a, &in.b, &in.c}) {
      if (o->kind != K::kImm) continue;
      if (!imm_used && !(memory && o == &in.a)) {
        imm_used = true;
        continue;
      }
      int t = f.n_vregs++;
      f.vreg_names.push_back("%imm" + std::to_string(t));
      out.push_back({.op = Op::kMov, .d = ir_vreg(t), .a = *o, .line = in.line});
      *o = ir_vreg(t);
    }
    out.push_back(in);
  }
  new_index[f.code.size()] = static_cast<int>(out.size());
  for (IrInstr& in : out)
    if (in.op == Op::kBra) in.target = new_index[in.target];
  f.code = std::move(out);
}

}  // namespace qgpu
