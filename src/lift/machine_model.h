// The machine compiled into Qwen3.5 layers (issue 5), built up stage by stage: the
// machine's state (the program image, and every write a consumed execution record makes),
// the reads the generating layers use, the scheduler, lane nl's ALU, every lane's
// compares, and the emit stage and LM head that choose the next record, so the model
// generates launches of the ops generation_gap() accepts (host/launch.h); for any program
// the state is checked by teacher forcing (host/check.h).
//
//   L0  GDN   control: 0 image address, 1 ROM block address (hi | lo | rom), 2 the step
//             (the latest `sched`: warp | block hi | lo | lanes in the mask); 3-7 the
//             consumed value as a word and a tag (3 the bytes of `h m1 m2 t` assembled by
//             the 4-tap conv, 4 a `v` word, 5 the tag of `h` three tokens back, 6 a `v`
//             tag, 7 an energy pad at `pred`), so every later layer sees one word;
//             11-15 the launch header gx, gy, bx, by and the wave (stage_launch.cpp)
//   L1  GDN   1-7 and 8-14 the ROM's two banks (op, guard, d, a, b, c, imm; 128 blocks
//             each): written by the image, read at the step's block (the fetch) at every
//             token
//   L2  GDN   the register file: 16 heads = 4 read ports (a, b, c, guard) x 4 lanes,
//             slots warp x 28 (r0..r23, p0..p3) and the null slot 126; a value record
//             writes register d of the lanes its tag names, `pred` the predicate d of its
//             lanes; every token reads the step's operands for the lanes of its mask
//   L1  MLP   the launch: threads, the grid's block count (stage_launch.cpp)
//   L2  MLP   lane control: effective lanes, next PCs, exits, arrivals; the wave against
//             the block count
//   L3  GDN   0-3 the barrier parity per CUDA block slot; MLP: which lanes live in a new
//             wave, the barrier flags rows get (stage_lanes.cpp)
//   L4  GDN   lane status: 16 heads (warp x lane): PC, finished, barrier flag, written by
//             `begin`, `run`, `wave` (every lane) and `sched` (the lanes of its mask), read
//             at every token
//   L4, L5, L6, L12, L13 MLP the scheduler: runnable lanes, barrier release, the next warp
//             round-robin, its lanes' PCs, their compares, its min-PC lanes, another wave
//             or the end (stage_sched.cpp); its record is in the residual after L13 (sfam,
//             bar, barq, nw, mhi, mlo, smk, nk)
//   L3  MLP   also nl: the lane of the step's next value or `st` record (stage_operands.cpp)
//   L5  attn  a no-op (o_proj = 0): llama.cpp under node-llama-cpp needs one attention layer
//   L5  MLP   also oa, ob, oc: lane nl's operands (register, immediate or special)
//   L4  MLP   also lane nl's %tid.x, %tid.y
//   L6-L7 MLP the lane ops: every reader of the 16 register reads and lane status rows, so
//             both are cleared there (issue 24: they held 1,900 dims to L9): every lane's
//             compares and predicate logic (stage_pred.cpp), the uniform-operand check
//             (stage_alu.cpp), the scheduler's lane PCs, an atomic's lane j operands and
//             the first half of its update (stage_atomic.cpp), the word memory gets: at
//             `st` the lane's operand b, else wb_word (mw); mixers unused
//   L8-L10 MLP the multiplier for lane nl (stage_mul.cpp: nibble products, column sums,
//             digits; mul.lo and mad.lo), whose adder is the ALU's; mixers unused
//   L11-L13 MLP the ALU for lane nl (stage_alu.cpp: the adder, the value record's tag;
//             stage_select.cpp: logic ops, shifts, min / max), the predicate record's bits,
//             an atomic's update; also the scheduler's last two MLPs; mixers unused
//   L14 GDN   0 global memory (126 words, the null slot 126): image values and `st`
//             records write it, a `ld` reads lane nl's word; the host reads the arrays
//             out of it
//   L14 MLP   the emit: lane nl's result, whether it fits one token, the record family;
//             the LM head scores every token by its matching fields (stage_emit.cpp)
//
// docs/design.md §3 has the layer table, what is next and the exactness argument.
#pragma once

#include <span>
#include <optional>
#include <string>
#include <vector>

#include "engine/config.h"
#include "engine/tensor.h"
#include "gpu/program.h"
#include "lift/builder.h"
#include "lift/layout.h"

