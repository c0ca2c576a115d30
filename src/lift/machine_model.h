// The machine compiled into Qwen3.5 layers (issue 5), built up stage by stage. What exists
// today is the first stage: loading the program image. The prompt's `begin`, `@b N` with
// its field and immediate tokens, and `@m A` with its value tokens write the ROM and the
// memory into DeltaNet state, which the host reads out (src/host/readout.h); execution
// records are not generated yet.
//
//   L0  GDN   head 0: image address (1 slot): begin/@m/@b/run write the address code
//             head 1: ROM block address (hi | lo | rom one-hots), set by @b, cleared by
//             begin/@m/run
//   L1  GDN   heads 0-1: global memory, 126 words + null slot 126 + junk slot 127; a word
//             is 8 one-hot nibbles (128 = dv); value-completing tokens write it at the
//             address: head 0 takes `v` words, head 1 words of `h m1 m2 t` (the 4-tap conv
//             assembles them); each write replaces both heads' rows, one with zeros, so a
//             slot holds the sum of the two
//             heads 2-9: the ROM, 128 blocks: op (op + 1, 0 = empty), guard, d, a, b, c
//             codes, and the immediate as a word in two heads like memory; @b writes 0 to
//             every field of its block, a field token overwrites its own
//   L2  attn  a no-op (o_proj = 0): llama.cpp under node-llama-cpp needs one attention layer
//
// docs/design.md §3 has the plan this grows into and the exactness argument.
#pragma once

#include <string>

#include "engine/config.h"
#include "engine/tensor.h"
#include "lift/builder.h"
#include "lift/layout.h"

namespace qgpu::lift {

inline constexpr int kImageAddrLayer = 0;
inline constexpr int kMemoryLayer = 1;
inline constexpr int kMemoryHeads[2] = {0, 1};
inline constexpr int kRomLayer = 1;
// ROM fields op, guard, d, a, b, c, then the immediate's two heads (v words, byte words).
inline constexpr int kRomHeadCount = 8;
inline constexpr int kRomHeads[kRomHeadCount] = {2, 3, 4, 5, 6, 7, 8, 9};
inline constexpr int kNullSlot = 126;  // written by `begin` with the word 0
inline constexpr int kJunkSlot = 127;  // the key of every write that must not land

// The residual fields of the token embedding and of what layers write.
Layout machine_layout();
// The config of the GPU-only model: Qwen3.5-2B's head shapes (16 DeltaNet heads of 128,
// attention 8 x 256 with 2 KV heads, intermediate 6144) on a narrow residual.
engine::Config machine_config();
// All weights of the machine.
Builder build_machine();
// A tokenizer.json naming every machine token (WordLevel; the host feeds ids).
std::string machine_tokenizer_json();
// Writes the GPU-only model as a HF directory.
void write_machine_model(const std::string& dir, engine::DType dtype);

}  // namespace qgpu::lift
