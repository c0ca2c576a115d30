// The headers in include/qgpu/, embedded into the binary by CMake (cuda_headers.cpp is
// generated), so that compiling a kernel needs no installed files.
#pragma once

#include <string_view>
#include <vector>

namespace qgpu {

struct CudaHeader {
  std::string_view name;  // "qgpu_cuda.h", "cuda_runtime.h", ...
  std::string_view text;
};

const std::vector<CudaHeader>& cuda_headers();

}  // namespace qgpu
