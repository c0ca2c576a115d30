// Register allocation: liveness over the instruction-level control-flow graph, an
// interference graph, and graph colouring (Chaitin-style simplification, colours chosen
// to match a copy's partner where possible so that the copy disappears). Value registers
// get r0..r23 and predicates p0..p3. Where more values are live at once, a scalar parameter
// is loaded again where it is used, an index made of special registers computed again
// (rematerialise), then a value is spilled to memory
// words of its own (spill_value); a kernel that still needs more gets an error naming the
// PTX line where the most values are live.
#include "compiler/regalloc.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <optional>
#include <set>

#include "base/error.h"
#include "compiler/opt.h"

namespace qgpu {
namespace {

using K = IrOperand::Kind;

// One register class: value registers or predicates.
struct RegClass {
  K kind;
  int n_regs;
  int n_machine;
  const char* name;
};

// The value registers of f, as a class.
RegClass value_regs(const IrFunction& f) { return {K::kVReg, f.n_vregs, kRegs, "registers"}; }

using LiveSet = std::vector<bool>;

// live_out[i] for every instruction, for one register class.
std::vector<LiveSet> liveness(const IrFunction& f, const RegClass& rc) {
  int n = static_cast<int>(f.code.size());
  std::vector<LiveSet> in(n, LiveSet(rc.n_regs)), out(n, LiveSet(rc.n_regs));
  for (bool changed = true; changed;) {
    changed = false;
    for (int i = n - 1; i >= 0; --i) {
      LiveSet o(rc.n_regs);
      for (int s : ir_successors(f, i))
        if (s < n)
          for (int r = 0; r < rc.n_regs; ++r) o[r] = o[r] || in[s][r];
      LiveSet l = o;
      IrOperand d = ir_def(f.code[i]);
      if (d.kind == rc.kind && f.code[i].guard < 0) l[d.index] = false;  // a guarded write may not happen
      for (const IrOperand& u : ir_uses(f.code[i]))
        if (u.kind == rc.kind) l[u.index] = true;
      if (l != in[i] || o != out[i]) in[i] = std::move(l), out[i] = std::move(o), changed = true;
    }
  }
  return out;
}

struct Graph {
  std::vector<std::set<int>> adj;
  std::vector<std::set<int>> moves;  // copy partners
};

Graph interference(const IrFunction& f, const RegClass& rc, const std::vector<LiveSet>& live_out) {
  Graph g{std::vector<std::set<int>>(rc.n_regs), std::vector<std::set<int>>(rc.n_regs)};
  for (size_t i = 0; i < f.code.size(); ++i) {
    const IrInstr& in = f.code[i];
    IrOperand d = ir_def(in);
    if (d.kind != rc.kind) continue;
    bool copy = (in.op == Op::kMov || in.op == Op::kMovPred) && in.a.kind == rc.kind && in.guard < 0;
    if (copy) g.moves[d.index].insert(in.a.index), g.moves[in.a.index].insert(d.index);
    for (int r = 0; r < rc.n_regs; ++r) {
      if (!live_out[i][r] || r == d.index || (copy && r == in.a.index)) continue;
      g.adj[d.index].insert(r);
      g.adj[r].insert(d.index);
    }
    // An atomic's d is early-clobber: the model writes the old word into d while the
    // same token still reads the lane's address and operand b, c (docs/design.md §3).
    if (op_info(in.op).effect == Effect::kAtomic)
      for (const IrOperand& u : ir_uses(in))
        if (u.kind == rc.kind && u.index != d.index) {
          g.adj[d.index].insert(u.index);
          g.adj[u.index].insert(d.index);
        }
  }
  return g;
}

// Registers live at once at the worst instruction, for the error message.
std::pair<int, std::vector<int>> pressure(const IrFunction& f, const RegClass& rc,
                                          const std::vector<LiveSet>& live_out) {
  int best = 0;
  std::vector<int> regs;
  for (size_t i = 0; i < f.code.size(); ++i) {
    std::vector<int> live;
    for (int r = 0; r < rc.n_regs; ++r)
      if (live_out[i][r]) live.push_back(r);
    if (live.size() > regs.size()) best = static_cast<int>(i), regs = live;
  }
  return {best, regs};
}

// room: when not empty, why no (more) values could be spilled.
[[noreturn]] void too_many(const IrFunction& f, const RegClass& rc, const std::vector<LiveSet>& live_out,
                           const std::string& room = "") {
  auto [at, regs] = pressure(f, rc, live_out);
  std::string names;
  for (int r : regs) names += " " + (rc.kind == K::kVReg ? f.vreg_names[r] : f.pred_names[r]);
  fail("the kernel needs more than {} {} (PTX line {}: {} live:{}){}; simplify the kernel, {}or split "
       "it into several launches", rc.n_machine, rc.name, f.code[at].line, regs.size(), names, room,
       room.empty() ? "" : "use smaller arrays, ");
}

// The colouring, or nothing when more than rc.n_machine registers would be needed.
std::optional<std::vector<int>> try_colour(const IrFunction& f, const RegClass& rc) {
  std::vector<LiveSet> live_out = liveness(f, rc);
  Graph g = interference(f, rc, live_out);
  std::vector<int> degree(rc.n_regs), stack;
  std::vector<bool> removed(rc.n_regs, false);
  for (int r = 0; r < rc.n_regs; ++r) degree[r] = static_cast<int>(g.adj[r].size());
  for (int left = rc.n_regs; left > 0; --left) {
    int pick = -1;
    for (int r = 0; r < rc.n_regs; ++r)
      if (!removed[r] && (pick < 0 || (degree[r] < rc.n_machine) > (degree[pick] < rc.n_machine) ||
                          ((degree[r] < rc.n_machine) == (degree[pick] < rc.n_machine) && degree[r] > degree[pick])))
        pick = r;
    removed[pick] = true;
    stack.push_back(pick);
    for (int n : g.adj[pick]) --degree[n];
  }
  std::vector<int> colour(rc.n_regs, -1);
  for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
    int r = *it;
    std::vector<bool> taken(rc.n_machine, false);
    for (int n : g.adj[r])
      if (colour[n] >= 0) taken[colour[n]] = true;
    for (int m : g.moves[r])  // prefer a copy partner's colour: the copy then vanishes
      if (colour[m] >= 0 && !taken[colour[m]]) { colour[r] = colour[m]; break; }
    for (int c = 0; colour[r] < 0 && c < rc.n_machine; ++c)
      if (!taken[c]) colour[r] = c;
    if (colour[r] < 0) return std::nullopt;
  }
  return colour;
}

std::vector<int> colour(const IrFunction& f, const RegClass& rc) {
  if (std::optional<std::vector<int>> c = try_colour(f, rc)) return *c;
  too_many(f, rc, liveness(f, rc));
}

// Of `regs` (the values live where the most are), the one live longest that `eligible`
// allows: the one whose register, given up, frees the most instructions. -1 when none is.
int longest_lived(const std::vector<LiveSet>& live_out, const std::vector<int>& regs,
                  const std::function<bool(int)>& eligible) {
  int pick = -1, longest = 0;
  for (int v : regs) {
    if (!eligible(v)) continue;
    int span = 0;
    for (const LiveSet& l : live_out) span += l[v];
    if (span > longest) pick = v, longest = span;
  }
  return pick;
}

// Every read of value v in `in` becomes a read of a new register (named v's name and a
// '), which is returned; nothing when `in` does not read v.
std::optional<IrOperand> read_from_new_register(IrFunction& f, IrInstr& in, int v) {
  bool uses = false;
  for (const IrOperand& u : ir_uses(in)) uses |= u.kind == K::kVReg && u.index == v;
  if (!uses) return std::nullopt;
  const IrOperand t = ir_vreg(f.n_vregs++);
  f.vreg_names.push_back(f.vreg_names[v] + "'");
  for (IrOperand* o : {&in.a, &in.b, &in.c})
    if (o->kind == K::kVReg && o->index == v) *o = t;
  return t;
}

// Whether the value an instruction writes can be computed again anywhere: a load of a
// scalar parameter's word (read-only), or an op of the ALU whose operands are all special
// registers and immediates (%tid, %ctaid, %ntid, ... are fixed for a thread's life), such as
// blockIdx.x * blockDim.x + threadIdx.x, one mad.lo. Unguarded, so it writes every time.
bool recomputable(const IrFunction& f, const IrInstr& in) {
  if (in.d.kind != K::kVReg || in.guard >= 0) return false;
  if (in.op == Op::kLd)
    return in.a.kind == K::kNone &&
           std::find(f.param_words.begin(), f.param_words.end(), in.offset) != f.param_words.end();
  if (op_info(in.op).effect != Effect::kValue) return false;
  for (const IrOperand* o : {&in.a, &in.b, &in.c})
    if (o->kind != K::kNone && o->kind != K::kSpecial && o->kind != K::kImm) return false;
  return true;
}

// A value written once by a recomputable instruction (a scalar parameter's load, an index
// made of special registers), live across the kernel, needs no register between its uses:
// of those live where the most values are, the one live longest is computed again right
// before each of its uses instead (one op a use, against a spill's store and three ops a
// use; one register fewer across its range). False when there is none.
bool rematerialise(IrFunction& f) {
  const RegClass rc = value_regs(f);
  std::vector<LiveSet> live_out = liveness(f, rc);
  std::vector<int> defs(f.n_vregs, 0), def_at(f.n_vregs, -1);
  for (int i = 0; i < static_cast<int>(f.code.size()); ++i) {
    const IrInstr& in = f.code[i];
    if (in.d.kind != K::kVReg) continue;
    ++defs[in.d.index];
    if (recomputable(f, in)) def_at[in.d.index] = i;
  }
  const int pick = longest_lived(live_out, pressure(f, rc, live_out).second,
                                 [&](int v) { return def_at[v] >= 0 && defs[v] == 1; });
  if (pick < 0) return false;
  const IrInstr def = f.code[def_at[pick]];
  std::vector<bool> keep(f.code.size(), true);
  keep[def_at[pick]] = false;
  compact(f, keep);
  insert_before(f, [&f, pick, def](IrInstr& in) {
    const std::optional<IrOperand> t = read_from_new_register(f, in, pick);
    if (!t) return std::vector<IrInstr>{};
    IrInstr again = def;
    again.d = *t, again.line = in.line;
    return std::vector<IrInstr>{again};
  });
  return true;
}

// Each instruction with what runs before it and after it; a branch to instruction i goes
// to the first of its `before`, and its `after` runs only when i falls through to it.
struct Around {
  std::vector<IrInstr> before, after;
};
void insert_around(IrFunction& f, const std::function<Around(IrInstr&)>& around) {
  std::vector<IrInstr> out;
  std::vector<int> new_index(f.code.size() + 1);
  for (size_t i = 0; i < f.code.size(); ++i) {
    new_index[i] = static_cast<int>(out.size());
    IrInstr in = f.code[i];
    Around x = around(in);
    CHECK(x.after.empty() || (in.op != Op::kBra && in.op != Op::kExit));
    for (IrInstr& y : x.before) out.push_back(std::move(y));
    out.push_back(in);
    for (IrInstr& y : x.after) out.push_back(std::move(y));
  }
  new_index[f.code.size()] = static_cast<int>(out.size());
  for (IrInstr& in : out)
    if (in.op == Op::kBra) in.target = new_index[in.target];
  f.code = std::move(out);
}

// A spilled value lives in memory words of its own: one per resident lane (warp w, lane l
// at word first + 4 w + l, so no two threads that run at once share one), written after
// every write of the value and read before every use, each time into a new register that
// lives from there to its one use (a guarded write reads the old value first, since it may
// not happen). The address is 16 %warpid + 4 %laneid, two ops into the same register. Of
// the values live where the most are, the one live longest goes (like a parameter): more
// steps and blocks, one register fewer across its range. False when none can go: the
// room's words are used up, or every value live there is a spill's own.
bool spill_value(IrFunction& f, SpillRoom room, int& spilled, int first_spill_vreg) {
  constexpr int kSlotWords = kWarps * kLanes;
  if (room.words - spilled * kSlotWords < kSlotWords) return false;
  const RegClass rc = value_regs(f);
  std::vector<LiveSet> live_out = liveness(f, rc);
  auto [at, regs] = pressure(f, rc, live_out);
  // A spill takes at most one value off any instruction's live ones: past the room, fail now.
  if (std::ssize(regs) - kRegs > (room.words - spilled * kSlotWords) / kSlotWords) return false;
  // Not a spill's own load or store register.
  const int pick = longest_lived(live_out, regs, [first_spill_vreg](int v) { return v < first_spill_vreg; });
  if (pick < 0) return false;
  const int64_t offset = 4 * (room.first_word + spilled * kSlotWords);
  ++spilled;
  auto fresh = [&f, pick] {
    f.vreg_names.push_back(f.vreg_names[pick] + "'");
    return ir_vreg(f.n_vregs++);
  };
  auto address = [](IrOperand t, int line) {
    return std::vector<IrInstr>{
        {.op = Op::kShl, .d = t, .a = ir_special(Special::kWarpid), .b = ir_imm(4), .line = line},
        {.op = Op::kMadLo, .d = t, .a = ir_special(Special::kLaneid), .b = ir_imm(4), .c = t, .line = line}};
  };
  auto load = [&](IrOperand t, int line) {
    std::vector<IrInstr> code = address(t, line);
    code.push_back({.op = Op::kLd, .d = t, .a = t, .offset = offset, .line = line});
    return code;
  };
  insert_around(f, [&](IrInstr& in) {
    Around x;
    const bool defines = in.d.kind == K::kVReg && in.d.index == pick && ir_def(in).kind == K::kVReg;
    if (const std::optional<IrOperand> t = read_from_new_register(f, in, pick)) x.before = load(*t, in.line);
    if (defines) {
      IrOperand w = fresh();
      if (in.guard >= 0) {  // the write may not happen: w starts as the value
        std::vector<IrInstr> old = load(w, in.line);
        x.before.insert(x.before.end(), old.begin(), old.end());
      }
      in.d = w;
      const IrOperand t = fresh();
      x.after = address(t, in.line);
      x.after.push_back({.op = Op::kSt, .a = t, .b = w, .offset = offset, .line = in.line});
    }
    return x;
  });
  return true;
}

void rename(IrOperand& o, const std::vector<int>& vcol, const std::vector<int>& pcol) {
  if (o.kind == K::kVReg) o.index = vcol[o.index];
  if (o.kind == K::kPred) o.index = pcol[o.index];
}

// Removes writes that no path reads (e.g. an initial value overwritten on every path),
// which single-definition propagation cannot see.
void remove_dead_writes(IrFunction& f) {
  for (bool changed = true; changed;) {
    std::vector<LiveSet> lv = liveness(f, value_regs(f));
    std::vector<LiveSet> lp = liveness(f, {K::kPred, f.n_preds, kPreds, "predicates"});
    std::vector<bool> keep(f.code.size(), true);
    changed = false;
    for (size_t i = 0; i < f.code.size(); ++i) {
      IrOperand d = ir_def(f.code[i]);
      if (d.kind == K::kNone || ir_has_side_effect(f.code[i])) continue;
      if (!(d.kind == K::kVReg ? lv : lp)[i][d.index]) keep[i] = false, changed = true;
    }
    if (changed) compact(f, keep);
  }
}


// Too many values live even with what memory could take: the error names the kernel's own
// values (before any spill) and, when that is why, how many spills memory has room for.
[[noreturn]] void too_many_values(const IrFunction& unspilled, SpillRoom room, int spilled) {
  const RegClass rc = value_regs(unspilled);
  const std::vector<LiveSet> live = liveness(unspilled, rc);
  const int slot = kWarps * kLanes, free_words = room.words - spilled * slot;
  const int needed = static_cast<int>(pressure(unspilled, rc, live).second.size()) - kRegs;
  std::string why;
  if (free_words < slot)
    why = fmt::format(" and a spilled value needs {} free memory words ({} are free)", slot, std::max(free_words, 0));
  else if (needed > room.words / slot)
    why = fmt::format(" and memory has room for {} spilled values of the {} it needs ({} words each)", room.words / slot,
                      needed, slot);
  too_many(unspilled, rc, live, why);
}

}  // namespace

