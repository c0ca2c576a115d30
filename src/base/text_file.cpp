// Reads in chunks and stops at the limit: a pipe or a device has no size to check first.
#include "base/text_file.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "base/error.h"

namespace qgpu {

namespace {

[[noreturn]] void too_big(const std::string& path, size_t max_bytes, std::string_view what) {
  fail("{}: larger than the {} MiB a {} may be; is it the right file?", path, max_bytes >> 20, what);
}

}  // namespace

std::string read_text_file(const std::string& path, size_t max_bytes, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("{}: cannot read the {} ({})", path, what, std::strerror(errno));
  std::string out;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    if (out.size() + static_cast<size_t>(in.gcount()) > max_bytes) too_big(path, max_bytes, what);
    out.append(buf, static_cast<size_t>(in.gcount()));
  }
  if (in.bad()) fail("{}: reading the {} failed ({})", path, what, std::strerror(errno));
  return out;
}

std::vector<std::string> split(std::string_view text, char sep) {
  std::vector<std::string> out;
  for (size_t i = 0;;) {
    const size_t at = text.find(sep, i);
    out.emplace_back(text.substr(i, at == std::string_view::npos ? std::string_view::npos : at - i));
    if (at == std::string_view::npos) return out;
    i = at + 1;
  }
}

}  // namespace qgpu
