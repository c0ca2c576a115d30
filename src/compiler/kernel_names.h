// C++ names in PTX, and the launched kernel's signature. A kernel with C++ linkage (no
// extern "C") is a mangled symbol in the PTX (_Z11uniform_addPiS_i); so are its __shared__
// variables (_ZZ11uniform_addPiS_iE3buf) and template instantiations
// (_Z6reduceIiLj16EEvPKT_PS0_j). Users name kernels as they wrote them (`--kernel
// uniform_add`, `--kernel 'reduce<int,16>'`), and every message and output shows the source
// name, never the mangled one. Parameter names come from the source, their types from the
// mangled name; only what the kernel reaches (its functions and variables) is its own.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ptx.h"

namespace qgpu {

// The Itanium C++ demangling of a PTX symbol; the symbol itself when it is not mangled.
std::string demangle(std::string_view symbol);

// A kernel's names, from its PTX symbol.
struct KernelName {
  std::string symbol;                    // as in PTX: _Z6reduceIiLj16EEvPKT_PS0_j, or vecadd
  std::string name;                      // qualified, with template arguments: reduce<int, 16u>
  std::string base;                      // unqualified, without them: reduce
  std::string signature;                 // name(param types): reduce<int, 16u>(int const*, int*, unsigned int)
  std::vector<std::string> param_types;  // demangled (int const*, unsigned int); empty for extern "C"
  bool mangled = false;
};
KernelName kernel_name(const std::string& symbol);

// Whether `wanted` (what --kernel says) names this kernel: its PTX symbol, its name or
// signature as demangled, or its name without namespaces; blanks and integer suffixes
// (16u) do not count, and `unsigned` is `unsigned int`.
bool names_kernel(std::string_view wanted, const KernelName& k);

// Whether `wanted` is a template-id (reduce<int,16>): the launch instantiates it.
bool is_template_id(std::string_view wanted);

// A mangled variable's name as the source spells it: _ZZ11uniform_addPiS_iE3buf -> buf.
std::string variable_name(std::string_view symbol);

// ---- The launched kernel's signature, and what it reaches.

// A kernel parameter: its name from the source, its type from the mangled name (or, for an
// extern "C" kernel, the source).
struct CudaParam {
  std::string name;
  bool pointer = false;
  bool is_float = false;  // float or float * (its values are binary32)
  int elem_bytes = 4;     // char, bool: 1; short: 2 (packed in the words)
  bool elem_signed = true;
  bool is_bool = false;
  int wide = 0;           // a 64-bit scalar: 1 long (signed), 2 size_t or unsigned long; its word holds 32 bits
};

// s with its // and /* */ comments blanked.
std::string strip_comments(std::string_view s);

// The kernel's parameters, or nothing when the source has no `__global__` declaration of it.
std::optional<std::vector<CudaParam>> kernel_params(std::string_view source, const KernelName& k, size_t ptx_params);

// The kernel --kernel names (any of its names), or the file's only one; throws Error.
const PtxFunction& select_kernel(const PtxModule& m, const std::string& wanted, const std::string& file);

// The functions a kernel runs (itself and every function it calls, transitively) and the
// module variables they name: only these count for the kernel, so another kernel of the
// file, with constructs this one lacks, changes nothing of it.
struct Reach {
  std::set<std::string> functions, symbols;
};

Reach reach(const PtxModule& m, const PtxFunction& k);

}  // namespace qgpu
