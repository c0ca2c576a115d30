// The token vocabulary: program-image tokens (the prompt) and execution records (what
// the model generates). Defined once as a table of families; a token id is a family's
// offset plus an index inside it.
//
// A record is one token. Its effects on the machine happen when the model *consumes*
// it (the forward pass at the position where it is the input); which record comes next
// is a function of the machine state after that. docs/isa.md has the grammar.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gpu/isa.h"

namespace qgpu {

enum class Tok : uint8_t {
  kBegin, kRun, kEnd,                            // prompt start, prompt end, launch end
  kGridX, kGridY, kBlockX, kBlockY,              // launch header
  kRomAt, kOp, kGuard, kFieldD, kFieldA, kFieldB, kFieldC,  // program image
  kMemAt,                                        // memory image
  kSmall, kHead, kMid1, kMid2, kTail,            // 32-bit values: 1 token or 4 bytes
  kSched, kPred, kBr, kSt, kBar, kWave,          // execution records
  kCount
};
inline constexpr int kNumFamilies = static_cast<int>(Tok::kCount);

// Value tags: which lanes a value record writes. 1..15 is a lane mask (bit j = lane j);
// 0 is image data (an immediate or a memory word in the prompt). The tag carries the
// lanes because the layer that writes registers cannot also read the guard first.
inline constexpr int kTagData = 0;
inline constexpr int kTags = 1 << kLanes;
inline constexpr int kSmallRange = kSmallMax - kSmallMin + 1;

// The phase of the machine's pipeline that produces a family's tokens (for display): fetch,
// execute, memory or write-back for records, image for prompt tokens.
enum class PipelinePhase : uint8_t { kImage, kFetch, kExecute, kMemory, kWriteback };

struct Family {
  Tok kind;
  std::string_view name;
  int size;                 // number of token ids in the family
  PipelinePhase phase;
  std::string_view fields;  // what x, y, z mean
  std::string_view meaning;
};

inline constexpr std::array<Family, kNumFamilies> kFamilies = {{
    {Tok::kBegin, "begin", 1, PipelinePhase::kImage, "", "start of a launch prompt; clears the machine"},
    {Tok::kRun, "run", 1, PipelinePhase::kImage, "", "end of the prompt: wave 0 starts"},
    {Tok::kEnd, "end", 1, PipelinePhase::kFetch, "", "every CUDA block has finished"},
    {Tok::kGridX, "gx", kMaxGridBlocks, PipelinePhase::kImage, "x = grid size x (1..256)", "launch header"},
    {Tok::kGridY, "gy", kMaxGridBlocks, PipelinePhase::kImage, "x = grid size y (1..256)", "launch header"},
    {Tok::kBlockX, "bx", kMaxBlockThreads, PipelinePhase::kImage, "x = block size x (1..16)",
     "launch header"},
    {Tok::kBlockY, "by", kMaxBlockThreads, PipelinePhase::kImage, "x = block size y (1..16)",
     "launch header"},
    {Tok::kRomAt, "@b", kBlocks, PipelinePhase::kImage, "x = block", "following fields go to ROM block x"},
    {Tok::kOp, "op", kNumOps, PipelinePhase::kImage, "x = op", "the block's opcode"},
    {Tok::kGuard, "guard", kGuardCodes, PipelinePhase::kImage, "x = guard code", "the block's guard"},
    {Tok::kFieldD, "d", kFieldCodes, PipelinePhase::kImage, "x = field code", "operand d"},
    {Tok::kFieldA, "a", kFieldCodes, PipelinePhase::kImage, "x = field code", "operand a"},
    {Tok::kFieldB, "b", kFieldCodes, PipelinePhase::kImage, "x = field code", "operand b"},
    {Tok::kFieldC, "c", kFieldCodes, PipelinePhase::kImage, "x = field code", "operand c"},
    {Tok::kMemAt, "@m", kMemWords, PipelinePhase::kImage, "x = word", "the next value goes to memory x"},
    {Tok::kSmall, "v", kTags * kSmallRange, PipelinePhase::kExecute,
     "x = tag (lane mask, 0 = image data), y = value (-256..511)",
     "a whole 32-bit value"},
    {Tok::kHead, "h", kTags * 256, PipelinePhase::kExecute, "x = tag, y = byte 0",
     "first byte of a 4-token value (little endian)"},
    {Tok::kMid1, "m1", 256, PipelinePhase::kExecute, "x = byte 1", "second byte"},
    {Tok::kMid2, "m2", 256, PipelinePhase::kExecute, "x = byte 2", "third byte"},
    {Tok::kTail, "t", 256, PipelinePhase::kExecute, "x = byte 3", "fourth byte; the value is complete"},
    {Tok::kSched, "sched", kWarps * kBlocks * 15, PipelinePhase::kFetch,
     "x = warp, y = block, z = active mask (1..15)", "warp x runs block y with lanes z"},
    {Tok::kPred, "pred", 15 * 16, PipelinePhase::kExecute, "x = lanes written (1..15), y = result bits",
     "predicate results of the step"},
    {Tok::kBr, "br", 16, PipelinePhase::kExecute, "x = taken mask", "branch outcome of the step"},
    {Tok::kSt, "st", kLanes * kMemWords, PipelinePhase::kMemory, "x = lane, y = word",
     "lane x stores to memory word y"},
    {Tok::kBar, "bar", kMaxCtas * 2, PipelinePhase::kWriteback, "x = CUDA block slot, y = new parity",
     "barrier release"},
    {Tok::kWave, "wave", kMaxGridBlocks - 1, PipelinePhase::kFetch, "x = wave (1..255)",
     "the next wave of CUDA blocks starts"},
}};

constexpr const Family& family(Tok t) { return kFamilies[static_cast<int>(t)]; }

// One token, decoded. Field meanings per family are in kFamilies[].fields.
struct Rec {
  Tok kind = Tok::kBegin;
  int x = 0, y = 0, z = 0;

  friend bool operator==(const Rec&, const Rec&) = default;
};

// Total number of token ids.
int vocab_size();
// First token id of a family.
int family_offset(Tok t);
// Token id of a record; CHECKs that its fields are in range.
int token_id(const Rec& r);
// Record of a token id; throws Error for an id outside the vocabulary.
Rec decode_token(int id);
// True when the record's fields are in range for its family.
bool valid_record(const Rec& r);
// Readable text of a record, e.g. "sched w1 b12 {0,1,3}", "v2:-7" (lane 2), "v*:5" (all
// four lanes), "v{0,2}:5", "v=:5" (image data).
std::string record_text(const Rec& r);
// Text of a lane mask: "{0,1,3}".
std::string mask_text(int mask);

// A complete value is one kSmall record or the four records kHead kMid1 kMid2 kTail.
bool fits_small(uint32_t v);
// The records of value v with tag: one kSmall, or kHead kMid1 kMid2 kTail.
std::vector<Rec> value_records(int tag, uint32_t v);

}  // namespace qgpu
