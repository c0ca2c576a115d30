// The ISA and vocabulary tables as text: Markdown for docs/isa.md and `qgpu isa --markdown`,
// aligned columns for `qgpu isa`.
#pragma once

#include <string>

namespace qgpu {

// Markdown tables generated from isa.h and vocab.h; docs/isa.md embeds this text verbatim
// between its "generated" markers, and a test checks that it is current.
std::string isa_markdown();
// The same tables as plain aligned text: the machine constants, the ops, the special
// registers and field codes, and the token vocabulary's families with their id ranges.
std::string isa_text();

}  // namespace qgpu