IrFunction allocate_registers(const IrFunction& input, SpillRoom room) {
  IrFunction f = input;
  remove_dead_writes(f);
  while (!try_colour(f, value_regs(f)) && rematerialise(f)) {
  }
  const IrFunction unspilled = f;
  const int first_spill_vreg = f.n_vregs;
  int spilled = 0;
  while (!try_colour(f, value_regs(f)) && (rematerialise(f) || spill_value(f, room, spilled, first_spill_vreg))) {
  }
  if (!try_colour(f, value_regs(f))) too_many_values(unspilled, room, spilled);
  f.spill_words = spilled * kWarps * kLanes;
  std::vector<int> vcol = colour(f, value_regs(f));
  std::vector<int> pcol = colour(f, {K::kPred, f.n_preds, kPreds, "predicates"});
  IrFunction out = f;
  out.n_vregs = kRegs;
  out.n_preds = kPreds;
  out.vreg_names.clear();
  out.pred_names.clear();
  for (int i = 0; i < kRegs; ++i) out.vreg_names.push_back(fmt::format("r{}", i));
  for (int i = 0; i < kPreds; ++i) out.pred_names.push_back(fmt::format("p{}", i));
  std::vector<bool> keep(out.code.size(), true);
  for (size_t i = 0; i < out.code.size(); ++i) {
    IrInstr& in = out.code[i];
    for (IrOperand* o : {&in.d, &in.a, &in.b, &in.c}) rename(*o, vcol, pcol);
    if (in.guard >= 0) in.guard = pcol[in.guard];
    bool self_copy = (in.op == Op::kMov || in.op == Op::kMovPred) && in.a == in.d;
    if (self_copy) keep[i] = false;
  }
  compact(out, keep);
  return out;
}

}  // namespace qgpu
