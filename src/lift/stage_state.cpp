// The machine state that consumed records write, and what every token reads of it
// (docs/design.md §3, "the state stages"):
//   L0  the step (the latest sched) and the consumed value as one word and one tag;
//   L1  the fetch: every ROM field of the step's block;
//   L2  the register file, written by value and pred records, read at the step's operands.
// Field layouts: step as machine_model.h's kStep* and step_lane say; wb_tag = lane l in the tag at 2l, not at 2l + 1; words are 8 one-hot
// nibbles (16 g + n).
#include "lift/machine_model.h"
#include "lift/stages.h"

namespace qgpu::lift {
namespace {

bool has(int mask, int lane) { return mask >> lane & 1; }

// L0: sched and begin write slot 0 with the step; every token reads it.
void build_step(Net& n) {
  Head s(n, kControlLayer, kStepHead);
  s.key(0, n.fam(Tok::kSched));
  s.key(0, n.fam(Tok::kBegin));
  s.key_bias(0, -0.5f);
  s.query_bias(0, 0.5f);
  for (int w = 0; w < kWarps; ++w) s.value(kStepWarp + w, n.dim("sw", w));
  for (int k = 0; k < kBlockHi; ++k) s.value(kStepHi + k, n.dim("shi", k));
  for (int k = 0; k < kBlockLo; ++k) s.value(kStepLo + k, n.dim("slo", k));
  for (int m = 0; m < 16; ++m)
    for (int l = 0; l < kLanes; ++l) s.value(step_lane(l, has(m, l)), n.dim("smask", m));
  s.pad(kStepCode);
  for (int j = 0; j < kStepCode; ++j) s.read(j, n.dim("step", j), 8);
}

// A head of L0 that writes and reads slot 0 exactly at the tokens `on` (true) and at all
// others (false); everywhere else its key and query are zero, so it reads exactly 0.
Head slot0_at(Net& n, int h, std::initializer_list<Tok> families, bool on) {
  Head a(n, kControlLayer, h);
  for (Tok t : families) {
    a.key(0, n.fam(t), on ? 1.0f : -1.0f);
    a.query(0, n.fam(t), on ? 1.0f : -1.0f);
  }
  a.key_bias(0, on ? -0.5f : 0.5f);
  a.query_bias(0, on ? -0.5f : 0.5f);
  return a;
}

// L0: the consumed value as one word, wb_word, at every token: at `t` the bytes of
// `h m1 m2 t` (byte k sits 3 - k tokens back; the grammar never puts a byte token at
// another byte's distance from a `t`), elsewhere but at `pred` the `v` word or, for other
// tokens, the word 0. At `pred` an equal-energy pad instead (L2 writes predicates from the
// token itself). The tag likewise: `h`'s from 3 back at `t`, else `v`'s, else 0.
void build_value_word(Net& n) {
  const char* byte_field[4] = {"hnib", "m1nib", "m2nib", "tnib"};
  Head bytes = slot0_at(n, kWordBytesHead, {Tok::kTail}, true);
  Head word = slot0_at(n, kWordHead, {Tok::kTail, Tok::kPred}, false);
  for (int g = 0; g < 8; ++g)
    for (int v = 0; v < 16; ++v) {
      int j = 16 * g + v;
      bytes.value(j, n.dim(byte_field[g / 2], 17 * (g % 2) + v));
      bytes.tap(j, 3 - g / 2);
      word.value(j, n.dim("vnib", 17 * g + v));
      if (v == 0)
        for (int f = 0; f < kNumFamilies; ++f)
          if (static_cast<Tok>(f) != Tok::kSmall) word.value(j, n.fam(static_cast<Tok>(f)));
      bytes.read(j, n.dim("wb_word", j), 8);
      word.read(j, n.dim("wb_word", j), 8);
    }
  Head pad = slot0_at(n, kPadHead, {Tok::kPred}, true);
  for (int j = 0; j < 8; ++j) {
    pad.value(j, n.fam(Tok::kPred));
    pad.read(j, n.dim("pad", j), 8);
  }
  Head htag = slot0_at(n, kTagBytesHead, {Tok::kTail}, true);
  Head vtag = slot0_at(n, kTagHead, {Tok::kTail}, false);
  for (int l = 0; l < kLanes; ++l)
    for (int rail = 0; rail < 2; ++rail) {
      int j = 2 * l + rail;
      for (int tag = 0; tag < kTags; ++tag)
        if (has(tag, l) == (rail == 0)) {
          htag.value(j, n.dim("htag", tag));
          vtag.value(j, n.dim("vtag", tag));
        }
      if (rail == 1)
        for (int f = 0; f < kNumFamilies; ++f)
          if (static_cast<Tok>(f) != Tok::kSmall) vtag.value(j, n.fam(static_cast<Tok>(f)));
      htag.tap(j, 3);
      htag.read(j, n.dim("wb_tag", j), 8);
      vtag.read(j, n.dim("wb_tag", j), 8);
    }
  for (int j = 8; j < 12; ++j) {
    htag.pad(j);
    vtag.pad(j);
  }
}

// L1: the fetch. Each ROM head reads the step's block (hi AND lo) into its f_ field; the
// other bank's head has no slot whose AND holds, so its query and its read are exactly 0
// and both banks' heads read into the same field.
void build_fetch(Net& n) {
  const char* field[kRomHeadCount] = {"f_op", "f_guard", "f_d", "f_a", "f_b", "f_c", "f_imm"};
  for (int bank = 0; bank < kRomBanks; ++bank)
    for (int f = 0; f < kRomHeadCount; ++f) {
      Head r(n, kRomLayer, kRomHeads[bank][f]);
      for (int i = 0; i < kBankBlocks; ++i) {
        const int blk = bank * kBankBlocks + i;
        r.query_and(i, {n.dim("step", kStepHi + blk / kBlockLo), n.dim("step", kStepLo + blk % kBlockLo)});
      }
      int width = n.l[field[f]].size;
      for (int j = 0; j < width; ++j) r.read(j, n.dim(field[f], j), f < 6 ? 2 : 8);
    }
}

// The register (or predicate) slot a port's field code reads; -1 for none, a special or
// the immediate (they read the null slot).
int port_slot_code(int port, int code) {
  if (port == 3) return code >= 1 && code < kGuardCodes ? kPredCode + (code - 1) % kPreds : -1;  // @pN / @!pN
  return code >= 1 && code < kSpecialCode ? code : -1;
}

// L2 head (port, lane): writes register d of the step's warp when the consumed value's
// tag names the lane, or the predicate d when a `pred` record's lanes do; begin writes
// the null slot with the word 0. Ports a, b, c hold the word as dual-rail bits (kBitWord:
// each rail is the sum of the 8 nibble values with that bit, so exactly one of the two is
// 1), the guard port as 8 one-hot nibbles (only nibble 0 is read).
void register_writes(Net& n, Head& r, int port, int lane) {
  for (int w = 0; w < kWarps; ++w)
    for (int code = 1; code <= kSlotsPerWarp; ++code) {
      int slot = register_slot(w, code);
      r.key(slot, n.dim("step", kStepWarp + w));
      r.key(slot, n.dim("f_d", code));
      r.key(slot, n.dim("wb_tag", 2 * lane));
      for (int x = 1; x < kTags; ++x)
        if (has(x, lane)) r.key(slot, n.dim("pmask", x));
      r.key_bias(slot, -2.5f);
    }
  r.key(kNullSlot, n.fam(Tok::kBegin));
  r.key_bias(kNullSlot, -0.5f);
  if (port == 3) {
    for (int j = 0; j < 128; ++j) r.value(j, n.dim("wb_word", j));
    for (int y = 0; y < 16; ++y) r.value(has(y, lane) ? 1 : 0, n.dim("pbits", y));  // a predicate is the word 0 or 1
    for (int g = 1; g < 8; ++g) r.value(16 * g, n.fam(Tok::kPred));
    return;
  }
  for (int g = 0; g < 8; ++g)
    for (int v = 0; v < 16; ++v)
      for (int b = 0; b < 4; ++b) r.value(bit_dim(4 * g + b, v >> b & 1), n.digit("wb_word", g, v));
  for (int y = 0; y < 16; ++y) r.value(bit_dim(0, has(y, lane)), n.dim("pbits", y));
  for (int i = 1; i < 32; ++i) r.value(bit_dim(i, false), n.fam(Tok::kPred));
}

// L2 head (port, lane): reads the slot of the port's field in the step's warp when the
// lane is in the step's mask, else the null slot.
void register_reads(Net& n, Head& r, int port, int lane) {
  const char* field[kPorts] = {"f_a", "f_b", "f_c", "f_guard"};
  const char* out[kPorts] = {"ra", "rb", "rc", "rg"};
  int codes = n.l[field[port]].size;
  for (int w = 0; w < kWarps; ++w)
    for (int sc = 1; sc <= kSlotsPerWarp; ++sc) {
      int slot = register_slot(w, sc);
      r.query(slot, n.dim("step", kStepWarp + w));
      r.query(slot, n.dim("step", step_lane(lane, true)));
      for (int code = 0; code < codes; ++code)
        if (port_slot_code(port, code) == sc) r.query(slot, n.dim(field[port], code));
      r.query_bias(slot, -2.5f);
    }
  for (int code = 0; code < codes; ++code)
    if (port_slot_code(port, code) < 0) r.query(kNullSlot, n.dim(field[port], code));
  r.query(kNullSlot, n.dim("step", step_lane(lane, false)));
  r.query_bias(kNullSlot, -0.5f);
  const Field& to = n.l[std::string(out[port]) + std::to_string(lane)];
  for (int j = 0; j < to.size; ++j) r.read(j, to.dim(j), port == 3 ? 8 : 32);
}

void build_registers(Net& n) {
  for (int port = 0; port < kPorts; ++port)
    for (int lane = 0; lane < kLanes; ++lane) {
      Head r(n, kRegisterLayer, register_head(port, lane));
      register_writes(n, r, port, lane);
      register_reads(n, r, port, lane);
    }
}

}  // namespace

std::vector<Mlp::Literal> nibble_is(Net& n, const std::string& field, int g, int v) {
  std::vector<Mlp::Literal> lits;
  for (int b = 0; b < 4; ++b) lits.push_back({n.dim(field, bit_dim(4 * g + b, v >> b & 1))});
  return lits;
}

std::vector<Mlp::Term> nibble_bits(Net& n, const std::string& field, int g, int sign, bool top_signed) {
  std::vector<Mlp::Term> terms;
  for (int b = 0; b < 4; ++b) terms.push_back({{n.dim(field, bit_dim(4 * g + b, true))}, {sign * (top_signed && b == 3 ? -8 : 1 << b)}});
  return terms;
}

void build_state(Net& n) {
  build_step(n);
  build_value_word(n);
  build_fetch(n);
  build_registers(n);
}

}  // namespace qgpu::lift
