// The token embedding, the program image and memory (docs/design.md §3). The prompt's
// `begin`, `@b N` with its field and immediate tokens, and `@m A` with its value tokens
// write the ROM (L1) and the memory (L14); `st` records write memory too. The host reads
// both out (src/host/readout.h).
#include <optional>

#include "base/error.h"
#include "lift/machine_model.h"
#include "lift/stages.h"

namespace qgpu::lift {
namespace {

constexpr int kNone = 16;  // the "none" entry of a 17-wide group (nibble, tag, mask)

bool is_field(Tok t) {
  return t == Tok::kOp || t == Tok::kGuard || t == Tok::kFieldD || t == Tok::kFieldA ||
         t == Tok::kFieldB || t == Tok::kFieldC;
}

// Image address code: 0..125 a memory word, 126 the null slot (begin), 127 junk (@b, run:
// no memory word), 128 none (the token sets no address).
int image_address(const Rec& r) {
  if (r.kind == Tok::kMemAt) return r.x;
  if (r.kind == Tok::kBegin) return kNullSlot;
  if (r.kind == Tok::kRomAt || r.kind == Tok::kRun) return 127;
  return 128;
}

// The value groups: a `v` word's 8 nibbles and tag; the nibbles of each byte token and
// the tag of `h`.
void value_dims(const Layout& l, const Rec& r, std::vector<int>& d) {
  auto group = [&](const char* field, int groups, std::optional<uint32_t> v) {
    for (int g = 0; g < groups; ++g) d.push_back(l[field].dim(17 * g + (v ? word_nibble(*v, g) : kNone)));
  };
  auto if_kind = [&](Tok t, int v) { return r.kind == t ? std::optional<uint32_t>(static_cast<uint32_t>(v)) : std::nullopt; };
  group("vnib", 8, if_kind(Tok::kSmall, r.y));
  group("hnib", 2, if_kind(Tok::kHead, r.y));
  group("m1nib", 2, if_kind(Tok::kMid1, r.x));
  group("m2nib", 2, if_kind(Tok::kMid2, r.x));
  group("tnib", 2, if_kind(Tok::kTail, r.x));
  d.push_back(l["vtag"].dim(r.kind == Tok::kSmall ? r.x : kNone));
  d.push_back(l["htag"].dim(r.kind == Tok::kHead ? r.x : kNone));
}

// The groups of `sched` (warp, block hi and lo, lane mask) and `pred` (lanes, bits);
// `begin` is the null step: warp 0, the null block, no lanes.
void record_dims(const Layout& l, const Rec& r, std::vector<int>& d) {
  bool sched = r.kind == Tok::kSched, begin = r.kind == Tok::kBegin;
  int block = sched ? r.y : kNullBlock;
  d.push_back(l["sw"].dim(sched ? r.x : begin ? 0 : 4));
  d.push_back(l["shi"].dim(sched || begin ? block / kBlockLo : kBlockHi));
  d.push_back(l["slo"].dim(sched || begin ? block % kBlockLo : kBlockLo));
  d.push_back(l["smask"].dim(sched ? r.z : begin ? 0 : kNone));
  d.push_back(l["pmask"].dim(r.kind == Tok::kPred ? r.x : kNone));
  d.push_back(l["pbits"].dim(r.kind == Tok::kPred ? r.y : kNone));
  d.push_back(l["barc"].dim(r.kind == Tok::kBar ? r.x : kMaxCtas));
  d.push_back(l["barp"].dim(r.kind == Tok::kBar ? r.y : begin ? 0 : 2));
  bool st = r.kind == Tok::kSt;
  d.push_back(l["stl"].dim(st ? r.x : kLanes));
  d.push_back(l["sthi"].dim(st ? r.y / 8 : 16));
  d.push_back(l["stlo"].dim(st ? r.y % 8 : 8));
}

// The launch header's values x - 1 (the wave: k; run and begin: 0) as hi and lo nibbles.
void launch_dims(const Layout& l, const Rec& r, std::vector<int>& d) {
  int v = -1;
  if (r.kind == Tok::kGridX || r.kind == Tok::kGridY || r.kind == Tok::kBlockX || r.kind == Tok::kBlockY) v = r.x - 1;
  if (r.kind == Tok::kWave) v = r.x;
  if (r.kind == Tok::kRun || r.kind == Tok::kBegin) v = 0;
  d.push_back(l["lh"].dim(v < 0 ? kNone : v / 16));
  d.push_back(l["ll"].dim(v < 0 ? kNone : v % 16));
}

// The image groups: address, value end, ROM field value, ROM block address.
void image_dims(const Layout& l, const Rec& r, std::vector<int>& d) {
  int addr = image_address(r);
  d.push_back(l["addr"].dim(addr));
  bool vend = (r.kind == Tok::kSmall && r.x == kTagData) || r.kind == Tok::kTail || r.kind == Tok::kBegin;
  d.push_back(l["vend"].dim(vend ? 1 : 0));
  // op + 1 (0 = empty block), the guard or field code; @b and begin clear a block to 0.
  int fx = kFx;
  if (is_field(r.kind)) fx = r.kind == Tok::kOp ? r.x + 1 : r.x;
  if (r.kind == Tok::kRomAt || r.kind == Tok::kBegin) fx = 0;
  d.push_back(l["fx"].dim(fx));
  // The ROM block address (kBlockLo * hi + lo, rom = 1) at @b and begin (the null block);
  // begin, @m and run leave ROM mode.
  bool sets_addr = addr != 128;
  bool rom = r.kind == Tok::kRomAt || r.kind == Tok::kBegin;
  int block = r.kind == Tok::kRomAt ? r.x : r.kind == Tok::kBegin ? kNullBlock : 0;
  d.push_back(l["bhi"].dim(sets_addr ? block / kBlockLo : kBlockHi));
  d.push_back(l["blo"].dim(sets_addr ? block % kBlockLo : kBlockLo));
  d.push_back(l["brom"].dim(sets_addr ? (rom ? 1 : 0) : 2));
}

// The dims token `r` sets (value 1 each).
std::vector<int> embedding_dims(const Layout& l, const Rec& r) {
  std::vector<int> d{l["fam"].dim(static_cast<int>(r.kind)), l["one"].dim(0), l["one2"].dim(0)};
  value_dims(l, r, d);
  record_dims(l, r, d);
  launch_dims(l, r, d);
  image_dims(l, r, d);
  CHECK(static_cast<int>(d.size()) == embedding_hots(l));
  return d;
}

// L0: an address head. Tokens that set an address (begin/@m/@b/run) write slot 0 with
// their code; others do not write; every token reads slot 0.
Head address_head(Net& n, int h) {
  Head a(n, kControlLayer, h);
  a.key(0, n.dim("addr", 128), -1.0f);
  a.key_bias(0, 0.5f);
  a.query_bias(0, 0.5f);
  return a;
}

// img_addr = address / 8 (16) | address % 8 (8).
void build_image_address(Net& n) {
  Head a = address_head(n, kImageAddrHead);
  for (int addr = 0; addr < 128; ++addr) {
    a.value(addr / 8, n.dim("addr", addr));
    a.value(16 + addr % 8, n.dim("addr", addr));
  }
  for (int j = 0; j < 24; ++j) a.read(j, n.dim("img_addr", j), 2);
}

// rom_addr = hi kBlockHi | lo kBlockLo | rom 2, and 5 pad channels.
constexpr int kRomMode = kBlockHi + kBlockLo;  // rom_addr's rom entries
void build_rom_address(Net& n) {
  Head a = address_head(n, kRomAddrHead);
  for (int j = 0; j < kBlockHi; ++j) a.value(j, n.dim("bhi", j));
  for (int j = 0; j < kBlockLo; ++j) a.value(kBlockHi + j, n.dim("blo", j));
  for (int j = 0; j < 2; ++j) a.value(kRomMode + j, n.dim("brom", j));
  for (int j = kRomMode + 2; j < kRomMode + 7; ++j) a.pad(j);
  for (int j = 0; j < kRomMode + 2; ++j) a.read(j, n.dim("rom_addr", j), 8);
}

// L14: memory. A token that completes an image value (and begin, with the word 0 at the
// null slot) writes word i when the image address is i; `st` writes its word. The value
// is mw. At `st` (vend 0) the image terms sum to at most 2 - 2.5, and the word's hi and lo
// add 3 each less 3: only word A's key is positive. (mw: stage_operands.cpp.)
void build_memory(Net& n) {
  Head m(n, kMemoryLayer, kMemoryHead);
  for (int i = 0; i < kMemWords + 1; ++i) {
    m.key_and(i, {n.dim("img_addr", i / 8), n.dim("img_addr", 16 + i % 8), n.dim("vend", 1)});
    if (i == kNullSlot) continue;
    m.key(i, n.dim("sthi", i / 8), 3.0f);
    m.key(i, n.dim("stlo", i % 8), 3.0f);
    m.key(i, n.fam(Tok::kSt), -3.0f);
    // An atomic's update (stage_atomic.cpp): word xw, 3 per matching part less 3; xw's
    // none (hi 16) makes up the 3 at every other token.
    m.key(i, n.dim("xw", i / 8), 3.0f);
    m.key(i, n.dim("xw", 17 + i % 8), 3.0f);
    m.key(i, n.dim("xw", 16), 3.0f);
    m.key_bias(i, -3.0f);
  }
  for (int j = 0; j < 128; ++j) m.value(j, n.dim("mw", j));
}

// L1 ROM heads: block i is keyed (hi + lo + rom + writes - 3.5) in slot i % 128 of its
// bank's head, where `writes` is 1 for the head's own field token and for @b and begin
// (which clear every field to 0); the immediate is written by a completed image value.
// Other tokens, and every token whose address is in the other bank, have a zero key.
void build_rom_writes(Net& n) {
  const Tok fields[6] = {Tok::kOp, Tok::kGuard, Tok::kFieldD, Tok::kFieldA, Tok::kFieldB, Tok::kFieldC};
  for (int bank = 0; bank < kRomBanks; ++bank)
    for (int f = 0; f < kRomHeadCount; ++f) {
      Head r(n, kRomLayer, kRomHeads[bank][f]);
      for (int i = 0; i < kBankBlocks; ++i) {
        const int blk = bank * kBankBlocks + i;
        r.key(i, n.dim("rom_addr", blk / kBlockLo));
        r.key(i, n.dim("rom_addr", kBlockHi + blk % kBlockLo));
        r.key(i, n.dim("rom_addr", kRomMode + 1));
        r.key(i, n.fam(Tok::kRomAt));
        if (f < 6) {
          r.key(i, n.fam(Tok::kBegin));
          r.key(i, n.fam(fields[f]));
        } else {
          r.key(i, n.dim("vend", 1));  // image values and begin
        }
        r.key_bias(i, -3.5f);
      }
      for (int j = 0; j < (f < 6 ? kFx : 128); ++j) r.value(j, f < 6 ? n.dim("fx", j) : n.dim("wb_word", j));
      if (f < 6) r.pad(kRomPad);
    }
}

}  // namespace

void build_embedding(Net& n) {
  for (int id = 0; id < vocab_size(); ++id)
    for (int dim : embedding_dims(n.l, decode_token(id))) n.b.at("model.embed_tokens.weight", id, dim) = 1.0f;
}

void build_image(Net& n) {
  build_image_address(n);
  build_rom_address(n);
  build_memory(n);
  build_rom_writes(n);
}

}  // namespace qgpu::lift
