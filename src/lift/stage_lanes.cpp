// Lane status (docs/design.md §3): every lane's PC, whether it finished, and its barrier
// flag, as the interpreter's LaneState has them.
//   L3 GDN heads 0-3: the barrier parity of each CUDA block slot (`bar c p` writes slot c;
//      `begin` all four with 0), read at every token: par{c};
//   L3 MLP, at `run` and `wave` (else none): live{w}{l} (0 live, 1 not), rflag{w} (the
//      flag a new wave gives: its CUDA block's parity, 0 for a warp with none); at `sched`
//      (else none): sflag{l} (the flag a lane of the step's warp keeps: its block's parity,
//      flipped when it arrives at the barrier);
//   L4 GDN heads 4 w + l, slot 0: PC hi | lo, finished, flag. `run` and `wave` write every
//      lane (PC 0, finished unless live, rflag); `sched` writes the lanes of its mask
//      (npc, act == exit, sflag), a lane outside the mask keeps its row.
#include <bit>

#include "lift/machine_model.h"
#include "lift/stages.h"

namespace qgpu::lift {
namespace {

using Lit = Mlp::Literal;

// A launch's block shape for t threads (t = 17: more than 16, no lanes).
struct Shape {
  int wpc = 0, cpw = 0;  // warps per CUDA block, CUDA blocks per wave
  explicit Shape(int t) : wpc(t > 16 ? 5 : (t + 3) / 4), cpw(t > 16 ? 0 : 4 / wpc) {}
  int cta(int w) const { return cpw > 0 && w / wpc < cpw ? w / wpc : -1; }
};

void build_parity(Net& n) {
  for (int c = 0; c < kMaxCtas; ++c) {
    Head h(n, kParityLayer, c);
    h.key(0, n.dim("barc", c));
    h.key(0, n.fam(Tok::kBegin));
    h.key_bias(0, -0.5f);
    h.query_bias(0, 0.5f);
    for (int p = 0; p < 2; ++p) h.value(p, n.dim("barp", p));
    for (int j = 2; j < 9; ++j) h.pad(j);  // one code entry and 7 pads: 8 hot entries
    for (int p = 0; p < 2; ++p) h.read(p, n.dim("par" + std::to_string(c), p), 8);
  }
}

// live{w}{l} at run/wave: the lane has a thread (cta < cpw, tid < t) and its CUDA block
// k * cpw + cta is in the grid (<= B; stage_launch.cpp).
void live_rules(Net& n, Mlp& m, int w, int l) {
  const int live = n.dim("live" + std::to_string(w) + std::to_string(l), 0);
  const int dead = live + 1;
  const Lit rw = n.families({Tok::kRun, Tok::kWave});
  m.rule({n.families({Tok::kRun, Tok::kWave}, true)}, {live + 2});
  for (int t = 1; t <= 17; ++t) {
    const Lit thr = {n.dim("thr", t - 1)};
    Shape sh(t);
    int cta = sh.cta(w), tid = (w % std::max(sh.wpc, 1)) * 4 + l;
    if (cta < 0 || tid >= t) {
      m.rule({rw, thr}, {dead});
      continue;
    }
    const std::string s = std::to_string(std::countr_zero(static_cast<unsigned>(sh.cpw)));
    auto h = [&](int c) { return Lit{n.dim("cmph" + s, c)}; };
    auto lo = [&](int c) { return Lit{n.dim("cmpl" + s, c)}; };
    Lit rest_ok, rest_not;  // B % cpw >= cta, from B's low nibble
    for (int v = 0; v < 16; ++v) ((v & (sh.cpw - 1)) >= cta ? rest_ok : rest_not).push_back(n.dim("bl", v));
    m.rule({rw, thr, h(0)}, {live});
    m.rule({rw, thr, h(1), lo(0)}, {live});
    m.rule({rw, thr, h(1), lo(1), rest_ok}, {live});
    if (!rest_not.empty()) m.rule({rw, thr, h(1), lo(1), rest_not}, {dead});
    m.rule({rw, thr, h(1), lo(2)}, {dead});
    m.rule({rw, thr, h(2)}, {dead});
  }
}

// rflag{w} at run/wave and sflag{l} at sched: the flag a lane's row gets.
void flag_rules(Net& n, Mlp& m) {
  const Lit rw = n.families({Tok::kRun, Tok::kWave}), sched = {n.fam(Tok::kSched)};
  for (int w = 0; w < kWarps; ++w) {
    const int f = n.dim("rflag" + std::to_string(w), 0);
    m.rule({n.families({Tok::kRun, Tok::kWave}, true)}, {f + 2});
    for (int t = 1; t <= 17; ++t) {
      const Lit thr = {n.dim("thr", t - 1)};
      int cta = Shape(t).cta(w);
      if (cta < 0) m.rule({rw, thr}, {f});
      for (int p = 0; p < 2 && cta >= 0; ++p) m.rule({rw, thr, {n.dim("par" + std::to_string(cta), p)}}, {f + p});
    }
  }
  for (int l = 0; l < kLanes; ++l) {
    const std::string s = std::to_string(l);
    const int f = n.dim("sflag" + s, 0);
    const Lit arrives = {n.dim("act" + s, 2)}, stays = {n.dim("act" + s, 0), n.dim("act" + s, 1), n.dim("act" + s, 3)};
    m.rule({n.families({Tok::kSched}, true)}, {f + 2});
    for (int t = 1; t <= 17; ++t)
      for (int w = 0; w < kWarps; ++w) {
        const Lit thr = {n.dim("thr", t - 1)}, warp = {n.dim("step", kStepWarp + w)};
        int cta = Shape(t).cta(w);
        if (cta < 0) m.rule({sched, thr, warp}, {f});
        for (int p = 0; p < 2 && cta >= 0; ++p) {
          const Lit par = {n.dim("par" + std::to_string(cta), p)};
          m.rule({sched, thr, warp, par, arrives}, {f + 1 - p});
          m.rule({sched, thr, warp, par, stays}, {f + p});
        }
      }
  }
}

// L4: lane (w, l) keeps its PC's bits | finished | flag (machine_model.h's kLane*) and 22
// pad channels in slot 0 of head 4 w + l; `begin` writes PC 0, finished, flag 0.
void build_lane_status(Net& n) {
  for (int w = 0; w < kWarps; ++w)
    for (int l = 0; l < kLanes; ++l) {
      const std::string s = std::to_string(l), wl = std::to_string(w) + s;
      Head h(n, kLaneLayer, lane_head(w, l));
      h.key(0, n.fam(Tok::kBegin), 2.0f);  // begin: PC 0, finished, flag 0
      h.key(0, n.fam(Tok::kRun), 2.0f);
      h.key(0, n.fam(Tok::kWave), 2.0f);
      h.key(0, n.dim("sw", w));
      for (int mask = 1; mask < 16; ++mask)
        if (mask >> l & 1) h.key(0, n.dim("smask", mask));
      h.key_bias(0, -1.5f);
      static_assert(kBlockHi == 16 && kBlockLo == 16);
      for (int j = 0; j < kBlockHi; ++j)  // PC / 16: bits 4..7
        for (int b = 0; b < 4; ++b) h.value(bit_dim(4 + b, j >> b & 1), n.dim("npc_hi" + s, j));
      for (int j = 0; j < kBlockLo; ++j)  // PC % 16: bits 0..3
        for (int b = 0; b < 4; ++b) h.value(bit_dim(b, j >> b & 1), n.dim("npc_lo" + s, j));
      for (Tok t : {Tok::kBegin, Tok::kRun, Tok::kWave})  // a new wave starts every lane at block 0
        for (int b = 0; b < kLanePcBits; ++b) h.value(bit_dim(b, false), n.fam(t));
      h.value(kLaneFinished + 1, n.fam(Tok::kBegin));
      h.value(kLaneFlag, n.fam(Tok::kBegin));
      for (int a : {0, 2}) h.value(kLaneFinished, n.dim("act" + s, a));
      h.value(kLaneFinished + 1, n.dim("act" + s, 1));
      h.value(kLaneFinished, n.dim("live" + wl, 0));
      h.value(kLaneFinished + 1, n.dim("live" + wl, 1));
      for (int p = 0; p < 2; ++p) {
        h.value(kLaneFlag + p, n.dim("sflag" + s, p));
        h.value(kLaneFlag + p, n.dim("rflag" + std::to_string(w), p));
      }
      for (int j = kLaneStatusCode; j < kLaneStatusCode + 32 - n.l["ls00"].code.hots(); ++j) h.pad(j);
    }
}

}  // namespace

void build_lanes(Net& n) {
  build_parity(n);
  Mlp m(n, kParityLayer);
  for (int w = 0; w < kWarps; ++w)
    for (int l = 0; l < kLanes; ++l) live_rules(n, m, w, l);
  flag_rules(n, m);
  build_lane_status(n);
}

}  // namespace qgpu::lift
