// The subcommands of `qgpu`: each file registers one on the CLI app.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "compiler/compile.h"
#include "engine/forward.h"
#include "gpu/interp.h"
#include "gpu/trace_json.h"

namespace qgpu {

void add_asm_command(CLI::App& app);
void add_isa_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_forward_command(CLI::App& app);
void add_generate_command(CLI::App& app);
void add_convert_command(CLI::App& app);
void add_tiny_model_command(CLI::App& app);
void add_compile_model_command(CLI::App& app);
void add_build_command(CLI::App& app);
void add_check_command(CLI::App& app);
void add_chat_commands(CLI::App& app);  // chat, ask, eval

// --rounding llama|transformers; throws Error.
engine::Rounding rounding_option(const std::string& s);

// The compiled model a launch runs on: --model DIR (default: the cached GPU-only model),
// --dtype, --rounding, --json.
struct ModelArgs {
  // dtype: f32, bf16, f16, or empty for the checkpoint's own (the construction is exact in
  // f32 on f32 weights, and on bf16 or f16 weights with their rounding, not f32 on bf16).
  std::string model, dtype, rounding = "llama";
  bool json = false;
};
// --check: the divergence finder on the interpreter's trace t; exits 1 (an Error) at a divergence.
void check_on_model(const ModelArgs& a, const Trace& t);

// --engine model: generates the launch on the compiled model and reports it (outputs read
// out of the model's state) as `trace_json` / `trace_text` do; a kernel whose ops the
// model does not generate yet is one clear error.
void run_on_model(const ModelArgs& a, const Program& p, const Launch& l, ReportOptions report, int64_t max_records);

// Reads a whole file; throws Error naming the file when it cannot.
std::string read_text_file(const std::string& path);

}  // namespace qgpu
