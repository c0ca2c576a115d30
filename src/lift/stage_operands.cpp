// The lane the next body record is for, and its operands (docs/design.md §3, "operand
// select"): the one lane the execute layers will run the ALU for.
//   L0 GDN heads 9, 10: btag, the tag of the value whose bytes are in flight (at `m1` the
//      `h` one token back, at `m2` two back; elsewhere no lane), as lane in/out rails;
//   L3 MLP: nl, the lane of the next value or `st` record of the step (4: none, the body is
//      done or has no per-lane records), as interp's next_body_record() picks it: after
//      `sched` the first effective lane; after a one-lane `v`, `t` or `st` the next
//      effective lane after it; while a 4-byte value is in flight its lane;
//   L2 MLP: wbase, the step's warp within its CUDA block (w % wpc); cta, its CUDA block's
//      linear index N = slot + k cpw (k the wave) as nibbles a | b;
//   L3 MLP: tidx{l}, tidy{l}, every lane's %tid.x and %tid.y (tid = 4 wbase + l, by bx);
//      N divided by the grid width g, its high nibble first: cq1 = a / g, cr1 = a % g;
//   L4 MLP: tidx, tidy, lane nl's; the rest of the division: ctx = (16 cr1 + b) % g, the
//      block's %ctaid.x, and cq2 = (16 cr1 + b) / g, so %ctaid.y = 16 cq1 + cq2 (grids
//      wider than 16 take N itself: generation_gap refuses %ctaid on those that are taller
//      than one row);
//   L5 MLP: oa, ob, oc, lane nl's operands a, b, c as words: the register read (L2), the
//      immediate for field code 31, or the special: %tid, %ntid, %ctaid, %nctaid, %laneid,
//      %warpid, %ctaslot from tidx/tidy, ctx/cq1/cq2, the header and the step; the word 0
//      when nl is none;
//   L7 MLP: mw, the word memory gets: at `st` its lane's operand b (register, immediate or
//      special), else L0's word (0 at `pred`); L14 is its only reader, so it sits where
//      the MLP has room.
#include <bit>
#include <string>

#include "gpu/isa.h"
#include "lift/machine_model.h"
#include "lift/stages.h"

