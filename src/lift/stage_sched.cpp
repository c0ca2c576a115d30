// The scheduler (docs/design.md §3, "the scheduler"): what the machine emits between steps,
// computed at every token from the lane status, as interp.cpp's schedule() does:
//   L0 GDN head 8: the last warp that ran (the latest `sched`'s; `begin`, `run`, `wave`: 3),
//      read at every token: lastw;
//   L4 GDN: every lane's status is read at every token into ls{w}{l}: the PC's 8 bits
//      (dual rail) | finished 2 (0 no) | barrier flag 2;
//   L4 MLP: rs{w}{l} (0 runnable, 1 waiting at the barrier, 2 finished); wmore (0 another
//      wave follows); nk_hi, nk_lo (the wave k + 1);
//   L5 MLP: nw (the next warp round-robin after lastw with a runnable lane, 4 none);
//      rel{c} (0: every unfinished lane of CUDA block slot c waits, and one does);
//   L6 MLP: ch{l}, cl{l} (lane l of warp nw: its PC / 16, % 16 when runnable, else 16, 16);
//      bar (the first released slot, 4 none), barq (its new parity, 2 none); sfam (the
//      record: 0 bar, 1 sched, 2 wave, 3 end);
//   L12 MLP: cmp{i}{j} (i < j): lane i's PC against lane j's (<, =, >; not runnable is
//      larger than any PC), by threshold rules over the digits' values;
//   L13 MLP: smk{l} (0: lane l is in the min-PC mask), mhi, mlo (the min PC).
// A lane's CUDA block slot depends on the block's thread count only through its warps per
// CUDA block, so the rules take thr in four classes (1-4, 5-8, 9-12, 13-16 threads).
#include <string>

#include "lift/machine_model.h"
#include "lift/stages.h"

