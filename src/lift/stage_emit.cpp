// The emit stage and the LM head (docs/design.md §3, "emit"): the record the machine
// emits next, chosen from the state the earlier layers decoded.
//   L14 GDN head 0 (memory, stage_image.cpp) also reads: a `ld` reads the word at lane
//      nl's address (the adder's sum), every other token the null slot: mr;
//   L14 MLP: res, lane nl's result word (mov: oa; add, sub, neg, mul.lo, mad.lo: the sum; abs: the sum or
//      oa by a's sign; ld: mr; selp: oa or ob by oc; min, max (and .f32): by pka; neg.f32,
//      abs.f32: oa's sign bit flipped or cleared, the canonical NaN for a NaN; and, or, xor, not:
//      lg; shifts: sbit's nibbles; ops the ALU does not have yet: 0); fits, whether it is a one-token value
//      (-256..511); ef, the record family: a body record (value, its next byte m1 m2 t,
//      pred, br, st) while the step's body goes on, else the scheduler's (bar, sched,
//      wave, end);
//   LM head: a token's logit is kFamilyLogit for its family in ef (values: plus
//      kFitsLogit for v when res fits, for h when not) plus one per field that matches
//      (tag rails, result nibbles, lanes, word, warp, block, mask, slot, parity, wave), so
//      the record whose fields all match wins by at least 1 and greedy decoding emits it.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <string>

#include <fmt/format.h>

#include "base/error.h"
#include "gpu/alu.h"
#include "gpu/isa.h"
#include "lift/machine_model.h"
#include "lift/stages.h"

