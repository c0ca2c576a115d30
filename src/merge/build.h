// `qgpu build`'s merge (issue 6, docs/design.md §3 "Merging into a base"): a Qwen3.5
// base checkpoint directory and the compiled GPU into one Hugging Face checkpoint that
// transformers and our engine load unchanged. Streams: each merged tensor is made a chunk
// of rows at a time from the mmap'd base and the GPU's sparse weights, so memory stays
// about a chunk plus the GPU's nonzeros; the output is written into a temporary directory
// beside out_dir and swapped with it in one step only when complete, so a killed build
// leaves what was there (base/output_dir.h), and the next build removes what it left.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "engine/tensor.h"
#include "merge/plan.h"

namespace qgpu::merge {

struct BuildOptions {
  std::optional<engine::DType> dtype;          // of the matmul weights; default the base's
  size_t max_shard_bytes = size_t{4} << 30;   // safetensors shards (HF's index past one)
  // Called as bytes are written (done, total) and once per step with a line to show.
  // The bytes are those the checkpoint's safetensors take on disk (its 4 KiB blocks of zeros
  // are holes): done exact, total estimated for the tensors not yet written.
  std::function<void(int64_t done, int64_t total)> progress;
  std::function<void(const std::string&)> say;
};

struct BuildReport {
  MergePlan plan;
  engine::DType dtype = engine::DType::bf16;
  bool multimodal = false;    // the base was the multimodal wrapper: its text model was kept
  int64_t parameters = 0;     // of the merged checkpoint
  int64_t bytes = 0;          // its safetensors data
  int64_t disk_bytes = 0;     // of its safetensors files on disk (headers too; blocks of zeros are holes)
  int gpu_tokens = 0;         // added to the tokenizer as special tokens
};

// Merges the base checkpoint in base_dir (config.json, safetensors, tokenizer files) with
// the compiled GPU into out_dir. Errors (one, naming the file or key) for a base the GPU
// cannot merge into (plan_merge), a missing or malformed file, an unwritable out_dir, or
// one that exists and holds something else than a checkpoint.
BuildReport build_merged(const std::string& base_dir, const std::string& out_dir, const BuildOptions& options);

// The text of GPU token t in the merged tokenizer ("<|gpu:" + its record text + "|>").
std::string gpu_token_text(int t);

}  // namespace qgpu::merge
