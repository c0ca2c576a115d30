// The subcommands of `qgpu`: each file registers one on the CLI app.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "engine/forward.h"

namespace qgpu {

void add_asm_command(CLI::App& app);
void add_isa_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_forward_command(CLI::App& app);
void add_generate_command(CLI::App& app);
void add_convert_command(CLI::App& app);
void add_tiny_model_command(CLI::App& app);
void add_compile_model_command(CLI::App& app);

// "X" or "X,Y" (the --grid / --block syntax) into two positive integers; throws Error.
std::pair<int, int> parse_dims(const std::string& text, const char* what);

// --rounding llama|transformers; throws Error.
engine::Rounding rounding_option(const std::string& s);

// Reads a whole file; throws Error naming the file when it cannot.
std::string read_text_file(const std::string& path);

}  // namespace qgpu
