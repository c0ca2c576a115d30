// The subcommands of `qgpu`: each file registers one on the CLI app.
#pragma once

#include "base/text_file.h"
#include <CLI/CLI.hpp>
#include <optional>
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
void add_map_command(CLI::App& app);
void add_build_command(CLI::App& app);
void add_check_command(CLI::App& app);
void add_chat_commands(CLI::App& app);  // chat, ask, eval
void add_cache_command(CLI::App& app);  // cache, cache clear

// --rounding llama|transformers; throws Error.
engine::Rounding rounding_option(const std::string& s);

// A model named on the command line: a checkpoint (HF directory or .gguf), or, when the
// name is empty or `gpu`, the GPU-only model constructed in memory (host/gpu_model.h; a
// directory called gpu is ./gpu). dtype: f32, bf16, f16, or empty for the checkpoint's own
// (f32 for the GPU-only model); anything else is an Error.
struct NamedModel {
  engine::Model model;
  std::string name;                // the path, or host::kGpuOnlyName
  bool gpu_only_in_memory = false;
  double construct_seconds = 0;    // the in-memory model's construction
};
NamedModel load_named_model(const std::string& name, const std::string& dtype);

// The compiled model a launch runs on: --model DIR (default: the GPU-only model, in
// memory), --dtype, --rounding, --json.
// The lens and interventions of a launch inside the model (tools/model_lens.cpp): --lens
// [POSITIONS], --lens-all, --lens-json, --dump-activations FILE, --patch-field,
// --patch-state, --ablate, --ablate-mode.
struct LensArgs {
  bool all = false, json = false;
  std::string positions;  // --lens: "all" or N,M-K
  std::string dump, ablate_mode = "zero", dump_mlp, html;
  std::vector<std::string> fields;  // --lens-fields: only these
  std::vector<std::string> patch_field, patch_state, ablate;
  bool lens() const { return !positions.empty(); }
  bool requested() const { return lens() || json || !html.empty() || !dump.empty() || !patch_field.empty() || !patch_state.empty() || !ablate.empty(); }
};
void add_lens_options(CLI::App* cmd, LensArgs& a);

struct ModelArgs {
  // dtype: f32, bf16, f16, or empty for the checkpoint's own (the construction is exact in
  // f32 on f32 weights, and on bf16 or f16 weights with their rounding, not f32 on bf16).
  std::string model, dtype, rounding = "llama";
  bool json = false;
  LensArgs lens;
};
// --check: the divergence finder on the interpreter's trace t; exits 1 (an Error) at a divergence.
void check_on_model(const ModelArgs& a, const Trace& t);

// --engine model: generates the launch on the compiled model and reports it (outputs read
// out of the model's state) as `trace_json` / `trace_text` do; a kernel whose ops the
// model does not generate yet is one clear error. max_records: --max-records, or none for
// the cap derived from the interpreter's run (tools/launch_progress.h); when the model
// fails, the records it generated are printed first (report.with_records: all of them).
void run_on_model(const ModelArgs& a, const Program& p, const Launch& l, ReportOptions report,
                  std::optional<int64_t> max_records);
// The same with a.lens requested: the lens, the activation dump, the interventions and
// their diff against the clean run (tools/model_lens.cpp).
void run_lens(const ModelArgs& a, const Program& p, const Launch& l, ReportOptions report,
              std::optional<int64_t> max_records);

}  // namespace qgpu
