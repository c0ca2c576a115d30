// The plan of the machine inside the layers, as data: which layer holds what (kLayers),
// the heads and the layers every stage uses (the constants below, checked against kLayers),
// the stages in the order they are built (kStages), and every residual field with its
// code, meaning and life (machine_layout(), plan.cpp). The config, the residual's hot
// counts at every sublayer (machine_hots()), the field placement, the map (`qgpu map`,
// map.h) and the docs' layer and field tables all come from here: no layer number or hot
// count is written down anywhere else.
#pragma once

#include <string_view>
#include <vector>

#include "engine/config.h"
#include "gpu/isa.h"
#include "lift/layout.h"

namespace qgpu::lift {

// One layer of the GPU-only model: its mixer (a Gated DeltaNet, or full attention) and
// what the mixer's heads and the MLP's units hold, in words; the map (map.h) adds the
// heads, units and fields the weights use.
struct LayerPlan {
  bool attention = false;
  const char* mixer = "";
  const char* mlp = "";
};
inline constexpr LayerPlan kLayers[] = {
    {false, "control: image and ROM addresses, the step, the consumed value and its tag, the last warp, the launch header",
     "clears the embedding's one-token fields"},
    {false, "the ROM: 7 fields x 2 banks of 128 blocks, written by the image, read at the step's block (the fetch)",
     "the launch: threads, the grid's block counts"},
    {false, "the register file: 4 read ports x 4 lanes, slots warp x 28 (r0..r23, p0..p3)",
     "lane control: effective lanes, next PCs, exits, arrivals; the wave against the block count"},
    {false, "the barrier parity of each CUDA block slot", "liveness and barrier flags; the next record's lane (nl); %tid"},
    {false, "lane status: 16 heads (warp x lane): PC, finished, barrier flag",
     "the scheduler (runnable lanes, the next wave); %ctaid; the op sets"},
    {true, "a no-op (o_proj = 0): llama.cpp needs one attention layer",
     "the scheduler (the next warp, barrier release); lane nl's operands oa, ob, oc"},
    {false, "unused (zero)", "the lane ops: every lane's compares and float flags, the uniform check, the scheduler's lane PCs, an atomic's operands"},
    {false, "unused (zero)", "the lane ops: predicate logic, the word memory gets (mw), an atomic's first adder"},
    {false, "unused (zero)", "the multiplier's nibble products; the compares' results; the float steps' exponents, shifts and flags"},
    {false, "unused (zero)", "the multiplier's column sums; the binary32 orders; the float steps' order, alignment, first addend"},
    {false, "unused (zero)", "the multiplier's digits; the float steps' and conversions' addends"},
    {false, "unused (zero)", "the ALU: the adder's nibble sums (of the float addends too), the logic ops' bits, the shift amount; an atomic's carries"},
    {false, "unused (zero)", "the ALU's carries and logic word; the scheduler's PC compares; an atomic's new word; add.f32.rnd's class"},
    {false, "unused (zero)", "the ALU's sum, shifts, min/max; the value record's tag; the pred record's bits; the scheduler's record"},
    {false, "global memory: 126 words (and the null slot): image values and st write it, ld reads it",
     "the emit: lane nl's result, whether it fits one token, the record family"},
};
inline constexpr int kLayerCount = sizeof(kLayers) / sizeof(kLayers[0]);
constexpr bool is_attention(int il) { return kLayers[il].attention; }

inline constexpr int kControlLayer = 0;
inline constexpr int kImageAddrHead = 0, kRomAddrHead = 1, kStepHead = 2;
inline constexpr int kWordBytesHead = 3, kWordHead = 4, kTagBytesHead = 5, kTagHead = 6, kPadHead = 7;
inline constexpr int kLastWarpHead = 8;  // the last warp that ran (round-robin's start)
inline constexpr int kByteTagHead = 9;   // and 10: the tag of a 4-byte value in flight (btag)

// A block number as two one-hot digits wherever the layers hold one (the step, the ROM
// address, a lane's next PC, the scheduler's PCs, `sched`'s block): block / kBlockLo and
// block % kBlockLo, kBlockHi x kBlockLo = kBlocks.
inline constexpr int kBlockLo = 16;
inline constexpr int kBlockHi = kBlocks / kBlockLo;
static_assert(kBlockHi * kBlockLo == kBlocks && kBlockHi == 16);

// The step code (L0's step head, read into the residual field "step"): the warp one-hot
// at 0, block / kBlockLo at kStepHi, block % kBlockLo at kStepLo, lane l in the mask at
// step_lane(l, true), not in it at step_lane(l, false); one pad channel after it.
inline constexpr int kStepWarp = 0, kStepHi = 4, kStepLo = kStepHi + kBlockHi, kStepLanes = kStepLo + kBlockLo;
inline constexpr int kStepCode = kStepLanes + 2 * kLanes;
constexpr int step_lane(int lane, bool in) { return kStepLanes + 2 * lane + (in ? 0 : 1); }

// Memory sits after the operand reads, so `st` can write the lane's operand b, and after
// the adder, so `ld` reads at lane nl's address.
inline constexpr int kMemoryLayer = 14;
inline constexpr int kMemoryHead = 0;
// The codes a ROM field token holds (`fx`, `f_op`): op + 1 (0 the empty block), or a
// guard or operand field code. 64 until the binary32 ops took the ops past 63.
inline constexpr int kFx = 96;
inline constexpr int kRomLayer = 1;
// ROM fields op (op + 1, 0 = empty), guard, d, a, b, c, imm (a word), in two banks of
// kBankBlocks: a head's keys are one-hot over its dk = 128, so block b is slot b % 128 of
// the heads of bank b / 128 (the other bank's query is zero there, so its read is exactly 0).
inline constexpr int kRomHeadCount = 7;
inline constexpr int kRomBanks = 2, kBankBlocks = kBlocks / kRomBanks;
static_assert(kBankBlocks == 128);
inline constexpr int kRomHeads[kRomBanks][kRomHeadCount] = {{1, 2, 3, 4, 5, 6, 7}, {8, 9, 10, 11, 12, 13, 14}};
constexpr int rom_head(int block, int field) { return kRomHeads[block / kBankBlocks][field]; }

// The launch header gx, gy, bx, by and the wave: L0 heads 11-15 (each written by its own
// token, whose embedding holds the value); its MLP (threads, the grid's block count) is L1's.
inline constexpr int kHeaderLayer = kControlLayer;
inline constexpr int kHeaderHeads[5] = {11, 12, 13, 14, 15};  // gx, gy, bx, by, the wave
inline constexpr int kLaunchLayer = 1;
inline constexpr int kRegisterLayer = 2;
inline constexpr int kPorts = 4;  // a, b, c, guard
inline constexpr int kSlotsPerWarp = kRegs + kPreds;  // registers, predicates: slot = field code - 1
constexpr int register_head(int port, int lane) { return 4 * port + lane; }
constexpr int register_slot(int warp, int code) { return warp * kSlotsPerWarp + code - 1; }
// The register reads of ports a, b, c (ra{l}, rb{l}, rc{l}; read last by the lane ops) are
// words as 32 dual-rail bits, entry bit_dim(i, on): 64 dims, half a one-hot-nibble word's
// 128; those ports' rows in the register file hold the same code (32 hots). The guard port keeps 8 one-hot nibbles.
inline constexpr int kBitWord = 64;
constexpr int bit_dim(int bit, bool on) { return 2 * bit + (on ? 0 : 1); }

inline constexpr int kParityLayer = 3;  // heads 0-3: the barrier parity of each CUDA block slot
inline constexpr int kLaneLayer = 4;    // heads 4 w + l: lane status (PC, finished, flag)
constexpr int lane_head(int warp, int lane) { return 4 * warp + lane; }
// A lane status row (slot 0 of its head, read into ls{w}{l}): the PC's 8 bits as dual
// rails (bit_dim(i, on); PC / 16 is bits 4..7), finished at kLaneFinished (+ 0 no, + 1
// yes), the barrier flag at kLaneFlag (+ 0, + 1): 20 dims, 10 hot, and pad channels
// after it up to a row of 32 hots.
inline constexpr int kLanePcBits = 8, kLaneFinished = 16, kLaneFlag = 18, kLaneStatusCode = 20;
static_assert(1 << kLanePcBits == kBlocks);

// The lane ops (L6, L7): every reader of the register reads and the lane status rows,
// which they clear, so neither holds its dims past L7.
inline constexpr int kLaneOpsLayer = 6;
// The scheduler's MLPs are layers sched_layer(0..4): L4 and L5, L6 among the lane ops
// (the chosen warp's lanes' PCs, from the status rows), then, past the multiplier, L12
// and L13 beside the ALU; its record is read after kSchedLast: sfam says which record
// (kSched*), the other fields its values.
inline constexpr int kSchedLayerList[] = {4, 5, 6, 12, 13};
inline constexpr int kSchedLayers = 5;
inline constexpr int kSchedLayer = kSchedLayerList[0];
constexpr int sched_layer(int k) { return kSchedLayerList[k]; }
static_assert(sched_layer(2) == kLaneOpsLayer);
inline constexpr int kSchedLast = sched_layer(kSchedLayers - 1);
inline constexpr int kSchedBar = 0, kSchedSched = 1, kSchedWave = 2, kSchedEnd = 3;

// The lane the next body record is for (nl, L3 MLP) and its operands a, b, c as words (oa,
// ob, oc, this layer's MLP).
inline constexpr int kOperandLayer = 5;

// The ALU's MLPs are layers kAluLayer .. kAluLayer + 2 (stage_alu.cpp); the emit stage's
// is kEmitLayer, whose ef field names the record family emitted next (kEmit*).
inline constexpr int kAluLayer = 11;
inline constexpr int kEmitLayer = 14;
static_assert(sched_layer(3) == kAluLayer + 1 && kSchedLast == kAluLayer + 2);
// The multiplier's MLPs are layers kMulLayer .. kMulLayer + 2 (stage_mul.cpp), before the
// ALU's, whose adder finishes the product.
inline constexpr int kMulLayer = 8;
inline constexpr int kEmitValue = 0, kEmitMid1 = 1, kEmitMid2 = 2, kEmitTail = 3, kEmitPred = 4, kEmitBr = 5,
                     kEmitSt = 6, kEmitBar = 7, kEmitSched = 8, kEmitWave = 9, kEmitEnd = 10, kEmitFamilies = 11;

inline constexpr int kNullSlot = 126;  // written by `begin` with the word 0 (memory, registers)
static_assert(kWarps * kSlotsPerWarp <= kNullSlot);  // the register slots, apart from the null slot
// `begin` writes the null step (warp 0, the last block, no lanes) and clears that ROM
// block, so before the first `sched` the fetch reads a valid empty block.
inline constexpr int kNullBlock = kBlocks - 1;


static_assert(kLayerCount == kMemoryLayer + 1 && kEmitLayer == kLayerCount - 1);
static_assert(!is_attention(kControlLayer) && !is_attention(kRomLayer) && !is_attention(kRegisterLayer) &&
              !is_attention(kParityLayer) && !is_attention(kLaneLayer) && !is_attention(kMemoryLayer));

// The stages in the order build_machine() runs them; each writes the weights of one part
// of the machine (stages.h), and the map names every unit and head by the stage that
// wrote it.
struct StagePlan {
  const char* name;
  const char* file;  // src/lift/
};
inline constexpr StagePlan kStages[] = {
    {"embedding", "stage_image.cpp"}, {"image", "stage_image.cpp"},      {"state", "stage_state.cpp"},
    {"lane control", "stage_control.cpp"}, {"launch", "stage_launch.cpp"}, {"lanes", "stage_lanes.cpp"},
    {"scheduler", "stage_sched.cpp"},  {"operands", "stage_operands.cpp"}, {"op sets", "construct.cpp"},
    {"multiplier", "stage_mul.cpp"},   {"alu", "stage_alu.cpp"},          {"predicates", "stage_pred.cpp"},
    {"select", "stage_select.cpp"},    {"atomics", "stage_atomic.cpp"},   {"float", "stage_float.cpp"},
    {"emit", "stage_emit.cpp"},
    {"clears", "machine_model.cpp"},
};

// The residual fields of the token embedding and of what layers write, each with its code
// (code.h), meaning and life, placed where their lives allow (layout.h); shared = false
// gives every field dims of its own (the width is then the sum of the fields'), which the
// lifetime test builds to see which sublayers touch each field.
Layout machine_layout(bool shared = true);
// The shared layout, made once per process (readers that decode fields).
const Layout& machine_fields();
// Hot entries of the residual at each sublayer's input, from the fields' codes: the
// embedding's, then what each sublayer writes (the fields born there) less what it clears:
// 2 il is layer il's mixer, 2 il + 1 its MLP, the last the final norm's. The residual's
// rms there is sqrt(hots / hidden_size).
std::vector<int> machine_hots();
// The tied head (stage_emit.cpp): a token's embedding row is also its LM head row, so it
// also sets the dims its record matches (at most 14: a one-token value's family, fits,
// 4 tag rails, 8 nibbles) and pads them to kHeadHots in `hpad`; L0's MLP clears both.
inline constexpr int kHeadHots = 14;
// The hots a token's embedding sets in the fields born there (the head pattern apart).
int embedding_hots(const Layout& l);
// The residual width the config gives the fields: their placement's, rounded up to 32
// (the engine's bf16 vector width).
int machine_hidden_size();

}  // namespace qgpu::lift
