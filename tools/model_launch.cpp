// Launches on the compiled model, shared by `qgpu run` and `qgpu asm`: the divergence
// finder (--check) and generation (--engine model).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "commands.h"
#include "host/check.h"
#include "host/launch.h"
#include "host/gpu_model.h"
#include "launch_progress.h"

namespace qgpu {

NamedModel load_named_model(const std::string& name, const std::string& dtype) {
  if (!dtype.empty() && dtype != "f32" && dtype != "bf16" && dtype != "f16")
    fail("--dtype {}: expected f32, bf16 or f16", dtype);
  const std::optional<engine::DType> t = dtype.empty() ? std::nullopt : engine::parse_dtype(dtype);
  if (name.empty() || name == "gpu") {
    host::GpuModel g = host::gpu_only_model(t.value_or(engine::DType::f32));
    return {std::move(g.model), host::kGpuOnlyName, true, g.seconds};
  }
  return {host::load_checkpoint(name, t), name, false, 0};
}

// The divergence finder on the interpreter's records; exits 1 (an Error) at a divergence.
void check_on_model(const ModelArgs& r, const Trace& t) {
  engine::Rounding rounding = rounding_option(r.rounding);
  NamedModel named = load_named_model(r.model, r.dtype);
  const engine::Model& m = named.model;
  const std::string& dir = named.name;
  const std::string dtype = engine::dtype_name(m.dtype);
  host::CheckReport c = host::check_launch(m, host::runtime_options({.rounding = rounding}), t.prompt, t.records);
  std::string what = fmt::format("{} {}{}", dir, dtype, r.rounding == "transformers" ? " (transformers' rounding)" : "");
  if (r.json) {
    nlohmann::ordered_json j = {{"model", dir}, {"dtype", dtype}, {"rounding", r.rounding},
                                {"tokens", c.tokens}, {"prompt_tokens", c.prompt_tokens}, {"emitted", c.emitted},
                                {"equal", !c.first}};
    if (c.gap) j["not_generated"] = *c.gap;
    if (c.first)
      j["divergence"] = {{"token", c.first->token}, {"record", c.first->record}, {"layer", c.first->layer},
                         {"field", c.first->field}, {"interpreter", c.first->want}, {"model", c.first->got}};
    fmt::print("{}\n", j.dump());
  } else if (!c.first) {
    fmt::print("check: {} tokens ({} prompt, {} records fed by teacher forcing): the state {} holds equals "
               "the interpreter's after every token (step, registers, lane status, fetch, operands, lane control, the scheduler's next record, the next record's lane and its operands; memory and ROM after the prompt, the word each st writes, memory after each atomic update)\n",
               c.tokens, c.prompt_tokens, c.tokens - c.prompt_tokens, what);
    if (c.gap) fmt::print("check: the model's greedy records were not compared: {}\n", *c.gap);
    else fmt::print("check: the model's greedy choice was the interpreter's next record at all {} running tokens\n", c.emitted);
  }
  if (c.first) fail("check: {} diverges from the interpreter at {}", what, c.first->text());
}

void run_on_model(const ModelArgs& a, const Program& p, const Launch& l, ReportOptions report,
                  std::optional<int64_t> max_records) {
  if (a.lens.requested()) return run_lens(a, p, l, report, max_records);
  host::require_generation(p, l);  // before a checkpoint of gigabytes is read for nothing
  const RecordCap cap = record_cap(p, l, max_records);  // from the interpreter's count, unless given
  NamedModel named = load_named_model(a.model, a.dtype);
  const engine::Model& m = named.model;
  const std::string& dir = named.name;
  const PartialOutput partial{.all = report.with_records, .json = a.json, .kernel = p.kernel};
  const host::LaunchResult run = launch_with_progress(p, l, m, {.rounding = rounding_option(a.rounding)}, cap, &partial);
  const Trace trace = host::launch_trace(run);
  report.engine = "model";
  report.dtype = engine::dtype_name(m.dtype);
  if (a.json) {
    nlohmann::json j = trace_json(p, l, trace, report);
    j["model"] = dir;
    if (named.gpu_only_in_memory) j["construct_seconds"] = named.construct_seconds;
    j["seconds"] = run.seconds;
    j["tokens_per_second"] = run.seconds > 0 ? static_cast<double>(run.records.size()) / run.seconds : 0.0;
    return fmt::print("{}\n", j.dump());
  }
  fmt::print("{}", trace_text(p, l, trace, report.with_records));
  fmt::print("model {} ({}): {} records in {:.3f} s, {:.0f} tokens/s", dir, report.dtype, run.records.size(),
             run.seconds, run.seconds > 0 ? static_cast<double>(run.records.size()) / run.seconds : 0.0);
  if (named.gpu_only_in_memory) fmt::print(" (constructed in {:.3f} s)", named.construct_seconds);
  fmt::print("\n");
}

}  // namespace qgpu
