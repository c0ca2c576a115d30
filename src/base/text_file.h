// Reading a whole text file that qgpu did not write, with a size limit: a wrong path (a
// checkpoint shard passed as a .cu file, /dev/zero) is one error, not gigabytes read into
// memory. The limits are far above any real file (docs/reliability.md, "Limits").
#pragma once

#include <cstddef>
#include <string>
#include <vector>
#include <string_view>

namespace qgpu {

inline constexpr size_t kMaxSourceBytes = size_t{1} << 20;  // a .cu or .qasm file (the machine holds 128 instructions)
inline constexpr size_t kMaxPtxBytes = size_t{16} << 20;    // clang's PTX for one source
inline constexpr size_t kMaxJsonBytes = size_t{64} << 20;   // tokenizer.json (Qwen3.5's: 12.8 MB), configs, scripts

// The bytes of path. Throws Error naming the path and `what` (e.g. "CUDA source") when it
// cannot be read or holds more than max_bytes.
std::string read_text_file(const std::string& path, size_t max_bytes, std::string_view what);

// text cut at every `sep`: "a|b|" -> {"a", "b", ""}; "" -> {""}.
std::vector<std::string> split(std::string_view text, char sep);

}  // namespace qgpu
