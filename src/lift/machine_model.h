// The machine compiled into Qwen3.5 layers (issue 5), built up stage by stage. What exists
// today is the first stage: the program image's memory words. The prompt's `begin`, `@m A`
// and value tokens (`v` or `h m1 m2 t`, data tag) write each word into the memory head's
// recurrent state, which the host reads out (src/host/readout.h); nothing else runs yet.
//
//   L0  GDN   head 0: image address (1 slot): begin/@m/@b/run write the address code
//   L1  GDN   heads 0-1: global memory, 126 words + null slot 126 + junk slot 127; a word
//             is 8 one-hot nibbles (128 = dv); value-completing tokens write it at the
//             address: head 0 takes `v` words, head 1 words of `h m1 m2 t` (the 4-tap conv
//             assembles them); each write replaces both heads' rows, one with zeros, so a
//             slot holds the sum of the two
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
