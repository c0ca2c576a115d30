// qgpu: one binary, one subcommand per file in tools/. Errors end here: one line on
// stderr (or the assembler's full diagnostic list) and a non-zero exit status.
#include <fmt/format.h>

#include "base/error.h"
#include "commands.h"

int main(int argc, char** argv) {
  CLI::App app{"qgpu: a small SIMT GPU that runs inside the weights of a Qwen3.5 model"};
  app.require_subcommand(1);
  qgpu::add_asm_command(app);
  qgpu::add_isa_command(app);
  qgpu::add_run_command(app);
  qgpu::add_forward_command(app);
  qgpu::add_generate_command(app);
  qgpu::add_convert_command(app);
  qgpu::add_tiny_model_command(app);
  qgpu::add_compile_model_command(app);
  qgpu::add_map_command(app);
  qgpu::add_build_command(app);
  qgpu::add_check_command(app);
  qgpu::add_chat_commands(app);
  qgpu::add_cache_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const qgpu::Error& e) {
    fmt::print(stderr, "qgpu: error: {}\n", e.what());
    return 1;
  }
  return 0;
}
