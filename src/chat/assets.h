// The files `qgpu chat`, `ask` and `eval` read at run time, embedded into the binary by
// CMake (cmake/embed_files.cmake): the ready-made kernels (kernels/library/*.cu), the CUDA
// reference the advanced mode's system prompt carries (docs/cuda-reference.md) and the
// evaluation questions (src/chat/eval_questions.json).
#pragma once

#include <string_view>
#include <vector>

namespace qgpu::chat {

struct Asset {
  std::string_view path;  // relative to the source tree: "kernels/library/sum.cu"
  std::string_view text;
};

const std::vector<Asset>& chat_assets();

// The text of an embedded file; throws Error naming the path when it is not embedded.
std::string_view chat_asset(std::string_view path);

}  // namespace qgpu::chat
