// IR clean-up before allocation. Every removed instruction is a step (several tokens)
// the model does not generate, so these passes pay for themselves in launch time.
//
// Propagation only uses registers with a single unguarded definition: clang's PTX is
// close to SSA, and such a register holds one value wherever it is read.
#include "compiler/opt.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <set>

#include "base/error.h"
#include "gpu/alu.h"

namespace qgpu {
namespace {

using K = IrOperand::Kind;

bool is_memory(Op op) {
  Form f = op_info(op).form;
  return f == Form::kLoad || f == Form::kStore || f == Form::kAtom || f == Form::kCas;
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

// Predicate logic with a constant operand (propagation puts the 0/1 of a folded setp
// there): p&0 -> 0, p&1 -> p, p|1 -> 1, p|0 -> p, p^0 -> p, p^1 -> !p, !k -> 1-k. Left as
// they were, two constants would reach legalise, which can only move a *value* immediate
// into a register (xor.pred p0, 1, r0 does not fit the machine).
bool simplify_predicate_logic(IrInstr& in) {
  IrOperand *k = in.a.kind == K::kImm ? &in.a : in.b.kind == K::kImm ? &in.b : nullptr;
  if (!k) return false;
  const bool one = k->imm != 0;
  const IrOperand other = k == &in.a ? in.b : in.a;
  IrInstr out{.op = Op::kMovPred, .guard = in.guard, .guard_negated = in.guard_negated, .d = in.d,
              .line = in.line};
  switch (in.op) {
    case Op::kNotPred: out.a = ir_imm(!one); break;
    case Op::kAndPred: out.a = one ? other : ir_imm(0); break;
    case Op::kOrPred: out.a = one ? ir_imm(1) : other; break;
    case Op::kXorPred: out.a = other, out.op = one ? Op::kNotPred : Op::kMovPred; break;
    default: return false;
  }
  in = out;
  return true;
}

// x+0, x-0, x|0, x^0, x<<0, x>>0, x*1, x&-1 -> mov x; x&0 -> mov 0; x*1+y -> x+y; k1*k2+y -> y+k.
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
      case Op::kAnd:
        keep = is_imm(in.b, -1) ? &in.a : is_imm(in.a, -1) ? &in.b : is_imm(in.b, 0) ? &in.b : is_imm(in.a, 0) ? &in.a : nullptr;
        break;
      case Op::kMadLo:
        if (in.a.kind == K::kImm && in.b.kind == K::kImm && in.c.kind != K::kImm) {  // k1 * k2 + x
          const uint32_t k = static_cast<uint32_t>(in.a.imm) * static_cast<uint32_t>(in.b.imm);
          in = {.op = Op::kAdd, .guard = in.guard, .guard_negated = in.guard_negated, .d = in.d, .a = in.c,
                .b = ir_imm(static_cast<int32_t>(k)), .line = in.line};
          changed = true;
        } else if (is_imm(in.b, 1) || is_imm(in.a, 1)) {
          in = {.op = Op::kAdd, .guard = in.guard, .guard_negated = in.guard_negated, .d = in.d,
                .a = is_imm(in.b, 1) ? in.a : in.b, .b = in.c, .line = in.line};
          changed = true;
        }
        break;
      case Op::kAndPred: case Op::kOrPred: case Op::kXorPred: case Op::kNotPred:
        changed |= simplify_predicate_logic(in);
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

// `setp.ne d, v, 0` (or `eq`) where v = selp(k, 0, q) with k != 0 (or selp(0, k, q)): d is
// q or !q. clang writes a bool as such a selp, and CUDA functions taking an int predicate
// (__ballot_sync) turn it back with the setp. Only when the selp comes first in straight-
// line code (no branch or branch target between) that does not write q again, so that q
// still holds the value the selp read; the selp then usually dies.
bool fold_bool_compares(IrFunction& f) {
  Defs defs = single_defs(f);
  const int n = static_cast<int>(f.code.size());
  std::vector<bool> target(n + 1, false);
  for (const IrInstr& in : f.code)
    if (in.op == Op::kBra) target[std::min(in.target, n)] = true;
  bool changed = false;
  for (int i = 0; i < n; ++i) {
    IrInstr& in = f.code[i];
    if (in.op != Op::kSetpNe && in.op != Op::kSetpEq) continue;
    const IrOperand* v = is_imm(in.b, 0) ? &in.a : is_imm(in.a, 0) ? &in.b : nullptr;
    if (!v || v->kind != K::kVReg || defs.vreg[v->index] < 0) continue;
    const int k = defs.vreg[v->index];
    const IrInstr& sel = f.code[k];
    if (sel.op != Op::kSelp || k >= i || sel.c.kind != K::kPred || sel.a.kind != K::kImm || sel.b.kind != K::kImm ||
        (sel.a.imm == 0) == (sel.b.imm == 0))
      continue;
    bool straight = true;
    for (int m = k; m < i && straight; ++m)
      straight = f.code[m].op != Op::kBra && !target[m + 1] &&
                 !(m > k && f.code[m].d.kind == K::kPred && f.code[m].d.index == sel.c.index);
    if (!straight) continue;
    // v != 0 exactly when q (selp(k, 0, q)) or !q (selp(0, k, q)); eq negates.
    const bool negate = (sel.a.imm == 0) != (in.op == Op::kSetpEq);
    in = {.op = negate ? Op::kNotPred : Op::kMovPred, .guard = in.guard, .guard_negated = in.guard_negated,
          .d = in.d, .a = sel.c, .line = in.line};
    changed = true;
  }
  return changed;
}

// The signed range a value surely lies in, for the few ops whose range is plain from their
// operands' (lane and slot ids, masks, their xor/or and sums), or nothing.
struct Range {
  int64_t lo, hi;
};

std::optional<Range> range_of(const IrFunction& f, const Defs& defs, const IrOperand& o, int depth = 0) {
  if (o.kind == K::kImm) return Range{o.imm, o.imm};
  if (o.kind == K::kSpecial) {
    switch (static_cast<Special>(o.index)) {
      case Special::kLaneid: case Special::kWarpid: case Special::kCtaslot: return Range{0, kLanes - 1};
      case Special::kTidX: case Special::kTidY: return Range{0, kMaxBlockThreads - 1};
      default: return std::nullopt;
    }
  }
  if (o.kind != K::kVReg || defs.vreg[o.index] < 0 || depth > 6) return std::nullopt;
  const IrInstr& def = f.code[defs.vreg[o.index]];
  auto a = [&] { return range_of(f, defs, def.a, depth + 1); };
  auto b = [&] { return range_of(f, defs, def.b, depth + 1); };
  switch (def.op) {
    case Op::kMov: return a();
    case Op::kAnd:
      for (const IrOperand* m : {&def.a, &def.b})
        if (m->kind == K::kImm && m->imm >= 0) return Range{0, m->imm};
      return std::nullopt;
    case Op::kOr: case Op::kXor: {  // two values in [0, 2^k): so is the result
      std::optional<Range> x = a(), y = b();
      if (!x || !y || x->lo < 0 || y->lo < 0 || std::max(x->hi, y->hi) >= (int64_t{1} << 30)) return std::nullopt;
      int64_t top = 1;
      while (top <= std::max(x->hi, y->hi)) top <<= 1;
      return Range{0, top - 1};
    }
    case Op::kAdd: {
      std::optional<Range> x = a(), y = b();
      if (!x || !y || std::abs(x->lo) + std::abs(x->hi) + std::abs(y->lo) + std::abs(y->hi) >= (int64_t{1} << 30))
        return std::nullopt;
      return Range{x->lo + y->lo, x->hi + y->hi};
    }
    default: return std::nullopt;
  }
}

// A signed compare that the ranges of its operands decide is a constant (a shuffle's
// source-lane check when the lane cannot leave its segment).
bool fold_ranges(IrFunction& f) {
  Defs defs = single_defs(f);
  bool changed = false;
  for (IrInstr& in : f.code) {
    if (in.op != Op::kSetpLtS && in.op != Op::kSetpLeS && in.op != Op::kSetpGtS && in.op != Op::kSetpGeS) continue;
    if (in.a.kind == K::kImm && in.b.kind == K::kImm) continue;  // fold_constants' case
    std::optional<Range> x = range_of(f, defs, in.a), y = range_of(f, defs, in.b);
    if (!x || !y) continue;
    // u < v (u <= v when or_equal), if the ranges decide it
    auto less = [](Range u, Range v, bool or_equal) -> std::optional<bool> {
      if (or_equal ? u.hi <= v.lo : u.hi < v.lo) return true;
      if (or_equal ? u.lo > v.hi : u.lo >= v.hi) return false;
      return std::nullopt;
    };
    const bool swap = in.op == Op::kSetpGtS || in.op == Op::kSetpGeS;  // a > b is b < a
    std::optional<bool> r = less(swap ? *y : *x, swap ? *x : *y, in.op == Op::kSetpLeS || in.op == Op::kSetpGeS);
    if (!r) continue;
    in = {.op = Op::kMovPred, .guard = in.guard, .guard_negated = in.guard_negated, .d = in.d, .a = ir_imm(*r),
          .line = in.line};
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

// selp d, a, b, p with p a known constant: a copy of a or b.
bool resolve_constant_selects(IrFunction& f) {
  Defs defs = single_defs(f);
  bool changed = false;
  for (IrInstr& in : f.code) {
    if (in.op != Op::kSelp || in.c.kind != K::kPred) continue;
    std::optional<IrOperand> v = known_value(f, defs, in.c);
    if (!v || v->kind != K::kImm) continue;
    in = {.op = Op::kMov, .guard = in.guard, .guard_negated = in.guard_negated, .d = in.d,
          .a = v->imm != 0 ? in.a : in.b, .line = in.line};
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
    if ((unread && !ir_has_side_effect(in)) || self_move) keep[i] = false, changed = true;
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

void define_before_use(IrFunction& f) {
  const int n = static_cast<int>(f.code.size());
  // Registers as one index space: vreg v is v, predicate p is n_vregs + p.
  auto key = [&f](const IrOperand& o) {
    return o.kind == IrOperand::Kind::kVReg ? o.index : o.kind == IrOperand::Kind::kPred ? f.n_vregs + o.index : -1;
  };
  std::vector<std::set<int>> live_in(n + 1);
  for (bool changed = true; changed;) {
    changed = false;
    for (int i = n; i-- > 0;) {
      std::set<int> live;
      for (int s : ir_successors(f, i)) live.insert(live_in[std::min(s, n)].begin(), live_in[std::min(s, n)].end());
      const IrInstr& in = f.code[i];
      if (in.guard < 0) live.erase(key(ir_def(in)));  // a guarded write may not happen
      for (const IrOperand& u : ir_uses(in))
        if (key(u) >= 0) live.insert(key(u));
      if (live != live_in[i]) live_in[i] = std::move(live), changed = true;
    }
  }
  if (n == 0 || live_in[0].empty()) return;
  std::vector<IrInstr> init;
  for (int k : live_in[0])
    init.push_back(k < f.n_vregs ? IrInstr{.op = Op::kMov, .d = ir_vreg(k), .a = ir_imm(0)}
                                 : IrInstr{.op = Op::kMovPred, .d = ir_pred(k - f.n_vregs), .a = ir_imm(0)});
  for (IrInstr& in : f.code)
    if (in.op == Op::kBra) in.target += static_cast<int>(init.size());
  for (IrInstr& in : init) in.line = f.code.front().line;
  f.code.insert(f.code.begin(), init.begin(), init.end());
}

void optimise(IrFunction& f) {
  for (int round = 0; round < 32; ++round) {
    bool changed = propagate_values(f);
    changed |= simplify_algebra(f);
    changed |= fold_constants(f);
    changed |= fold_bool_compares(f);
    changed |= fold_ranges(f);
    changed |= resolve_constant_selects(f);
    changed |= resolve_constant_guards(f);
    changed |= fold_addresses(f);
    changed |= invert_branches(f);
    changed |= remove_dead(f);
    if (!changed) return;
  }
}

void insert_before(IrFunction& f, const std::function<std::vector<IrInstr>(IrInstr&)>& before) {
  std::vector<IrInstr> out;
  std::vector<int> new_index(f.code.size() + 1);
  for (size_t i = 0; i < f.code.size(); ++i) {
    new_index[i] = static_cast<int>(out.size());
    IrInstr in = f.code[i];
    for (IrInstr& x : before(in)) out.push_back(std::move(x));
    out.push_back(in);
  }
  new_index[f.code.size()] = static_cast<int>(out.size());
  for (IrInstr& in : out)
    if (in.op == Op::kBra) in.target = new_index[in.target];
  f.code = std::move(out);
}

void legalise(IrFunction& f) {
  insert_before(f, [&f](IrInstr& in) {
    std::vector<IrInstr> moves;
    bool memory = is_memory(in.op);
    bool imm_used = memory;  // a memory op's immediate is its offset
    std::optional<int64_t> imm;  // the instruction's one immediate: operands may share it
    for (IrOperand* o : {&in.a, &in.b, &in.c}) {
      if (o->kind != K::kImm) continue;
      if (!memory && imm == o->imm) continue;  // operands may read the one immediate word
      if (!imm_used && !(memory && o == &in.a)) {
        imm_used = true;
        imm = o->imm;
        continue;
      }
      int t = f.n_vregs++;
      f.vreg_names.push_back("%imm" + std::to_string(t));
      moves.push_back({.op = Op::kMov, .d = ir_vreg(t), .a = *o, .line = in.line});
      *o = ir_vreg(t);
    }
    return moves;
  });
}

}  // namespace qgpu