namespace qgpu::lift {
namespace {

using Lit = Mlp::Literal;

constexpr float kFamilyLogit = 64.0f;  // more than any token's field matches plus kFitsLogit
constexpr float kFitsLogit = 32.0f;    // more than a value token's field matches (12)

// The ops that read memory at lane nl's address: ld, and the atomics (the old word; the
// update is written at the token that consumes it, stage_atomic.cpp).
constexpr std::initializer_list<Op> kLoadOps = {Op::kLd,       Op::kAtomAdd,  Op::kAtomMinS, Op::kAtomMinU,
                                                Op::kAtomMaxS, Op::kAtomMaxU, Op::kAtomExch, Op::kAtomCas};

// L14: lane nl's load address is the sum; its word is slot sum / 4 (valid programs load
// aligned, written words: the interpreter traps otherwise). Other tokens read the null
// slot (the word 0).
void build_load(Net& n) {
  Head m(n, kMemoryLayer, kMemoryHead);
  const std::vector<int> loads = op_dims(n, kLoadOps);
  for (int a = 0; a < kMemWords; ++a) {
    const uint32_t byte = 4u * static_cast<uint32_t>(a);
    for (int d : loads) m.query(a, d);
    for (int l = 0; l < kLanes; ++l) m.query(a, n.dim("nl", l));
    for (int g = 0; g < 8; ++g) m.query(a, n.digit("sum", g, word_nibble(byte, g)));
    m.query_bias(a, -(10.0f - 0.5f));
  }
  for (int d : op_dims(n, kLoadOps, true)) m.query(kNullSlot, d);
  m.query(kNullSlot, n.dim("nl", kLanes));
  m.query_bias(kNullSlot, -0.5f);
  for (int j = 0; j < 128; ++j) m.read(j, n.dim("mr", j), 8);
}

// res and fits for one source word (`from`) when the literals `when` hold; the top nibble u
// becomes (u & top_and) ^ top_xor (neg.f32 flips the sign bit, abs.f32 clears it).
void result_rules(Net& n, Mlp& m, const std::vector<Lit>& when, const std::string& from, int top_and = 15,
                  int top_xor = 0) {
  auto with = [&](std::vector<Lit> more) {
    more.insert(more.begin(), when.begin(), when.end());
    return more;
  };
  auto mapped = [&](int g, int u) { return g == 7 ? (u & top_and) ^ top_xor : u; };
  for (int g = 0; g < 8; ++g)
    for (int u = 0; u < 16; ++u) m.rule(with({{n.digit(from, g, u)}}), {n.digit("res", g, mapped(g, u))});
  // The source dims of nibble g whose result is one of the values [lo, hi] (none: a rule with
  // it never fires and is left out).
  auto d = [&](int g, int lo, int hi) {
    Lit lit;
    for (int u = 0; u < 16; ++u)
      if (mapped(g, u) >= lo && mapped(g, u) <= hi) lit.push_back(n.digit(from, g, u));
    return lit;
  };
  auto rule = [&](const std::vector<Lit>& lits, int out) {
    if (std::none_of(lits.begin(), lits.end(), [](const Lit& lit) { return lit.empty(); })) m.rule(lits, {out});
  };
  const int yes = n.dim("fits", 0), no = n.dim("fits", 1);
  // 0..511: nibble 2 is 0 or 1, 3..7 are 0; -256..-1: nibbles 2..7 are 15.
  std::vector<Lit> small = with({d(2, 0, 1)}), negative = with({d(2, 15, 15)});
  for (int g = 3; g < 8; ++g) {
    std::vector<Lit> not_small = small, not_negative = negative;
    not_small.push_back(d(g, 1, 15));
    not_negative.push_back(d(g, 0, 14));
    rule(not_small, no);
    rule(not_negative, no);
    small.push_back(d(g, 0, 0));
    negative.push_back(d(g, 15, 15));
  }
  rule(small, yes);
  rule(negative, yes);
  rule(with({d(2, 2, 14)}), no);
}

// res = a constant word when the literals hold.
void constant_rule(Net& n, Mlp& m, const std::vector<Lit>& when, uint32_t word) {
  const int32_t v = static_cast<int32_t>(word);
  std::vector<int> out = {n.dim("fits", v >= kSmallMin && v <= kSmallMax ? 0 : 1)};
  for (int g = 0; g < 8; ++g) out.push_back(n.digit("res", g, word_nibble(word, g)));
  m.rule(when, out);
}

// res = NVIDIA's canonical NaN (0x7fffffff: not a one-token value) when the literals hold.
void canonical_nan_rule(Net& n, Mlp& m, const std::vector<Lit>& when) { constant_rule(n, m, when, kCanonicalNaN); }

// add.f32.rnd by its class (stage_float.cpp): the adder's word with the sign, or a constant.
void float_results(Net& n, Mlp& m) {
  const Lit rnd = op_dims(n, {Op::kAddFRnd});
  result_rules(n, m, {rnd, {n.dim("fcls", kPlus)}}, "sum");
  result_rules(n, m, {rnd, {n.dim("fcls", kMinus)}}, "sum", 15, 8);  // the sum is below 0x7f800001
  canonical_nan_rule(n, m, {rnd, {n.dim("fcls", kNaN)}});
  constant_rule(n, m, {rnd, {n.dim("fcls", kPlusInf)}}, 0x7f800000u);
  constant_rule(n, m, {rnd, {n.dim("fcls", kMinusInf)}}, 0xff800000u);
  constant_rule(n, m, {rnd, {n.dim("fcls", kPlusZero)}}, 0u);
  constant_rule(n, m, {rnd, {n.dim("fcls", kMinusZero)}}, 0x80000000u);
}

// The shifts' res and fits from sbit's rails (0 on, 1 off): a nibble is its four bits; a
// one-token value has bits 9..31 clear or bits 8..31 set.
void shift_results(Net& n, Mlp& m, const Lit& shifts) {
  auto b = [&](int i, bool on) { return Lit{n.digit("sbit", i, on ? 0 : 1)}; };
  for (int g = 0; g < 8; ++g)
    for (int v = 0; v < 16; ++v) {
      std::vector<Lit> lits = {shifts};
      for (int k = 0; k < 4; ++k) lits.push_back(b(4 * g + k, v >> k & 1));
      m.rule(lits, {n.digit("res", g, v)});
    }
  const int yes = n.dim("fits", 0), no = n.dim("fits", 1);
  for (bool negative : {false, true}) {
    std::vector<Lit> same = {shifts, b(31, negative)};
    for (int j = 30; j >= (negative ? 8 : 9); --j) {
      std::vector<Lit> differs = same;
      differs.push_back(b(j, !negative));
      m.rule(differs, {no});
      same.push_back(b(j, negative));
    }
    m.rule(same, {yes});
  }
}

// The ops whose result the ALU has (generation_gap's list).
constexpr Op kResultOps[] = {Op::kMov, Op::kAdd, Op::kSub, Op::kNeg, Op::kAbs, Op::kLd, Op::kSelp, Op::kMinS, Op::kMinU,
                             Op::kMaxS, Op::kMaxU, Op::kAnd, Op::kOr, Op::kXor, Op::kNot, Op::kShl, Op::kShrU, Op::kShrS,
                             Op::kMulLo, Op::kMadLo, Op::kPopc, Op::kClz, Op::kBrev, Op::kAtomAdd, Op::kAtomMinS,
                             Op::kAtomMinU, Op::kAtomMaxS, Op::kAtomMaxU, Op::kAtomExch, Op::kAtomCas,
                             Op::kMinF, Op::kMaxF, Op::kNegF, Op::kAbsF, Op::kAddFSig, Op::kAddFRnd, Op::kCvtSF, Op::kCvtUF};

void results(Net& n, Mlp& m) {
  auto ops = [&](std::initializer_list<Op> list) { return Lit(op_dims(n, list)); };
  result_rules(n, m, {ops({Op::kMov})}, "oa");
  result_rules(n, m, {ops({Op::kAdd, Op::kSub, Op::kNeg, Op::kMulLo, Op::kMadLo, Op::kAddFSig, Op::kCvtSF, Op::kCvtUF})}, "sum");
  float_results(n, m);
  result_rules(n, m, {ops({Op::kAbs}), n.dims("oa", 16 * 7 + 8, 8)}, "sum");  // a < 0: ~a + 1
  result_rules(n, m, {ops({Op::kAbs}), n.dims("oa", 16 * 7, 8)}, "oa");
  result_rules(n, m, {Lit(op_dims(n, kLoadOps))}, "mr");
  result_rules(n, m, {ops({Op::kSelp}), {n.dim("oc", 1)}}, "oa");  // c is the word 0 or 1
  Lit not_one = n.dims("oc", 2, 14);
  not_one.push_back(n.dim("oc", 0));
  result_rules(n, m, {ops({Op::kSelp}), not_one}, "ob");
  const Lit minmax = ops({Op::kMinS, Op::kMinU, Op::kMaxS, Op::kMaxU, Op::kMinF, Op::kMaxF});
  result_rules(n, m, {minmax, {n.dim("pka", 0)}}, "oa");
  result_rules(n, m, {minmax, {n.dim("pka", 1)}}, "ob");
  canonical_nan_rule(n, m, {minmax, {n.dim("pka", 2)}});  // min.f32, max.f32 of two NaNs
  const Lit no_nan = {n.dim("oan", 1)};
  result_rules(n, m, {ops({Op::kNegF}), no_nan}, "oa", 15, 8);
  result_rules(n, m, {ops({Op::kAbsF}), no_nan}, "oa", 7, 0);
  canonical_nan_rule(n, m, {ops({Op::kNegF, Op::kAbsF}), {n.dim("oan", 0)}});
  result_rules(n, m, {ops({Op::kAnd, Op::kOr, Op::kXor, Op::kNot, Op::kPopc, Op::kClz, Op::kBrev})}, "lg");
  shift_results(n, m, ops({Op::kShl, Op::kShrU, Op::kShrS}));
  std::vector<int> zero = {n.dim("fits", 0)};
  for (int g = 0; g < 8; ++g) zero.push_back(n.digit("res", g, 0));
  Lit rest;
  for (int code = 0; code < n.l["f_op"].size; ++code) {
    bool listed = false;
    for (Op o : kResultOps) listed |= code == static_cast<int>(o) + 1;
    if (!listed) rest.push_back(n.dim("f_op", code));
  }
  m.rule({rest}, zero);
}

// ef: the body record's family while the step's body goes on, else the scheduler's.
void family_rules(Net& n, Mlp& m) {
  auto scheduler = [&](std::vector<Lit> lits) {
    for (int f = 0; f < 4; ++f) {
      std::vector<Lit> with = lits;
      with.push_back({n.dim("sfam", f)});
      m.rule(with, {n.dim("ef", kEmitBar + f)});
    }
  };
  const Lit lanes = n.dims("nl", 0, kLanes), none = {n.dim("nl", kLanes)};
  const Lit values = effect_dims(n, {Effect::kValue, Effect::kAtomic}), not_values = effect_dims(n, {Effect::kValue, Effect::kAtomic}, true);
  const Lit preds = effect_dims(n, {Effect::kPred}), branches = effect_dims(n, {Effect::kBranch});
  const Lit stores = effect_dims(n, {Effect::kStore}), not_stores = effect_dims(n, {Effect::kStore}, true);
  const Lit rest = effect_dims(n, {Effect::kValue, Effect::kAtomic, Effect::kPred, Effect::kBranch, Effect::kStore}, true);
  const Lit sched = {n.fam(Tok::kSched)}, v_t = n.families({Tok::kSmall, Tok::kTail}), st = {n.fam(Tok::kSt)};
  // After sched.
  m.rule({sched, values, lanes}, {n.dim("ef", kEmitValue)});
  scheduler({sched, values, none});
  std::vector<Lit> no_lane = {sched, preds};
  for (int l = 0; l < kLanes; ++l) {
    std::vector<Lit> first = no_lane;
    first.push_back({n.dim("eff" + std::to_string(l), 0)});
    m.rule(first, {n.dim("ef", kEmitPred)});
    no_lane.push_back({n.dim("eff" + std::to_string(l), 1)});
  }
  scheduler(no_lane);
  m.rule({sched, branches}, {n.dim("ef", kEmitBr)});
  m.rule({sched, stores, lanes}, {n.dim("ef", kEmitSt)});
  scheduler({sched, stores, none});
  scheduler({sched, rest});
  // After a whole value: the next lane's value, if any.
  m.rule({v_t, values, lanes}, {n.dim("ef", kEmitValue)});
  scheduler({v_t, values, none});
  scheduler({v_t, not_values});
  // A 4-byte value's next byte.
  m.rule({{n.fam(Tok::kHead)}}, {n.dim("ef", kEmitMid1)});
  m.rule({{n.fam(Tok::kMid1)}}, {n.dim("ef", kEmitMid2)});
  m.rule({{n.fam(Tok::kMid2)}}, {n.dim("ef", kEmitTail)});
  // After a store: the next lane's, if any.
  m.rule({st, stores, lanes}, {n.dim("ef", kEmitSt)});
  scheduler({st, stores, none});
  scheduler({st, not_stores});
  scheduler({n.families({Tok::kSched, Tok::kSmall, Tok::kTail, Tok::kHead, Tok::kMid1, Tok::kMid2, Tok::kSt}, true)});
}

// The LM head, tied to the embedding (the merged checkpoint has one matrix for both, as
// Qwen3.5-2B): row `id` is 1 at each dim its record matches, and the final norm scales a
// hot of that dim to the logit it is worth (`units`, a power of two, so the normed hot is
// exactly it), every other dim to 0. So the embedding's own dims (the token's input code)
// add nothing to any logit, and the pattern the row writes into the residual at the input
// is cleared by L0's MLP (build_clears), padded to kHeadHots by `hpad` first so that
// every token's input has one energy.
struct LmHead {
  Net& n;
  std::vector<float> units = std::vector<float>(static_cast<size_t>(n.b.config.hidden_size), 0.0f);  // per dim
  int count = 0;  // the current row's pattern
  void add(int id, int dim, float u) {
    float& w = n.b.at("model.embed_tokens.weight", id, dim);
    float& have = units[static_cast<size_t>(dim)];
    CHECK(w == 0.0f && (have == 0.0f || have == u));  // one weight per dim: the final norm holds it
    w = 1.0f;
    have = u;
    ++count;
  }
  void rails(int id, const std::string& field, int mask) {  // lane l in at 2 l, out at 2 l + 1
    for (int l = 0; l < kLanes; ++l) add(id, n.dim(field, 2 * l + ((mask >> l & 1) ? 0 : 1)), 1.0f);
  }
  void bits(int id, const char* field, int mask) {  // field{l}: 0 in, 1 out
    for (int l = 0; l < kLanes; ++l) add(id, n.dim(field + std::to_string(l), (mask >> l & 1) ? 0 : 1), 1.0f);
  }
};

void build_lm_head(Net& n) {
  LmHead h{n};
  auto family = [&](int id, int ef) { h.add(id, n.dim("ef", ef), kFamilyLogit); };
  for (int id = 0; id < vocab_size(); ++id) {
    const Rec r = decode_token(id);
    h.count = 0;
    switch (r.kind) {
      case Tok::kSmall: case Tok::kHead: {
        const uint32_t v = static_cast<uint32_t>(r.y);
        family(id, kEmitValue);
        h.add(id, n.dim("fits", r.kind == Tok::kSmall ? 0 : 1), kFitsLogit);
        h.rails(id, "etag", r.x);
        for (int g = 0; g < (r.kind == Tok::kSmall ? 8 : 2); ++g) h.add(id, n.digit("res", g, word_nibble(v, g)), 1.0f);
        break;
      }
      case Tok::kMid1: case Tok::kMid2: case Tok::kTail: {
        const int byte = r.kind == Tok::kMid1 ? 1 : r.kind == Tok::kMid2 ? 2 : 3;
        family(id, kEmitMid1 + byte - 1);
        for (int k = 0; k < 2; ++k) h.add(id, n.dim("res", 16 * (2 * byte + k) + (r.x >> (4 * k) & 0xf)), 1.0f);
        break;
      }
      case Tok::kPred:
        family(id, kEmitPred);
        h.bits(id, "eff", r.x);
        h.bits(id, "pb", r.y);
        break;
      case Tok::kBr:
        family(id, kEmitBr);
        h.bits(id, "eff", r.x);
        break;
      case Tok::kSt: {
        family(id, kEmitSt);
        h.add(id, n.dim("nl", r.x), 1.0f);
        const uint32_t byte = 4u * static_cast<uint32_t>(r.y);
        for (int g = 0; g < 3; ++g) h.add(id, n.digit("sum", g, word_nibble(byte, g)), 1.0f);
        break;
      }
      case Tok::kBar:
        family(id, kEmitBar);
        h.add(id, n.dim("bar", r.x), 1.0f);
        h.add(id, n.dim("barq", r.y), 1.0f);
        break;
      case Tok::kSched:
        family(id, kEmitSched);
        h.add(id, n.dim("nw", r.x), 1.0f);
        h.add(id, n.dim("mhi", r.y / kBlockLo), 1.0f);
        h.add(id, n.dim("mlo", r.y % kBlockLo), 1.0f);
        h.bits(id, "smk", r.z);
        break;
      case Tok::kWave:
        family(id, kEmitWave);
        h.add(id, n.dim("nk_hi", r.x / 16), 1.0f);
        h.add(id, n.dim("nk_lo", r.x % 16), 1.0f);
        break;
      case Tok::kEnd: family(id, kEmitEnd); break;
      default: break;  // prompt tokens: never emitted
    }
    CHECK(h.count <= kHeadHots);
    for (int i = 0; i < kHeadHots - h.count; ++i) n.b.at("model.embed_tokens.weight", id, n.dim("hpad", i)) = 1.0f;
  }
  const int final_norm = static_cast<int>(n.hots.size()) - 1;
  for (int d = 0; d < n.b.config.hidden_size; ++d) {
    const float u = h.units[static_cast<size_t>(d)];
    CHECK(u == 0.0f || u == std::exp2(std::round(std::log2(u))));  // a power of two: the normed hot is exactly u
    n.b.at("model.norm.weight", d) = n.rms_at(final_norm) * u - 1.0f;
  }
}

}  // namespace

bool computed_by_layers(Op op) {
  const Effect e = op_info(op).effect;
  return e == Effect::kPred || e == Effect::kStore || e == Effect::kBranch || e == Effect::kBarrier ||
         e == Effect::kExit || std::find(std::begin(kResultOps), std::end(kResultOps), op) != std::end(kResultOps);
}

std::vector<Op> computed_ops() {
  std::vector<Op> ops;
  for (int i = 0; i < kNumOps; ++i)
    if (computed_by_layers(static_cast<Op>(i))) ops.push_back(static_cast<Op>(i));
  return ops;
}

std::optional<std::string> generation_gap(std::span<const Instr> code, const Launch& launch) {
  // The ops the layers compute, named from the table the emit stage builds its rules from.
  auto names = [](bool floats) {
    std::string s;
    for (Op o : computed_ops())
      if ((is_float_op(o) || o == Op::kAddFSig || o == Op::kAddFRnd) == floats) {
        if (!s.empty()) s += ", ";
        s += op_info(o).mnemonic;
      }
    return s;
  };
  for (size_t b = 0; b < code.size(); ++b) {
    const Instr& in = code[b];
    const bool built = computed_by_layers(in.op);
    if (is_float_op(in.op) && !built)
      return fmt::format("block {}: {} (the model's ALU has the floating point ops {}; `qgpu run --engine model` "
                         "compiles add and sub into the float microcode (add.f32.sig, add.f32.rnd), mul, fma, div, "
                         "sqrt and the other conversions into integer ops, hand-written code must too, or run on the "
                         "interpreter, --engine interp, which is exact to IEEE-754 and NVIDIA's NaN; `qgpu map` lists "
                         "the ops the layers compute)",
                         b, op_info(in.op).mnemonic, names(true));
    if (!built)
      return fmt::format("block {}: {} (the model's ALU has {}; `qgpu run` compiles mul.hi, div and rem into those, "
                         "hand-written code must too)",
                         b, op_info(in.op).mnemonic, names(false));
    const bool atomic = op_info(in.op).effect == Effect::kAtomic;
    // The update reads lane j's base and b from the registers at the token that writes
    // d = old (stage_atomic.cpp): the compiler makes d early-clobber; hand-written code
    // must too.
    if (atomic) {
      const bool reg_a = in.a.kind == OperandKind::kReg || in.a.kind == OperandKind::kNone;
      const bool cas = in.op == Op::kAtomCas;
      if (!reg_a || in.b.kind != OperandKind::kReg || (cas && in.c.kind != OperandKind::kReg))
        return fmt::format("block {}: {} with a base or operand b{} that is not a register (the model's atomics read "
                           "them from the registers)", b, op_info(in.op).mnemonic, cas ? " or c" : "");
      if (in.d == in.a || in.d == in.b || (cas && in.d == in.c))
        return fmt::format("block {}: {} writes r{}, which it also reads (the model's atomics need d apart from "
                           "the base, b and c)", b, op_info(in.op).mnemonic, in.d.index);
    }
    for (Operand o : {in.a, in.b, in.c})
      if (o.kind == OperandKind::kSpecial &&
          (o.index == static_cast<int>(Special::kCtaidX) || o.index == static_cast<int>(Special::kCtaidY)) &&
          launch.grid_y > 1 && launch.grid_x > 16)
        return fmt::format("block {}: reads %ctaid on a grid {} wide and {} tall (the model has %ctaid for grids at "
                           "most 16 wide, or one row)", b, launch.grid_x, launch.grid_y);
  }
  return std::nullopt;
}

void build_emit(Net& n) {
  build_load(n);
  Mlp m(n, kEmitLayer);
  results(n, m);
  family_rules(n, m);
  build_lm_head(n);
}

}  // namespace qgpu::lift
