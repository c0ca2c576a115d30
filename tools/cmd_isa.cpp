// `qgpu isa [--markdown]`: the machine's tables, from isa.h and vocab.h.
#include <fmt/format.h>

#include "commands.h"
#include "gpu/isa_doc.h"

namespace qgpu {

void add_isa_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("isa", "Print the machine constants, ops, special registers and token vocabulary");
  auto markdown = std::make_shared<bool>(false);
  cmd->add_flag("--markdown", *markdown, "Markdown tables (the generated part of docs/isa.md)");
  cmd->callback([markdown] {
    fmt::print("{}", *markdown ? isa_markdown() : isa_text());
  });
}

}  // namespace qgpu
