// Diagnostic formatting in the chibicc style: location, message, source line, caret.
#include "base/error.h"

namespace qgpu {

std::string diagnostic(std::string_view file, int line, int col, std::string_view message,
                       std::string_view source_line) {
  std::string out = fmt::format("{}:{}:{}: {}", file, line, col, message);
  if (source_line.empty()) return out;
  out += fmt::format("\n  {}\n  {}^", source_line, std::string(col > 1 ? col - 1 : 0, ' '));
  return out;
}

}  // namespace qgpu