namespace qgpu::lift {
namespace {

using Lit = Mlp::Literal;

std::string wl(int w, int l) { return std::to_string(w) + std::to_string(l); }

// Threads 4k + 1 .. 4k + 4: wpc = k + 1 warps per CUDA block, cpw = 4 / wpc blocks a wave.
struct Class {
  int k;
  int wpc() const { return k + 1; }
  int cpw() const { return kWarps / wpc(); }
  int shift() const { return cpw() == 4 ? 2 : cpw() == 2 ? 1 : 0; }  // cpw = 1 << shift
  int cta(int w) const { return w / wpc() < cpw() ? w / wpc() : -1; }
  Lit thr(Net& n) const { return n.dims("thr", 4 * k, 4); }
};
constexpr Class kClasses[4] = {{0}, {1}, {2}, {3}};
Lit too_many_threads(Net& n) { return {n.dim("thr", 16)}; }  // never runs: no lane lives

Lit d(Net& n, const std::string& f, int i) { return {n.dim(f, i)}; }
Lit rs(Net& n, int w, int l, std::initializer_list<int> states) {
  Lit lit;
  for (int s : states) lit.push_back(n.dim("rs" + wl(w, l), s));
  return lit;
}

// L0 head 8: slot 0 holds the last warp; read at every token.
void build_last_warp(Net& n) {
  Head h(n, kControlLayer, kLastWarpHead);
  for (Tok t : {Tok::kSched, Tok::kBegin, Tok::kRun, Tok::kWave}) h.key(0, n.fam(t));
  h.key_bias(0, -0.5f);
  h.query_bias(0, 0.5f);
  for (int w = 0; w < kWarps; ++w) h.value(w, n.dim("sw", w));
  h.value(0, n.fam(Tok::kBegin), -1.0f);  // begin's sw is 0 (the null step's warp)
  for (Tok t : {Tok::kBegin, Tok::kRun, Tok::kWave}) h.value(kWarps - 1, n.fam(t));
  for (int j = kWarps; j < kWarps + 7; ++j) h.pad(j);
  for (int w = 0; w < kWarps; ++w) h.read(w, n.dim("lastw", w), 8);
}

// L4: every lane status row, read at every token.
void build_status_reads(Net& n) {
  for (int w = 0; w < kWarps; ++w)
    for (int l = 0; l < kLanes; ++l) {
      Head h(n, kLaneLayer, lane_head(w, l));
      h.query_bias(0, 0.5f);
      for (int j = 0; j < kLaneStatusCode; ++j) h.read(j, n.dim("ls" + wl(w, l), j), 32);
    }
}

void runnable_rules(Net& n, Mlp& m) {
  for (int w = 0; w < kWarps; ++w)
    for (int l = 0; l < kLanes; ++l) {
      const std::string ls = "ls" + wl(w, l);
      const int out = n.dim("rs" + wl(w, l), 0);
      m.rule({too_many_threads(n)}, {out + 2});
      for (const Class& c : kClasses) {
        int cta = c.cta(w);
        if (cta < 0) {
          m.rule({c.thr(n)}, {out + 2});
          continue;
        }
        m.rule({c.thr(n), d(n, ls, kLaneFinished + 1)}, {out + 2});
        for (int f = 0; f < 2; ++f)
          for (int p = 0; p < 2; ++p)
            m.rule({c.thr(n), d(n, ls, kLaneFinished), d(n, ls, kLaneFlag + f), d(n, "par" + std::to_string(cta), p)},
                   {out + (f == p ? 0 : 1)});
      }
    }
}

// Another wave iff k + 1 < waves, i.e. k < B >> shift (cmph/cmpl: 0 <, 1 =, 2 >); and k + 1.
void wave_rules(Net& n, Mlp& m) {
  const int more = n.dim("wmore", 0), last = more + 1;
  m.rule({too_many_threads(n)}, {last});
  for (const Class& c : kClasses) {
    const std::string s = std::to_string(c.shift());
    m.rule({c.thr(n), d(n, "cmph" + s, 0)}, {more});
    m.rule({c.thr(n), d(n, "cmph" + s, 1), d(n, "cmpl" + s, 0)}, {more});
    m.rule({c.thr(n), d(n, "cmph" + s, 1), n.dims("cmpl" + s, 1, 2)}, {last});
    m.rule({c.thr(n), d(n, "cmph" + s, 2)}, {last});
  }
  for (int x = 0; x < 16; ++x) {
    m.rule({d(n, "h_wave", 16 + x)}, {n.dim("nk_lo", (x + 1) % 16)});
    m.rule({d(n, "h_wave", x), n.dims("h_wave", 16, 15)}, {n.dim("nk_hi", x)});
    m.rule({d(n, "h_wave", x), d(n, "h_wave", 31)}, {n.dim("nk_hi", (x + 1) % 16)});
  }
}

// The first warp after lastw, round-robin, with a runnable lane: for each start, the warps
// before it have none, and its first runnable lane is lane i.
void next_warp_rules(Net& n, Mlp& m) {
  std::vector<Lit> none;
  for (int w = 0; w < kWarps; ++w)
    for (int l = 0; l < kLanes; ++l) none.push_back(rs(n, w, l, {1, 2}));
  m.rule(none, {n.dim("nw", kWarps)});
  for (int last = 0; last < kWarps; ++last) {
    std::vector<Lit> before = {d(n, "lastw", last)};
    for (int k = 1; k <= kWarps; ++k) {
      int w = (last + k) % kWarps;
      for (int i = 0; i < kLanes; ++i) {
        std::vector<Lit> lits = before;
        for (int j = 0; j < i; ++j) lits.push_back(rs(n, w, j, {1, 2}));
        lits.push_back(rs(n, w, i, {0}));
        m.rule(lits, {n.dim("nw", w)});
      }
      for (int l = 0; l < kLanes; ++l) before.push_back(rs(n, w, l, {1, 2}));
    }
  }
}

// Slot c releases when none of its lanes is runnable and one waits. It does not when its
// first runnable lane is lane i (the lanes before it wait or finished), or when every lane
// finished; it does when no lane runs and lane i is the first that waits.
void release_rules(Net& n, Mlp& m) {
  for (int c = 0; c < kMaxCtas; ++c) m.rule({too_many_threads(n)}, {n.dim("rel" + std::to_string(c), 1)});
  for (const Class& cls : kClasses)
    for (int c = 0; c < kMaxCtas; ++c) {
      const int yes = n.dim("rel" + std::to_string(c), 0), no = yes + 1;
      if (c >= cls.cpw()) {
        m.rule({cls.thr(n)}, {no});
        continue;
      }
      std::vector<std::pair<int, int>> lanes;
      for (int w = 0; w < kWarps; ++w)
        if (cls.cta(w) == c)
          for (int l = 0; l < kLanes; ++l) lanes.push_back({w, l});
      std::vector<Lit> stopped = {cls.thr(n)}, finished = {cls.thr(n)};
      for (auto [w, l] : lanes) {
        std::vector<Lit> runs = stopped;
        runs.push_back(rs(n, w, l, {0}));
        m.rule(runs, {no});
        stopped.push_back(rs(n, w, l, {1, 2}));
      }
      for (size_t i = 0; i < lanes.size(); ++i) {
        std::vector<Lit> waits = finished;
        waits.push_back(rs(n, lanes[i].first, lanes[i].second, {1}));
        for (size_t j = i + 1; j < lanes.size(); ++j) waits.push_back(rs(n, lanes[j].first, lanes[j].second, {1, 2}));
        m.rule(waits, {yes});
        finished.push_back(rs(n, lanes[i].first, lanes[i].second, {2}));
      }
      m.rule(finished, {no});
    }
}

// Lane l of warp nw: its PC when runnable, else "not runnable" (kBlockHi, kBlockLo).
void candidate_rules(Net& n, Mlp& m) {
  static_assert(kBlockHi == 16 && kBlockLo == 16 && kLanePcBits == 8);
  for (int l = 0; l < kLanes; ++l) {
    const int hi = n.dim("ch" + std::to_string(l), 0), lo = n.dim("cl" + std::to_string(l), 0);
    m.rule({d(n, "nw", kWarps)}, {hi + kBlockHi, lo + kBlockLo});
    for (int w = 0; w < kWarps; ++w) {
      const std::string ls = "ls" + wl(w, l);
      m.rule({d(n, "nw", w), rs(n, w, l, {1, 2})}, {hi + kBlockHi, lo + kBlockLo});
      auto pc_is = [&](int x, int first_bit, int bits) {  // the literals "PC bits first.. are x"
        std::vector<Lit> lits = {d(n, "nw", w), rs(n, w, l, {0})};
        for (int b = 0; b < bits; ++b) lits.push_back(d(n, ls, bit_dim(first_bit + b, x >> b & 1)));
        return lits;
      };
      for (int x = 0; x < kBlockHi; ++x) m.rule(pc_is(x, 4, 4), {hi + x});
      for (int x = 0; x < kBlockLo; ++x) m.rule(pc_is(x, 0, 4), {lo + x});
    }
  }
}

// The first released slot and its new parity; the record the scheduler emits.
void record_rules(Net& n, Mlp& m) {
  std::vector<Lit> before;
  for (int c = 0; c < kMaxCtas; ++c) {
    const std::string s = std::to_string(c);
    for (int p = 0; p < 2; ++p) {
      std::vector<Lit> lits = before;
      lits.push_back(d(n, "rel" + s, 0));
      lits.push_back(d(n, "par" + s, p));
      m.rule(lits, {n.dim("bar", c), n.dim("barq", 1 - p), n.dim("sfam", kSchedBar)});
    }
    before.push_back(d(n, "rel" + s, 1));
  }
  std::vector<Lit> lits = before;
  lits.push_back(n.dims("nw", 0, kWarps));
  m.rule(lits, {n.dim("bar", kMaxCtas), n.dim("barq", 2), n.dim("sfam", kSchedSched)});
  lits.back() = d(n, "nw", kWarps);
  lits.push_back(d(n, "wmore", 0));
  m.rule(lits, {n.dim("bar", kMaxCtas), n.dim("barq", 2), n.dim("sfam", kSchedWave)});
  lits.back() = d(n, "wmore", 1);
  m.rule(lits, {n.dim("bar", kMaxCtas), n.dim("barq", 2), n.dim("sfam", kSchedEnd)});
}

// Lane i's PC (hi, lo; hi kBlockHi = not runnable) against lane j's: < 0, = 1, > 2. A rule
// sets = at every token, and a threshold rule moves it to < or >: the hi digits' difference
// (not runnable counts as kBlockHi, above every PC), or, for each x both hi digits are, the
// lo digits' difference with 32 for each hi digit at x (theta 65: both at x, and the lo
// digits apart). 35 rules and threshold rules a pair, where a table of (hi, lo) pairs took
// 400 and would take 800 with 16 lo digits.
void compare_rules(Net& n, Mlp& m) {
  using Term = Mlp::Term;
  auto digits = [&](const std::string& field, int count, int sign) {
    Term t;
    for (int x = 0; x < count; ++x) t.dims.push_back(n.dim(field, x)), t.weight.push_back(sign * x);
    return t;
  };
  for (int i = 0; i < kLanes; ++i)
    for (int j = i + 1; j < kLanes; ++j) {
      const std::string hi = "ch" + std::to_string(i), hj = "ch" + std::to_string(j);
      const std::string li = "cl" + std::to_string(i), lj = "cl" + std::to_string(j);
      const int out = n.dim("cmp" + std::to_string(i) + std::to_string(j), 0);
      const int lt = out, eq = out + 1, gt = out + 2;
      m.rule({{n.one()}}, {eq});
      m.threshold({digits(hj, kBlockHi + 1, 1), digits(hi, kBlockHi + 1, -1)}, 1, {}, {{lt, 1}, {eq, -1}});
      m.threshold({digits(hi, kBlockHi + 1, 1), digits(hj, kBlockHi + 1, -1)}, 1, {}, {{gt, 1}, {eq, -1}});
      for (int x = 0; x < kBlockHi; ++x) {
        const Term both = {{n.dim(hi, x), n.dim(hj, x)}, {32, 32}};
        m.threshold({both, digits(lj, kBlockLo, 1), digits(li, kBlockLo, -1)}, 65, {}, {{lt, 1}, {eq, -1}});
        m.threshold({both, digits(li, kBlockLo, 1), digits(lj, kBlockLo, -1)}, 65, {}, {{gt, 1}, {eq, -1}});
      }
    }
}

// cmp(i, j) read from lane a's side: lane a's PC <= lane b's (or >, strictly).
Lit at_most(Net& n, int a, int b) {
  return a < b ? n.dims("cmp" + std::to_string(a) + std::to_string(b), 0, 2)
               : n.dims("cmp" + std::to_string(b) + std::to_string(a), 1, 2);
}
Lit above(Net& n, int a, int b) {
  return a < b ? d(n, "cmp" + std::to_string(a) + std::to_string(b), 2)
               : d(n, "cmp" + std::to_string(b) + std::to_string(a), 0);
}

// Lane l is in the mask when runnable and its PC is at most every other lane's; the min PC
// is the PC of the first lane in the mask (every lane before it is above it).
void mask_rules(Net& n, Mlp& m) {
  for (int l = 0; l < kLanes; ++l) {
    const std::string ch = "ch" + std::to_string(l);
    const int in = n.dim("smk" + std::to_string(l), 0), out = in + 1;
    m.rule({d(n, ch, kBlockHi)}, {out});
    std::vector<Lit> ok = {n.dims(ch, 0, kBlockHi)};
    for (int j = 0; j < kLanes; ++j) {
      if (j == l) continue;
      std::vector<Lit> fails = ok;
      fails.push_back(above(n, l, j));
      m.rule(fails, {out});
      ok.push_back(at_most(n, l, j));
    }
    m.rule(ok, {in});
  }
  std::vector<Lit> none;
  for (int l = 0; l < kLanes; ++l) none.push_back(d(n, "ch" + std::to_string(l), kBlockHi));
  m.rule(none, {n.dim("mhi", 0), n.dim("mlo", 0)});  // (no sched record is emitted then)
  for (int i = 0; i < kLanes; ++i) {
    std::vector<Lit> first;
    for (int j = 0; j < kLanes; ++j)
      if (j != i) first.push_back(j < i ? above(n, j, i) : at_most(n, i, j));
    for (int x = 0; x < kBlockHi; ++x) {
      std::vector<Lit> lits = first;
      lits.push_back(d(n, "ch" + std::to_string(i), x));
      m.rule(lits, {n.dim("mhi", x)});
    }
    for (int x = 0; x < kBlockLo; ++x) {
      std::vector<Lit> lits = first;
      lits.push_back(n.dims("ch" + std::to_string(i), 0, kBlockHi));
      lits.push_back(d(n, "cl" + std::to_string(i), x));
      m.rule(lits, {n.dim("mlo", x)});
    }
  }
}

}  // namespace

void build_scheduler(Net& n) {
  build_last_warp(n);
  build_status_reads(n);
  Mlp lanes(n, kSchedLayer);
  runnable_rules(n, lanes);
  wave_rules(n, lanes);
  Mlp warps(n, sched_layer(1));
  next_warp_rules(n, warps);
  release_rules(n, warps);
  Mlp pick(n, sched_layer(2));
  candidate_rules(n, pick);
  record_rules(n, pick);
  Mlp cmp(n, sched_layer(3));
  compare_rules(n, cmp);
  Mlp mask(n, sched_layer(4));
  mask_rules(n, mask);
}

}  // namespace qgpu::lift
