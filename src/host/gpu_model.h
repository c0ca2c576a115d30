// The GPU-only model that `--engine model` (run, asm, chat, check) uses when no checkpoint
// is named: constructed at start, in memory, from the compiled machine (src/lift), every
// matmul weight held sparse (2.8 M nonzeros instead of 3.3 G dense parameters). Nothing is
// read from or written to disk; `qgpu compile-model` exports the same weights, and a test
// checks that the export loaded back computes the same bits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "engine/model.h"

namespace qgpu::host {

struct GpuModel {
  engine::Model model;
  double seconds = 0;  // the construction's wall time
};
GpuModel gpu_only_model(engine::DType dtype = engine::DType::f32);

// A checkpoint (HF directory or .gguf) as engine::load_model loads it, except that a merged
// checkpoint (`qgpu build`) whose config.json names this qgpu's construction gets its GPU
// from the construction instead of its file: the GPU's layers become sparse Linears and the
// head's GPU rows a CSR copy, so its 3.7 G dense GPU parameters (on Qwen3.5-2B) are neither
// read nor scanned. The file is trusted by its fingerprint and checked at sampled rows of
// every GPU matrix (16 each: the first, the last, the rest spread by a hash of the name),
// each compared in full with the construction's row: a file edited after the build is one
// Error naming the tensor and row. verify_merged_gpu compares every row. A merged
// checkpoint of another construction is loaded from its file as before, with a note on
// stderr. docs/design.md §3 "Trusting a merged checkpoint's GPU".
engine::Model load_checkpoint(const std::string& path, std::optional<engine::DType> dtype = std::nullopt);

// Every row of every GPU matrix of merged checkpoint `m` (loaded by engine::load_model, not
// load_checkpoint; left as it is) against the construction: returns the rows compared; an
// Error at the first difference. Reads the whole GPU part (3.7 G parameters on 2B's merge).
int64_t verify_merged_gpu(engine::Model& m, const std::string& path);

// What reports and errors call the in-memory model.
inline constexpr const char* kGpuOnlyName = "the GPU-only model (in memory)";

}  // namespace qgpu::host