namespace qgpu::lift {

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
inline constexpr int kLaunchLayer = 1;
inline constexpr int kRegisterLayer = 2;
inline constexpr int kPorts = 4;  // a, b, c, guard
inline constexpr int kSlotsPerWarp = kRegs + kPreds;  // registers, predicates: slot = field code - 1
constexpr int register_head(int port, int lane) { return 4 * port + lane; }
constexpr int register_slot(int warp, int code) { return warp * kSlotsPerWarp + code - 1; }
// The register reads of ports a, b, c (ra{l}, rb{l}, rc{l}; read last by the lane ops) are
// words as 32 dual-rail bits, entry bit_dim(i, on): 64 dims, half a one-hot-nibble word's
// 128 (issue 24: the 12 reads are the widest thing alive before L6); those ports' rows in
// the register file hold the same code (32 hots). The guard port keeps 8 one-hot nibbles.
inline constexpr int kBitWord = 64;
constexpr int bit_dim(int bit, bool on) { return 2 * bit + (on ? 0 : 1); }

inline constexpr int kParityLayer = 3;  // heads 0-3: the barrier parity of each CUDA block slot
inline constexpr int kLaneLayer = 4;    // heads 4 w + l: lane status (PC, finished, flag)
constexpr int lane_head(int warp, int lane) { return 4 * warp + lane; }
// A lane status row (slot 0 of its head, read into ls{w}{l}): the PC's 8 bits as dual
// rails (bit_dim(i, on); PC / 16 is bits 4..7), finished at kLaneFinished (+ 0 no, + 1
// yes), the barrier flag at kLaneFlag (+ 0, + 1): 20 dims, 10 hot (issue 24: one-hot PC
// nibbles took 28), and pad channels after it up to a row of 32 hots.
inline constexpr int kLanePcBits = 8, kLaneFinished = 16, kLaneFlag = 18, kLaneStatusCode = 20, kLaneStatusHots = 10;
static_assert(1 << kLanePcBits == kBlocks);

// The lane ops (L6, L7): every reader of the register reads and the lane status rows,
// which they clear, so neither holds its dims past L7 (issue 24).
inline constexpr int kLaneOpsLayer = 6;
// The scheduler's MLPs are layers sched_layer(0..4): L4 and L5, L6 among the lane ops
// (the chosen warp's lanes' PCs, from the status rows), then, past the multiplier, L12
// and L13 beside the ALU; its record is read after kSchedLast: sfam says which record
// (kSched*), the other fields its values.
inline constexpr int kSchedLayer = 4;
inline constexpr int kSchedLayers = 5;
constexpr int sched_layer(int k) { return k < 2 ? kSchedLayer + k : k == 2 ? kLaneOpsLayer : 12 + k - 3; }
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

// The residual fields of the token embedding and of what layers write, placed where their
// lives allow (layout.h); shared = false gives every field dims of its own (the width is
// then the sum of the fields', 8,321), which the lifetime test builds to see which
// sublayers touch each field.
Layout machine_layout(bool shared = true);
// The config of the GPU-only model: Qwen3.5-2B's head shapes (16 DeltaNet heads of 128,
// attention 8 x 256 with 2 KV heads, intermediate 6144) on a narrow residual.
engine::Config machine_config();
// Hot entries of the residual at each sublayer's input (the embedding's, then what each
// sublayer adds): 2 il is layer il's mixer, 2 il + 1 its MLP, the last the final norm's.
// The residual's rms there is sqrt(hots / hidden_size).
std::vector<int> machine_hots();
// All weights of the machine. norm_width: the residual width its RMSNorms average over
// when it is merged into a base (the base's dims are +0 at the machine's tokens); every
// norm weight and every weight after a norm follow from it, so the machine is as exact
// there as alone. 0: its own hidden size.
// shared = false: on machine_layout(false)'s residual (hidden size its width), the same
// machine field by field.
Builder build_machine(int norm_width = 0, bool shared = true);
// A tokenizer.json naming every machine token (WordLevel; the host feeds ids).
std::string machine_tokenizer_json();
// Writes the GPU-only model as a HF directory.
void write_machine_model(const std::string& dir, engine::DType dtype);
// What the weights use, counted from them: residual dims (used, and alive after each
// sublayer), DeltaNet heads per layer, the widest MLP, nonzero parameters (one line per
// item, for `qgpu compile-model`).
std::string machine_summary(const Builder& b);
// The counts behind it, as numbers (the docs' figures are checked against them).
struct MachineCounts {
  int64_t parameters = 0;  // every element of every tensor, dense
  int64_t nonzero = 0;
  std::vector<int64_t> layer_nonzero;  // per layer (the embedding, final norm and head apart)
};
MachineCounts machine_counts(const Builder& b);
// Why the compiled model cannot generate records for a program with this ROM and launch yet
// (the first block whose op or operand the ALU does not have, named; %ctaid needs a grid at
// most 16 wide or one row tall), or nullopt when it can.
// The model holds and checks every program's state; it generates the ops listed in
// docs/design.md §3 ("emit").
std::optional<std::string> generation_gap(std::span<const Instr> code, const Launch& launch);
// The codes the multiplier's layers (stage_mul.cpp) write for lane nl's operands a, b, c
// of mul.lo (mad: mad.lo), group by group, for the divergence finder: after `layer`, group
// g of `field` (size dims each) holds values[g].
struct MulCodes {
  int layer;
  std::string field;
  int size;
  std::vector<int> values;
};
std::vector<MulCodes> multiplier_codes(uint32_t a, uint32_t b, uint32_t c, bool mad);
// A hash of the sources the weights depend on (generated at build time): a cached model
// built by another construction has another fingerprint.
const char* construction_fingerprint();

}  // namespace qgpu::lift
