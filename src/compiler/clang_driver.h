// Finding a clang with the NVPTX backend and compiling a .cu file to PTX with it.
#pragma once

#include <string>

namespace qgpu {

// The clang to use: $CLANG, else clang-19, -16, -15, -14, clang on PATH, else Homebrew's
// llvm on macOS. Throws Error saying what to install when none is found.
std::string find_clang();

// Compiles one CUDA file to PTX text (device only, sm_75, no CUDA SDK, the shipped header
// pre-included, with the line directives that say which CUDA line each instruction comes
// from: ptx_lines.h). clang's own diagnostics reach the user unchanged in the Error.
// `appended` is source text compiled after the file's (a template's instantiation): the
// file is then #included by a wrapper, so its own #includes and line numbers stay its own.
std::string compile_to_ptx(const std::string& cu_path, const std::string& opt_level, const std::string& appended = "");

}  // namespace qgpu