namespace qgpu::lift {
namespace {

using Lit = Mlp::Literal;

// Threads 4k + 1 .. 4k + 4 (thr 4k .. 4k + 3): k + 1 warps per CUDA block.
Lit thr_class(Net& n, int k) { return n.dims("thr", 4 * k, 4); }

// L0: btag. Head 9 writes and reads slot 0 at m1 and m2 only: its rails are `htag` one
// token back (channels 0-7) and two back (8-15); the grammar puts an `h` there only at m1
// and m2 respectively, so one of the two holds the tag. Head 10 reads "no lane" at every
// other token.
void build_byte_tag(Net& n) {
  auto slot0 = [&](int h, bool on) {
    Head a(n, kControlLayer, h);
    for (Tok t : {Tok::kMid1, Tok::kMid2}) {
      a.key(0, n.fam(t), on ? 1.0f : -1.0f);
      a.query(0, n.fam(t), on ? 1.0f : -1.0f);
    }
    a.key_bias(0, on ? -0.5f : 0.5f);
    a.query_bias(0, on ? -0.5f : 0.5f);
    return a;
  };
  Head bytes = slot0(kByteTagHead, true), other = slot0(kByteTagHead + 1, false);
  for (int l = 0; l < kLanes; ++l)
    for (int rail = 0; rail < 2; ++rail) {
      const int j = 2 * l + rail;
      for (int back = 1; back <= 2; ++back) {
        const int c = 8 * (back - 1) + j;
        for (int tag = 0; tag < kTags; ++tag)
          if ((tag >> l & 1) == (rail == 0)) bytes.value(c, n.dim("htag", tag));
        bytes.tap(c, back);
        bytes.read(c, n.dim("btag", j), 8);
      }
      if (rail == 1)
        for (int f = 0; f < kNumFamilies; ++f) other.value(j, n.fam(static_cast<Tok>(f)));
      other.read(j, n.dim("btag", j), 8);
    }
  for (int j = 16; j < 20; ++j) bytes.pad(j);
  for (int j = 8; j < 12; ++j) other.pad(j);
}

// Rails of a tag (lane l in at 2 l, out at 2 l + 1) in one of the tag fields.
std::vector<Lit> rails(Net& n, const std::string& field, int tag) {
  std::vector<Lit> lits;
  for (int l = 0; l < kLanes; ++l) lits.push_back({n.dim(field, 2 * l + ((tag >> l & 1) ? 0 : 1))});
  return lits;
}

// The rules for "the first effective lane after `after`" (-1: the first), each with `base`.
void first_effective(Net& n, Mlp& m, std::vector<Lit> base, int after) {
  for (int i = after + 1; i < kLanes; ++i) {
    std::vector<Lit> lits = base;
    lits.push_back({n.dim("eff" + std::to_string(i), 0)});
    m.rule(lits, {n.dim("nl", i)});
    base.push_back({n.dim("eff" + std::to_string(i), 1)});
  }
  m.rule(base, {n.dim("nl", kLanes)});
}

void next_lane_rules(Net& n, Mlp& m) {
  const int none = n.dim("nl", kLanes);
  const Lit values = effect_dims(n, {Effect::kValue, Effect::kAtomic}), not_values = effect_dims(n, {Effect::kValue, Effect::kAtomic}, true);
  const Lit stores = effect_dims(n, {Effect::kStore}), not_stores = effect_dims(n, {Effect::kStore}, true);
  // pred steps too: their lane nl gives every lane the operands they share (oa, ob).
  const Lit both = effect_dims(n, {Effect::kValue, Effect::kAtomic, Effect::kStore, Effect::kPred});
  const Lit neither = effect_dims(n, {Effect::kValue, Effect::kAtomic, Effect::kStore, Effect::kPred}, true);
  m.rule({n.families({Tok::kSched, Tok::kSmall, Tok::kTail, Tok::kHead, Tok::kMid1, Tok::kMid2, Tok::kSt}, true)}, {none});
  // sched: the first effective lane of a value, atomic, store or pred step.
  m.rule({{n.fam(Tok::kSched)}, neither}, {none});
  first_effective(n, m, {{n.fam(Tok::kSched)}, both}, -1);
  // v, t: after a one-lane value the next effective lane; after a broadcast, none.
  const Lit v_t = n.families({Tok::kSmall, Tok::kTail});
  m.rule({v_t, not_values}, {none});
  for (int tag = 0; tag < kTags; ++tag) {
    std::vector<Lit> base = {v_t, values};
    for (const Lit& r : rails(n, "wb_tag", tag)) base.push_back(r);
    if (std::has_single_bit(static_cast<unsigned>(tag))) first_effective(n, m, base, std::countr_zero(static_cast<unsigned>(tag)));
    else m.rule(base, {none});
  }
  // h, m1, m2: the value's lane (its tag's first lane).
  auto lane_of = [&](int tag) { return tag == 0 ? none : n.dim("nl", std::countr_zero(static_cast<unsigned>(tag))); };
  m.rule({{n.fam(Tok::kHead)}, not_values}, {none});
  for (int tag = 0; tag < kTags; ++tag) m.rule({{n.fam(Tok::kHead)}, values, {n.dim("htag", tag)}}, {lane_of(tag)});
  const Lit m12 = n.families({Tok::kMid1, Tok::kMid2});
  m.rule({m12, not_values}, {none});
  for (int tag = 0; tag < kTags; ++tag) {
    std::vector<Lit> lits = {m12, values};
    for (const Lit& r : rails(n, "btag", tag)) lits.push_back(r);
    m.rule(lits, {lane_of(tag)});
  }
  // st: the next effective lane after the one that stored.
  m.rule({{n.fam(Tok::kSt)}, not_stores}, {none});
  for (int x = 0; x < kLanes; ++x) first_effective(n, m, {{n.fam(Tok::kSt)}, stores, {n.dim("stl", x)}}, x);
}

// L2: the step's warp within its CUDA block (w % wpc), for each lane's thread index.
void warp_base_rules(Net& n, Mlp& m) {
  m.rule({{n.dim("thr", 16)}}, {n.dim("wbase", 0)});  // more than 16 threads: never runs
  for (int k = 0; k < 4; ++k)
    for (int w = 0; w < kWarps; ++w)
      m.rule({thr_class(n, k), {n.dim("step", kStepWarp + w)}}, {n.dim("wbase", w % (k + 1))});
}

// L2: cta, the step's CUDA block N = slot + k cpw (slot = w / wpc, cpw = 4 / wpc, k the
// wave), as lo | hi nibbles (divided by the grid width in L3 and L4). The low nibble is
// (slot + cpw k_lo) mod 16; the high one cpw k_hi + (cpw k_lo) / 16 (slot < cpw adds no
// carry; for the warp a 3-warp block leaves out, which never runs, it may differ).
void cta_rules(Net& n, Mlp& m) {
  m.rule({{n.dim("thr", 16)}}, {n.dim("cta", 0), n.dim("cta", 16)});  // more than 16 threads: never runs
  for (int k = 0; k < 4; ++k) {
    const int wpc = k + 1, cpw = kWarps / wpc;
    for (int w = 0; w < kWarps; ++w)
      for (int v = 0; v < 16; ++v)
        m.rule({thr_class(n, k), {n.dim("step", kStepWarp + w)}, {n.dim("h_wave", 16 + v)}},
               {n.dim("cta", (w / wpc + cpw * v) % 16)});
    for (int hi = 0; hi < 16; ++hi)
      for (int t = 0; t < cpw; ++t) {
        Lit lo;
        for (int v = 0; v < 16; ++v)
          if (cpw * v / 16 == t) lo.push_back(n.dim("h_wave", 16 + v));
        if (!lo.empty()) m.rule({thr_class(n, k), {n.dim("h_wave", hi)}, lo}, {n.dim("cta", 16 + (cpw * hi + t) % 16)});
      }
  }
}

// L3: the first half of N / g for %ctaid (g = gx, the grid width, 1..16; N = 16 a + b from
// cta): cq1 = a / g and cr1 = a % g, a table over a and g. A wider grid (the header's high
// nibble of gx - 1 is not 0) gives 0 and 0: its N is %ctaid.x (L4).
void cta_divide_high(Net& n, Mlp& m) {
  m.rule({n.dims("h_gx", 1, 15)}, {n.dim("cq1", 0), n.dim("cr1", 0)});
  for (int g = 1; g <= 16; ++g)
    for (int a = 0; a < 16; ++a)
      m.rule({{n.dim("h_gx", 0)}, {n.dim("h_gx", 16 + g - 1)}, {n.dim("cta", 16 + a)}},
             {n.dim("cq1", a / g), n.dim("cr1", a % g)});
}

// L4: the second half: t = 16 cr1 + b < 16 g, ctx = t % g (its high nibble 0) and cq2 =
// t / g < 16, a table over cr1 < g, b and g (2,176 rules); so N = g (16 cq1 + cq2) + ctx.
// A wider grid: ctx = N (a one-row grid's N is below gx), cq2 = 0.
void cta_divide_low(Net& n, Mlp& m) {
  const Lit wide = n.dims("h_gx", 1, 15);
  for (int v = 0; v < 16; ++v) {
    m.rule({wide, {n.dim("cta", v)}}, {n.dim("ctx", v)});
    m.rule({wide, {n.dim("cta", 16 + v)}}, {n.dim("ctx", 16 + v)});
  }
  m.rule({wide}, {n.dim("cq2", 0)});
  m.rule({{n.dim("h_gx", 0)}}, {n.dim("ctx", 16)});
  for (int g = 1; g <= 16; ++g)
    for (int r = 0; r < g; ++r)
      for (int b = 0; b < 16; ++b) {
        const int t = 16 * r + b;
        m.rule({{n.dim("h_gx", 0)}, {n.dim("h_gx", 16 + g - 1)}, {n.dim("cr1", r)}, {n.dim("cta", b)}},
               {n.dim("ctx", t % g), n.dim("cq2", t / g)});
      }
}

// L3: every lane's %tid.x and %tid.y (tid = 4 wbase + lane); L4: lane nl's.
void tid_rules(Net& n, Mlp& lanes, Mlp& pick) {
  for (int l = 0; l < kLanes; ++l)
    for (int b = 0; b < 4; ++b)
      for (int bx = 1; bx <= 16; ++bx) {
        int tid = 4 * b + l;
        lanes.rule({{n.dim("wbase", b)}, {n.dim("h_bx", 16 + bx - 1)}},
                   {n.dim("tidx" + std::to_string(l), tid % bx), n.dim("tidy" + std::to_string(l), tid / bx)});
      }
  pick.rule({{n.dim("nl", kLanes)}}, {n.dim("tidx", 0), n.dim("tidy", 0)});
  for (int l = 0; l < kLanes; ++l)
    for (int v = 0; v < 16; ++v) {
      pick.rule({{n.dim("nl", l)}, {n.dim("tidx" + std::to_string(l), v)}}, {n.dim("tidx", v)});
      pick.rule({{n.dim("nl", l)}, {n.dim("tidy" + std::to_string(l), v)}}, {n.dim("tidy", v)});
    }
}

// A word's nibble outputs in field `out`: nibble g = v[g], the rest 0.
std::vector<int> word_dims(Net& n, const char* out, std::initializer_list<int> low) {
  std::vector<int> d;
  int g = 0;
  for (int v : low) d.push_back(n.digit(out, g++, v));
  for (; g < 8; ++g) d.push_back(n.digit(out, g, 0));
  return d;
}

// Which lane a special operand is read for: the literals every rule takes (`base`), "the
// lane is l", and whether %tid comes from that lane's tidx{l} (else from tidx, nl's).
struct LaneRef {
  std::vector<Lit> base;
  std::string lane_field;  // nl or stl: dim l is lane l
  bool per_lane_tid;
};

// The special operands (field code in `field`) as words in `out`.
void special_rules(Net& n, Mlp& m, const char* field, const char* out, const LaneRef& ref) {
  auto code = [&](Special s) {
    std::vector<Lit> lits = ref.base;
    lits.push_back({n.dim(field, field_code(special(s)))});
    return lits;
  };
  auto with = [](std::vector<Lit> lits, std::initializer_list<Lit> more) {
    lits.insert(lits.end(), more);
    return lits;
  };
  for (int v = 0; v < 16; ++v) {
    if (ref.per_lane_tid) {
      for (int l = 0; l < kLanes; ++l) {
        const Lit lane = {n.dim(ref.lane_field, l)};
        m.rule(with(code(Special::kTidX), {lane, {n.dim("tidx" + std::to_string(l), v)}}), word_dims(n, out, {v}));
        m.rule(with(code(Special::kTidY), {lane, {n.dim("tidy" + std::to_string(l), v)}}), word_dims(n, out, {v}));
      }
    } else {
      m.rule(with(code(Special::kTidX), {{n.dim("tidx", v)}}), word_dims(n, out, {v}));
      m.rule(with(code(Special::kTidY), {{n.dim("tidy", v)}}), word_dims(n, out, {v}));
    }
    // bx, by: x - 1 in the header's low nibble (hi is 0: at most 16).
    m.rule(with(code(Special::kNtidX), {{n.dim("h_bx", 16 + v)}}), word_dims(n, out, {(v + 1) % 16, (v + 1) / 16}));
    m.rule(with(code(Special::kNtidY), {{n.dim("h_by", 16 + v)}}), word_dims(n, out, {(v + 1) % 16, (v + 1) / 16}));
  }
  // %ctaid.x = ctx (two nibbles), %ctaid.y = 16 cq1 + cq2.
  for (int v = 0; v < 16; ++v) {
    m.rule(with(code(Special::kCtaidX), {{n.dim("ctx", v)}}), {n.dim(out, v)});
    m.rule(with(code(Special::kCtaidX), {{n.dim("ctx", 16 + v)}}), {n.dim(out, 16 + v)});
    m.rule(with(code(Special::kCtaidY), {{n.dim("cq2", v)}}), {n.dim(out, v)});
    m.rule(with(code(Special::kCtaidY), {{n.dim("cq1", v)}}), {n.dim(out, 16 + v)});
  }
  std::vector<int> high;
  for (int g = 2; g < 8; ++g) high.push_back(n.digit(out, g, 0));
  m.rule(code(Special::kCtaidX), high);
  m.rule(code(Special::kCtaidY), high);
  // gx, gy (1..256) = the header's 16 hi + lo, plus 1, nibble by nibble.
  for (auto [sp, h] : {std::pair{Special::kNctaidX, "h_gx"}, std::pair{Special::kNctaidY, "h_gy"}}) {
    for (int v = 0; v < 16; ++v) {
      m.rule(with(code(sp), {{n.dim(h, 16 + v)}}), {n.dim(out, (v + 1) % 16)});
      m.rule(with(code(sp), {{n.dim(h, v)}, n.dims(h, 16, 15)}), {n.dim(out, 16 + v)});
      m.rule(with(code(sp), {{n.dim(h, v)}, {n.dim(h, 31)}}), {n.dim(out, 16 + (v + 1) % 16)});
    }
    m.rule(with(code(sp), {n.dims(h, 0, 15)}), {n.dim(out, 32)});
    m.rule(with(code(sp), {{n.dim(h, 15)}, n.dims(h, 16, 15)}), {n.dim(out, 32)});
    m.rule(with(code(sp), {{n.dim(h, 15)}, {n.dim(h, 31)}}), {n.dim(out, 33)});
    std::vector<int> high;
    for (int g = 3; g < 8; ++g) high.push_back(n.digit(out, g, 0));
    m.rule(code(sp), high);
  }
  for (int l = 0; l < kLanes; ++l) m.rule(with(code(Special::kLaneid), {{n.dim(ref.lane_field, l)}}), word_dims(n, out, {l}));
  for (int w = 0; w < kWarps; ++w) {
    const Lit warp = {n.dim("step", kStepWarp + w)};
    m.rule(with(code(Special::kWarpid), {warp}), word_dims(n, out, {w}));
    for (int k = 0; k < 4; ++k) m.rule(with(code(Special::kCtaslot), {warp, thr_class(n, k)}), word_dims(n, out, {w / (k + 1)}));
  }
  m.rule(with(code(Special::kCtaslot), {{n.dim("thr", 16)}}), word_dims(n, out, {}));
}

// L7: mw, the word memory gets: at `st lane @mA` that lane's operand b (its register read
// from L2: the lane is in the step's mask; the immediate; or a special), at `pred` (where
// wb_word is empty) the word 0, at every other token L0's word.
void memory_word_rules(Net& n, Mlp& m) {
  std::vector<int> zero;
  for (int g = 0; g < 8; ++g) zero.push_back(n.digit("mw", g, 0));
  m.rule({{n.fam(Tok::kPred)}}, zero);
  // An atomic's update (stage_atomic.cpp): atom.exch's is b; atom.add's, min / max's and
  // cas's the word 0 here, which L12 (old + b) and L13 (old, b or c) move to the new word.
  const Lit xat = {n.dim("xat", 0)};
  m.rule({xat, op_in(n, "atom.add")}, zero);
  m.rule({xat, op_in(n, "atom.cmp")}, zero);
  const Lit st = {n.fam(Tok::kSt)}, reg = n.dims("f_b", 0, kSpecialCode), imm = {n.dim("f_b", kImmCode)};
  for (int j = 0; j < 128; ++j) {
    m.rule({n.families({Tok::kSt, Tok::kPred}, true), {n.dim("xat", 1)}, {n.dim("wb_word", j)}}, {n.dim("mw", j)});
    m.rule({xat, op_in(n, "atom.exch"), {n.dim("jb", j)}}, {n.dim("mw", j)});
    m.rule({st, imm, {n.dim("f_imm", j)}}, {n.dim("mw", j)});
  }
  // Lane by lane, a word's rules in a row: each literal's units are few runs (the sparse
  // matmul's cost is per run of a column, docs/design.md §4).
  for (int l = 0; l < kLanes; ++l)
    for (int j = 0; j < 128; ++j) {  // the register read's nibble j / 16 is j % 16
      std::vector<Lit> lits = {st, reg, {n.dim("stl", l)}};
      for (const Lit& b : nibble_is(n, "rb" + std::to_string(l), j / 16, j % 16)) lits.push_back(b);
      m.rule(lits, {n.dim("mw", j)});
    }
  special_rules(n, m, "f_b", "mw", {{st}, "stl", true});
}

void operand_rules(Net& n, Mlp& m) {
  const char* fields[3] = {"f_a", "f_b", "f_c"};
  const char* reads[3] = {"ra", "rb", "rc"};
  const char* outs[3] = {"oa", "ob", "oc"};
  for (int p = 0; p < 3; ++p) {
    std::vector<int> zero;
    for (int g = 0; g < 8; ++g) zero.push_back(n.dim(outs[p], 16 * g));
    m.rule({{n.dim("nl", kLanes)}}, zero);
    const Lit imm = {n.dim(fields[p], kImmCode)}, other = n.dims(fields[p], 0, kSpecialCode);
    for (int j = 0; j < 128; ++j) m.rule({n.dims("nl", 0, kLanes), imm, {n.dim("f_imm", j)}}, {n.dim(outs[p], j)});
    for (int l = 0; l < kLanes; ++l)  // lane by lane (as mw's rules)
      for (int j = 0; j < 128; ++j) {  // the register read's nibble j / 16 is j % 16
        std::vector<Lit> lits = {{n.dim("nl", l)}, other};
        for (const Lit& b : nibble_is(n, reads[p] + std::to_string(l), j / 16, j % 16)) lits.push_back(b);
        m.rule(lits, {n.dim(outs[p], j)});
      }
    special_rules(n, m, fields[p], outs[p], {{n.dims("nl", 0, kLanes)}, "nl", false});
  }
}

}  // namespace

void build_operands(Net& n) {
  build_byte_tag(n);
  Mlp base(n, kRegisterLayer);
  warp_base_rules(n, base);
  cta_rules(n, base);
  Mlp lane(n, kParityLayer);
  next_lane_rules(n, lane);
  cta_divide_high(n, lane);
  Mlp pick(n, kSchedLayer);
  tid_rules(n, lane, pick);
  cta_divide_low(n, pick);
  Mlp ops(n, kOperandLayer);
  operand_rules(n, ops);
  Mlp memory(n, kLaneOpsLayer + 1);
  memory_word_rules(n, memory);
}

}  // namespace qgpu::lift
