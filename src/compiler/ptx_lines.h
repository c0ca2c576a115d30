// Where each line of clang's PTX comes from in the CUDA source, so that a diagnostic about
// a PTX instruction points at the CUDA line behind it. clang compiles with
// -gline-directives-only (clang_driver.cpp), which adds line directives and nothing else
// (the same instructions): `.loc FILE LINE COL` before the instructions of each source
// position, then, after the functions, an empty `.section .debug_loc` and the `.file N
// "path"` table.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace qgpu {

// A position in the compiled CUDA file.
struct CudaPosition {
  int line = 0;  // 1-based
  int col = 0;   // 1-based; 0: clang names the line only
};

struct PtxSourceMap {
  std::string ptx;        // the PTX with the debug directives blanked (lines keep their numbers): what the parser reads
  std::string cuda_file;  // the compiled file, as the user named it
  std::vector<std::string> cuda_lines, ptx_lines;
  // Per PTX line (index line - 1): the position in cuda_file of the `.loc` in force there;
  // none before a function's first `.loc`, after a `.loc` of line 0 (code clang gives no
  // line) or of another file (a header).
  std::vector<std::optional<CudaPosition>> at;

  // A problem found at PTX line:col. With a CUDA position: "FILE:LINE:COL: message", the
  // CUDA line and a caret, then "PTX line N (see --dump=ptx): " and the instruction; without
  // one: "PTX line N (see --dump=ptx): message", the PTX line and a caret under col.
  std::string diagnostic(int line, int col, std::string_view message) const;
};

// The lines of a text, without their '\n' (or "\r\n").
std::vector<std::string> text_lines(std::string_view text);

// Reads the line directives of `ptx`, compiled from `cuda_source` in `cuda_file` (a `.file`
// naming the same file, relative or absolute, is it).
PtxSourceMap map_ptx_lines(std::string_view ptx, const std::string& cuda_file, std::string_view cuda_source);

}  // namespace qgpu
