// The property the checkpoint harnesses check on an accepted file: every tensor's bytes lie
// inside the mapped file (ASan cannot see reads of mapped memory), and reading its first and
// last element works.
#pragma once

#include <vector>

#include "base/mapped_file.h"
#include "engine/tensor.h"
#include "fuzz_util.h"

namespace qgpu::fuzz {

inline void check_tensors_in_file(const MappedFile& file, const std::vector<engine::TensorView>& tensors) {
  const uint8_t* begin = file.data();
  const uint8_t* end = begin + file.size();
  for (const engine::TensorView& t : tensors) {
    FUZZ_REQUIRE(t.numel() >= 0, "{}: numel {}", t.name, t.numel());
    if (t.numel() == 0) continue;
    const auto* p = static_cast<const uint8_t*>(t.data);
    FUZZ_REQUIRE(p >= begin && p <= end && t.nbytes() <= static_cast<size_t>(end - p),
                 "{}: {} bytes at offset {} of a {}-byte file", t.name, t.nbytes(), p - begin, file.size());
    volatile float sink = t.at(0) + t.at(t.numel() - 1);
    (void)sink;
  }
}

}  // namespace qgpu::fuzz
