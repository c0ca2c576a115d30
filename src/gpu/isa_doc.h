// The ISA and vocabulary tables as Markdown, for docs/isa.md and `qgpu isa --markdown`.
#pragma once

#include <string>

namespace qgpu {

// Markdown tables generated from isa.h and vocab.h; docs/isa.md embeds this text verbatim
// between its "generated" markers, and a test checks that it is current.
std::string isa_markdown();

}  // namespace qgpu
