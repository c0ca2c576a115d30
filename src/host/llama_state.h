// llama.cpp's sequence state as an engine::State, so the host reads machine memory out of
// llama.cpp exactly as out of our engine (host::read_memory / read_rom, unchanged).
//
// tests/llamacpp/llama_state.mjs evaluates a prompt in llama.cpp (node-llama-cpp), parses
// llama.cpp's sequence-state file and writes a QLS1 file (its header documents both formats);
// this reads that file. The mapping, from llama.cpp's source (ggml_gated_delta_net, qwen35's
// build_layer_attn_linear) and checked against our engine (tests/llamacpp_state_test.cpp):
//   recurrent: llama.cpp's per-head dk*dv block is S^T of ours (v-major: element [j][i] is
//              our S[i][j]); heads are in GGUF (tiled) order;
//   conv:      llama.cpp holds [conv_dim][K-1] (time fastest), ours [K-1][conv_dim]; the V
//              channels are in GGUF (tiled) head order;
//   K/V:       the same [n_past][nKV*D] rows (V un-transposed by the script).
// With Hv == Hk (the GPU model) tiled and grouped orders coincide.
#pragma once

#include <string>

#include "engine/config.h"
#include "engine/state.h"

namespace qgpu::host {

// The state in PATH (a QLS1 file) for a model with config c. Value heads come out in HF's
// grouped order (a model loaded from the HF directory) unless v_heads_tiled (a model loaded
// from the GGUF, whose heads are tiled). Throws Error naming the file for a malformed file or
// one whose layers or sizes do not match c.
engine::State read_llama_state(const engine::Config& c, const std::string& path, bool v_heads_tiled = false);

}  // namespace qgpu::host
