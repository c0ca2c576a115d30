// L2's MLP: what the step does to each lane, from the fetch and the guard the lane read
// (docs/design.md §3, "lane control"). Per lane, one-hot codes at every token:
//   eff{l}     0: the lane is in the step's mask and its guard passes, 1: not;
// and at a `sched` token (else none: npc kBlockHi / kBlockLo, act 3), what consuming it does:
//   npc_hi{l}  the lane's PC after the step (block / kBlockLo; kBlockHi = the lane is not
//              in the mask),
//   npc_lo{l}  (block % kBlockLo; kBlockLo = not in the mask): the branch target for an
//              effective `bra`, else the next block;
//   act{l}     0 nothing, 1 the lane exits (effective `exit`), 2 it arrives at the barrier.
// The lane status layer (stage_lanes.cpp) writes these.
#include "gpu/isa.h"
#include "lift/machine_model.h"
#include "lift/stages.h"

namespace qgpu::lift {
namespace {

using Lit = Mlp::Literal;
using Conjunction = std::vector<Lit>;

// The op codes (f_op = op + 1, 0 empty) in `ops`, or all others when `except`.
Lit ops(Net& n, std::initializer_list<Op> list, bool except = false) {
  Lit d;
  for (int code = 0; code < n.l["f_op"].size; ++code) {
    bool listed = false;
    for (Op o : list) listed |= code == static_cast<int>(o) + 1;
    if (listed != except) d.push_back(n.dim("f_op", code));
  }
  return d;
}

Conjunction join(Conjunction a, const Conjunction& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The three disjoint ways a lane's guard passes, and the two it fails.
struct Guards {
  std::vector<Conjunction> pass, fail;
};

Guards guards(Net& n, int lane) {
  std::string rg = "rg" + std::to_string(lane);
  Lit none = n.dims("f_guard", 0, 1), pos = n.dims("f_guard", 1, 4), neg = n.dims("f_guard", 5, 4);
  Lit is0 = {n.dim(rg, 0)}, is1 = {n.dim(rg, 1)};
  return {{{none}, {pos, is1}, {neg, is0}}, {{pos, is0}, {neg, is1}}};
}

void lane_control(Net& n, Mlp& m, int lane) {
  const std::string s = std::to_string(lane);
  const Lit in = {n.dim("step", step_lane(lane, true))}, out = {n.dim("step", step_lane(lane, false))};
  const Lit sched = {n.fam(Tok::kSched)}, other_token = n.families({Tok::kSched}, true);
  const int eff0 = n.dim("eff" + s, 0), eff1 = n.dim("eff" + s, 1);
  auto hi = [&](int k) { return n.dim("npc_hi" + s, k); };
  auto lo = [&](int k) { return n.dim("npc_lo" + s, k); };
  auto act = [&](int k) { return n.dim("act" + s, k); };
  Guards g = guards(n, lane);
  const Lit bra = ops(n, {Op::kBra}), exit = ops(n, {Op::kExit}), bar = ops(n, {Op::kBar});
  const Lit other = ops(n, {Op::kExit, Op::kBar}, true);

  // eff at every token (the records of a step need it); npc and act only at `sched`.
  m.rule({out}, {eff1});
  for (const Conjunction& p : g.pass) m.rule(join({in}, p), {eff0});
  for (const Conjunction& f : g.fail) m.rule(join({in}, f), {eff1});
  m.rule({other_token}, {hi(kBlockHi), lo(kBlockLo), act(3)});
  m.rule({sched, out}, {hi(kBlockHi), lo(kBlockLo), act(0)});
  for (const Conjunction& p : g.pass) {
    m.rule(join({sched, in, exit}, p), {act(1)});
    m.rule(join({sched, in, bar}, p), {act(2)});
    m.rule(join({sched, in, other}, p), {act(0)});
    // Taken: the target is the immediate, 16 n1 + n0 (< 256): hi = n1, lo = n0.
    static_assert(kBlockLo == 16 && kBlocks == 256);
    for (int x = 0; x < 16; ++x) {
      m.rule(join({sched, in, bra, {n.dim("f_imm", 16 + x)}}, p), {hi(x)});
      m.rule(join({sched, in, bra, {n.dim("f_imm", x)}}, p), {lo(x)});
    }
  }
  for (const Conjunction& f : g.fail) m.rule(join({sched, in}, f), {act(0)});
  // Not taken: the next block (the last wraps to 0; a program never falls off its end).
  std::vector<Conjunction> next = {{ops(n, {Op::kBra}, true)}};
  for (const Conjunction& f : g.fail) next.push_back(join({bra}, f));
  for (const Conjunction& c : next) {
    const int last = kBlockLo - 1;
    for (int k = 0; k < kBlockLo; ++k) m.rule(join({sched, in, {n.dim("step", kStepLo + k)}}, c), {lo((k + 1) % kBlockLo)});
    for (int h = 0; h < kBlockHi; ++h) {
      m.rule(join({sched, in, {n.dim("step", kStepHi + h)}, {n.dim("step", kStepLo + last)}}, c), {hi((h + 1) % kBlockHi)});
      m.rule(join({sched, in, {n.dim("step", kStepHi + h)}, n.dims("step", kStepLo, last)}, c), {hi(h)});
    }
  }
}

}  // namespace

void build_lane_control(Net& n) {
  Mlp m(n, kRegisterLayer);
  for (int lane = 0; lane < kLanes; ++lane) lane_control(n, m, lane);
}

}  // namespace qgpu::lift
