// C++ names in PTX. A kernel with C++ linkage (no extern "C") is a mangled symbol in the
// PTX (_Z11uniform_addPiS_i); so are its __shared__ variables (_ZZ11uniform_addPiS_iE3buf)
// and template instantiations (_Z6reduceIiLj16EEvPKT_PS0_j). Users name kernels as they
// wrote them (`--kernel uniform_add`, `--kernel 'reduce<int,16>'`), and every message and
// output shows the source name, never the mangled one.
#pragma once

#include <string>
#include <string_view>
#include <vector>

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

}  // namespace qgpu
