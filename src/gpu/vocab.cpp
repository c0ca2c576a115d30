// Token ids <-> records. Each family packs its fields into a dense index; the id is the
// family's offset plus that index, families laid out in enum order.
#include "gpu/vocab.h"

#include <fmt/format.h>

#include <bit>

#include "base/error.h"

namespace qgpu {
namespace {

struct Range {
  int lo, hi;  // inclusive
  bool has(int v) const { return v >= lo && v <= hi; }
};

// Field ranges of each family: x, y, z. Unused fields must be 0.
struct Shape {
  Range x, y, z;
};

constexpr Range kZero{0, 0};

Shape shape(Tok t) {
  switch (t) {
    case Tok::kBegin: case Tok::kRun: case Tok::kEnd: return {kZero, kZero, kZero};
    case Tok::kGridX: case Tok::kGridY: return {{1, kMaxGridBlocks}, kZero, kZero};
    case Tok::kBlockX: case Tok::kBlockY: return {{1, kMaxBlockThreads}, kZero, kZero};
    case Tok::kRomAt: return {{0, kBlocks - 1}, kZero, kZero};
    case Tok::kOp: return {{0, kNumOps - 1}, kZero, kZero};
    case Tok::kGuard: return {{0, kGuardCodes - 1}, kZero, kZero};
    case Tok::kFieldD: case Tok::kFieldA: case Tok::kFieldB: case Tok::kFieldC:
      return {{0, kFieldCodes - 1}, kZero, kZero};
    case Tok::kMemAt: return {{0, kMemWords - 1}, kZero, kZero};
    case Tok::kSmall: return {{0, kTags - 1}, {kSmallMin, kSmallMax}, kZero};
    case Tok::kHead: return {{0, kTags - 1}, {0, 255}, kZero};
    case Tok::kMid1: case Tok::kMid2: case Tok::kTail: return {{0, 255}, kZero, kZero};
    case Tok::kSched: return {{0, kWarps - 1}, {0, kBlocks - 1}, {1, 15}};
    case Tok::kPred: return {{1, 15}, {0, 15}, kZero};
    case Tok::kBr: return {{0, 15}, kZero, kZero};
    case Tok::kSt: return {{0, kLanes - 1}, {0, kMemWords - 1}, kZero};
    case Tok::kBar: return {{0, kMaxCtas - 1}, {0, 1}, kZero};
    case Tok::kWave: return {{1, kMaxGridBlocks - 1}, kZero, kZero};
    case Tok::kCount: break;
  }
  CHECK(false);
}

int width(Range r) { return r.hi - r.lo + 1; }

// Dense index of a record inside its family: x major, then y, then z.
int index_in_family(const Rec& r) {
  Shape s = shape(r.kind);
  return ((r.x - s.x.lo) * width(s.y) + (r.y - s.y.lo)) * width(s.z) + (r.z - s.z.lo);
}

Rec record_at(Tok t, int index) {
  Shape s = shape(t);
  Rec r{t};
  r.z = s.z.lo + index % width(s.z);
  index /= width(s.z);
  r.y = s.y.lo + index % width(s.y);
  r.x = s.x.lo + index / width(s.y);
  return r;
}

constexpr std::array<int, kNumFamilies + 1> offsets() {
  std::array<int, kNumFamilies + 1> o{};
  for (int i = 0; i < kNumFamilies; ++i) o[i + 1] = o[i] + kFamilies[i].size;
  return o;
}
constexpr auto kOffsets = offsets();

std::string tag_text(int tag) {
  if (tag == kTagData) return "=";
  if (tag == (1 << kLanes) - 1) return "*";
  if (std::has_single_bit(static_cast<unsigned>(tag))) return std::to_string(std::countr_zero(static_cast<unsigned>(tag)));
  return mask_text(tag);
}

std::string field_text(int code) {
  Operand o = operand_from_code(code);
  switch (o.kind) {
    case OperandKind::kNone: return "none";
    case OperandKind::kReg: return fmt::format("r{}", o.index);
    case OperandKind::kPred: return fmt::format("p{}", o.index);
    case OperandKind::kSpecial: return std::string(kSpecials[o.index].name);
    case OperandKind::kImm: return "imm";
  }
  CHECK(false);
}

std::string guard_text(int code) {
  Guard g = guard_from_code(code);
  if (g.pred < 0) return "none";
  return fmt::format("@{}p{}", g.negate ? "!" : "", g.pred);
}

}  // namespace

int vocab_size() { return kOffsets[kNumFamilies]; }

int family_offset(Tok t) { return kOffsets[static_cast<int>(t)]; }

bool valid_record(const Rec& r) {
  if (static_cast<int>(r.kind) >= kNumFamilies) return false;
  Shape s = shape(r.kind);
  return s.x.has(r.x) && s.y.has(r.y) && s.z.has(r.z);
}

int token_id(const Rec& r) {
  CHECK(valid_record(r));
  int index = index_in_family(r);
  CHECK(index >= 0 && index < family(r.kind).size);
  return family_offset(r.kind) + index;
}

Rec decode_token(int id) {
  if (id < 0 || id >= vocab_size())
    fail("token id {} is outside the qgpu vocabulary (0..{})", id, vocab_size() - 1);
  int f = 0;
  while (kOffsets[f + 1] <= id) ++f;
  return record_at(static_cast<Tok>(f), id - kOffsets[f]);
}

std::string mask_text(int mask) {
  std::string s = "{";
  for (int j = 0; j < kLanes; ++j) {
    if (!(mask >> j & 1)) continue;
    if (s.size() > 1) s += ',';
    s += std::to_string(j);
  }
  return s + "}";
}

std::string record_text(const Rec& r) {
  std::string_view name = family(r.kind).name;
  switch (r.kind) {
    case Tok::kBegin: case Tok::kRun: case Tok::kEnd: return std::string(name);
    case Tok::kGridX: case Tok::kGridY: case Tok::kBlockX: case Tok::kBlockY:
      return fmt::format("{}={}", name, r.x);
    case Tok::kRomAt: case Tok::kMemAt: return fmt::format("{}{}", name, r.x);
    case Tok::kOp: return fmt::format("op:{}", kOps[r.x].mnemonic);
    case Tok::kGuard: return fmt::format("guard:{}", guard_text(r.x));
    case Tok::kFieldD: case Tok::kFieldA: case Tok::kFieldB: case Tok::kFieldC:
      return fmt::format("{}:{}", name, field_text(r.x));
    case Tok::kSmall: return fmt::format("v{}:{}", tag_text(r.x), r.y);
    case Tok::kHead: return fmt::format("h{}:{:02x}", tag_text(r.x), r.y);
    case Tok::kMid1: case Tok::kMid2: case Tok::kTail: return fmt::format("{}:{:02x}", name, r.x);
    case Tok::kSched: return fmt::format("sched w{} b{} {}", r.x, r.y, mask_text(r.z));
    case Tok::kPred: return fmt::format("pred {} of {}", mask_text(r.y), mask_text(r.x));
    case Tok::kBr: return fmt::format("br {}", mask_text(r.x));
    case Tok::kSt: return fmt::format("st l{} @m{}", r.x, r.y);
    case Tok::kBar: return fmt::format("bar c{} ^{}", r.x, r.y);
    case Tok::kWave: return fmt::format("wave {}", r.x);
    case Tok::kCount: break;
  }
  CHECK(false);
}

bool fits_small(uint32_t v) {
  int32_t s = static_cast<int32_t>(v);
  return s >= kSmallMin && s <= kSmallMax;
}

std::vector<Rec> value_records(int tag, uint32_t v) {
  if (fits_small(v)) return {{Tok::kSmall, tag, static_cast<int32_t>(v)}};
  return {{Tok::kHead, tag, static_cast<int>(v & 0xff)},
          {Tok::kMid1, static_cast<int>(v >> 8 & 0xff)},
          {Tok::kMid2, static_cast<int>(v >> 16 & 0xff)},
          {Tok::kTail, static_cast<int>(v >> 24 & 0xff)}};
}

}  // namespace qgpu
