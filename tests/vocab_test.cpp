// The token vocabulary: every id decodes to a valid record and back, families tile the
// id space, record text and value records have the documented shape.
#include "gpu/vocab.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <ostream>
#include <string>
#include <vector>

#include "base/error.h"

namespace qgpu {

// For readable failures: records print as their text.
void PrintTo(const Rec& r, std::ostream* os) {
  *os << "{" << static_cast<int>(r.kind) << ", " << r.x << ", " << r.y << ", " << r.z << "}";
  if (valid_record(r)) *os << " " << record_text(r);
}

namespace {

TEST(Vocab, EveryIdDecodesToAValidRecordAndBack) {
  for (int id = 0; id < vocab_size(); ++id) {
    Rec r = decode_token(id);
    ASSERT_TRUE(valid_record(r)) << "id " << id << " decodes to " << testing::PrintToString(r);
    ASSERT_EQ(token_id(r), id) << record_text(r);
  }
}

TEST(Vocab, FamiliesAreContiguousInEnumOrder) {
  EXPECT_EQ(family_offset(Tok::kBegin), 0);
  for (int i = 0; i + 1 < kNumFamilies; ++i)
    EXPECT_EQ(family_offset(static_cast<Tok>(i + 1)),
              family_offset(static_cast<Tok>(i)) + kFamilies[i].size)
        << kFamilies[i].name;
  const Family& last = kFamilies[kNumFamilies - 1];
  EXPECT_EQ(vocab_size(), family_offset(last.kind) + last.size);
}

TEST(Vocab, EachFamilyIdsDecodeToThatFamily) {
  for (const Family& f : kFamilies) {
    EXPECT_EQ(decode_token(family_offset(f.kind)).kind, f.kind) << f.name << " first id";
    EXPECT_EQ(decode_token(family_offset(f.kind) + f.size - 1).kind, f.kind)
        << f.name << " last id";
  }
}

// The last id of each family is its record with every field at its maximum: a family
// size that disagrees with its field ranges (too many or too few ids) fails here.
TEST(Vocab, LastIdOfEachFamilyIsItsLargestRecord) {
  const std::vector<Rec> largest = {
      {Tok::kBegin},           {Tok::kRun},
      {Tok::kEnd},             {Tok::kGridX, 256},
      {Tok::kGridY, 256},      {Tok::kBlockX, 16},
      {Tok::kBlockY, 16},      {Tok::kRomAt, kBlocks - 1},
      {Tok::kOp, kNumOps - 1}, {Tok::kGuard, 8},
      {Tok::kFieldD, kFieldCodes - 1}, {Tok::kFieldA, kFieldCodes - 1},
      {Tok::kFieldB, kFieldCodes - 1}, {Tok::kFieldC, kFieldCodes - 1},
      {Tok::kMemAt, 125},      {Tok::kSmall, 15, 511},
      {Tok::kHead, 15, 255},   {Tok::kMid1, 255},
      {Tok::kMid2, 255},       {Tok::kTail, 255},
      {Tok::kSched, 3, kBlocks - 1, 15}, {Tok::kPred, 15, 15},
      {Tok::kBr, 15},          {Tok::kSt, 3, 125},
      {Tok::kBar, 3, 1},       {Tok::kWave, 255},
  };
  ASSERT_EQ(static_cast<int>(largest.size()), kNumFamilies);
  for (const Rec& r : largest) {
    const Family& f = family(r.kind);
    EXPECT_EQ(decode_token(family_offset(r.kind) + f.size - 1), r) << f.name;
  }
}

// The first ids are pinned so a reordering of the families is a deliberate change.
TEST(Vocab, FirstIds) {
  EXPECT_EQ(token_id({Tok::kBegin}), 0);
  EXPECT_EQ(token_id({Tok::kRun}), 1);
  EXPECT_EQ(token_id({Tok::kEnd}), 2);
  EXPECT_EQ(token_id({Tok::kGridX, 1}), 3);
  EXPECT_EQ(token_id({Tok::kGridX, 256}), 258);
  EXPECT_EQ(token_id({Tok::kGridY, 1}), 259);
}

// Families with two or three fields pack x major, then y, then z.
TEST(Vocab, FieldPacking) {
  int sched = family_offset(Tok::kSched);
  EXPECT_EQ(token_id({Tok::kSched, 0, 0, 1}), sched);
  EXPECT_EQ(token_id({Tok::kSched, 0, 0, 15}), sched + 14);
  EXPECT_EQ(token_id({Tok::kSched, 0, 1, 1}), sched + 15);
  EXPECT_EQ(token_id({Tok::kSched, 1, 0, 1}), sched + 256 * 15);
  EXPECT_EQ(token_id({Tok::kSmall, 0, -256}), family_offset(Tok::kSmall));
  EXPECT_EQ(token_id({Tok::kSmall, 1, -256}), family_offset(Tok::kSmall) + 768);
  EXPECT_EQ(token_id({Tok::kSt, 1, 0}), family_offset(Tok::kSt) + 126);
}

TEST(Vocab, DecodeOutsideTheVocabularyThrows) {
  std::string want_tail = fmt::format(" is outside the qgpu vocabulary (0..{})", vocab_size() - 1);
  for (int id : {-1, vocab_size()}) {
    try {
      decode_token(id);
      ADD_FAILURE() << "decode_token(" << id << ") did not throw";
    } catch (const Error& e) {
      EXPECT_EQ(e.what(), fmt::format("token id {}{}", id, want_tail));
    }
  }
}

TEST(Vocab, ValidRecordRejectsOutOfRangeFields) {
  EXPECT_FALSE(valid_record({Tok::kGridX, 0}));
  EXPECT_FALSE(valid_record({Tok::kGridX, 257}));
  EXPECT_FALSE(valid_record({Tok::kBegin, 1}));
  EXPECT_FALSE(valid_record({Tok::kSched, 0, 0, 0}));      // empty lane mask
  EXPECT_FALSE(valid_record({Tok::kSched, 4, 0, 1}));      // warp 4
  EXPECT_FALSE(valid_record({Tok::kSmall, 0, 512}));
  EXPECT_FALSE(valid_record({Tok::kSmall, 16, 0}));        // tag past lane mask 15
  EXPECT_FALSE(valid_record({Tok::kPred, 0, 0}));          // no lanes written
  EXPECT_FALSE(valid_record({Tok::kPred, 1, 16}));
  EXPECT_FALSE(valid_record({Tok::kMemAt, 126}));
  EXPECT_FALSE(valid_record({Tok::kWave, 0}));             // wave 0 starts at run
  EXPECT_FALSE(valid_record({Tok::kWave, 256}));
  EXPECT_FALSE(valid_record({Tok::kCount}));
  EXPECT_TRUE(valid_record({Tok::kWave, 255}));
  EXPECT_TRUE(valid_record({Tok::kSmall, kTagData, -256}));
  EXPECT_TRUE(valid_record({Tok::kPred, 15, 15}));
}

TEST(Vocab, RecordText) {
  const std::vector<std::pair<Rec, std::string>> cases = {
      {{Tok::kBegin}, "begin"},
      {{Tok::kRun}, "run"},
      {{Tok::kEnd}, "end"},
      {{Tok::kGridX, 4}, "gx=4"},
      {{Tok::kGridY, 256}, "gy=256"},
      {{Tok::kBlockX, 16}, "bx=16"},
      {{Tok::kBlockY, 2}, "by=2"},
      {{Tok::kRomAt, 5}, "@b5"},
      {{Tok::kOp, static_cast<int>(Op::kMadLo)}, "op:mad.lo"},
      {{Tok::kGuard, 0}, "guard:none"},
      {{Tok::kGuard, 1}, "guard:@p0"},
      {{Tok::kGuard, 7}, "guard:@!p2"},
      {{Tok::kFieldD, field_code(reg(14))}, "d:r14"},
      {{Tok::kFieldA, field_code(special(Special::kTidX))}, "a:%tid.x"},
      {{Tok::kFieldB, field_code(imm())}, "b:imm"},
      {{Tok::kFieldC, 0}, "c:none"},
      {{Tok::kFieldC, field_code(pred(3))}, "c:p3"},
      {{Tok::kMemAt, 17}, "@m17"},
      {{Tok::kSmall, 15, -7}, "v*:-7"},        // all four lanes
      {{Tok::kSmall, kTagData, 255}, "v=:255"},  // image data
      {{Tok::kSmall, 4, -7}, "v2:-7"},         // lane 2 alone
      {{Tok::kSmall, 1, 0}, "v0:0"},
      {{Tok::kSmall, 5, 5}, "v{0,2}:5"},
      {{Tok::kHead, 4, 255}, "h2:ff"},
      {{Tok::kHead, 10, 1}, "h{1,3}:01"},
      {{Tok::kHead, kTagData, 10}, "h=:0a"},
      {{Tok::kMid1, 10}, "m1:0a"},
      {{Tok::kMid2, 0}, "m2:00"},
      {{Tok::kTail, 128}, "t:80"},
      {{Tok::kSched, 1, 12, 11}, "sched w1 b12 {0,1,3}"},
      {{Tok::kSched, 3, 127, 15}, "sched w3 b127 {0,1,2,3}"},
      {{Tok::kPred, 7, 5}, "pred {0,2} of {0,1,2}"},
      {{Tok::kPred, 15, 0}, "pred {} of {0,1,2,3}"},
      {{Tok::kBr, 8}, "br {3}"},
      {{Tok::kSt, 3, 17}, "st l3 @m17"},
      {{Tok::kBar, 1, 0}, "bar c1 ^0"},
      {{Tok::kWave, 3}, "wave 3"},
  };
  for (const auto& [r, text] : cases) EXPECT_EQ(record_text(r), text);
}

TEST(Vocab, MaskText) {
  EXPECT_EQ(mask_text(0), "{}");
  EXPECT_EQ(mask_text(1), "{0}");
  EXPECT_EQ(mask_text(6), "{1,2}");
  EXPECT_EQ(mask_text(15), "{0,1,2,3}");
}

TEST(Vocab, SmallValuesAreOneToken) {
  EXPECT_TRUE(fits_small(0xffffff00u));  // -256
  EXPECT_TRUE(fits_small(511));
  EXPECT_FALSE(fits_small(0xfffffeffu));  // -257
  EXPECT_FALSE(fits_small(512));
  EXPECT_EQ(value_records(1, 0xffffff00u), (std::vector<Rec>{{Tok::kSmall, 1, -256}}));
  EXPECT_EQ(value_records(15, 511), (std::vector<Rec>{{Tok::kSmall, 15, 511}}));
  EXPECT_EQ(value_records(kTagData, 0), (std::vector<Rec>{{Tok::kSmall, kTagData, 0}}));
  // 0xffffffff is -1: small.
  EXPECT_EQ(value_records(0, 0xffffffffu), (std::vector<Rec>{{Tok::kSmall, 0, -1}}));
}

TEST(Vocab, LargeValuesAreFourLittleEndianBytes) {
  auto bytes = [](int tag, int b0, int b1, int b2, int b3) {
    return std::vector<Rec>{{Tok::kHead, tag, b0}, {Tok::kMid1, b1}, {Tok::kMid2, b2},
                            {Tok::kTail, b3}};
  };
  EXPECT_EQ(value_records(2, 0xfffffeffu), bytes(2, 0xff, 0xfe, 0xff, 0xff));  // -257
  EXPECT_EQ(value_records(15, 512), bytes(15, 0x00, 0x02, 0x00, 0x00));
  EXPECT_EQ(value_records(kTagData, 0x80000000u), bytes(kTagData, 0x00, 0x00, 0x00, 0x80));
  EXPECT_EQ(value_records(3, 0x7fffffffu), bytes(3, 0xff, 0xff, 0xff, 0x7f));
  EXPECT_EQ(value_records(0, 0x12345678u), bytes(0, 0x78, 0x56, 0x34, 0x12));
}

}  // namespace
}  // namespace qgpu
