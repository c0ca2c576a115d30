// `qgpu asm FILE.qasm... [--run [--engine interp|model] [--check]] [--json] [--trace] [--grid X[,Y]] [--block X[,Y]]
//                        [--dump=asm|image] [--max-records N]`
// Assembles machine programs; with --run executes them on the reference interpreter.
#include <fmt/format.h>

#include "base/error.h"
#include "commands.h"
#include "gpu/interp.h"
#include "gpu/trace_json.h"

namespace qgpu {
namespace {

struct AsmOptions {
  std::vector<std::string> files;
  bool run = false, json = false, trace = false, check = false;
  ModelArgs model;
  std::string grid, block, dump, engine = "interp";
  std::optional<int64_t> max_records;  // none: the interpreter's default; the model's cap from the interpreter's run
};

Launch launch_for(const Program& p, const AsmOptions& o) {
  Launch l = p.launch;
  if (!o.grid.empty()) std::tie(l.grid_x, l.grid_y) = parse_dims(o.grid, "grid");
  if (!o.block.empty()) std::tie(l.block_x, l.block_y) = parse_dims(o.block, "block");
  std::vector<std::string> problems = check_launch(l);
  if (!problems.empty()) fail("{}", problems.front());
  return l;
}

void dump(const Program& p, const Launch& l, const std::string& what) {
  if (what == "asm") return fmt::print("{}", disassemble(p));
  if (what != "image") fail("--dump={}: expected asm or image", what);
  for (const Rec& r : encode_image(p, l)) fmt::print("{}\n", record_text(r));
}

void run_file(const std::string& file, const AsmOptions& o) {
  Program p = assemble(read_text_file(file, kMaxSourceBytes, ".qasm file"), file);
  Launch l = launch_for(p, o);
  if (!o.dump.empty()) return dump(p, l, o.dump);
  if (!o.run) {
    if (o.json) return fmt::print("{}\n", nlohmann::json{{"kernel", p.kernel}, {"blocks", p.code.size()}}.dump());
    return fmt::print("{}: {} blocks, {} arrays\n", file, p.code.size(), p.arrays.size());
  }
  if (o.model.lens.requested() && (o.engine != "model" || o.check))
    fail("--lens, --dump-activations, --patch-* and --ablate look inside the model: add --engine model");
  if (o.engine == "model" && !o.check)
    return run_on_model(o.model, p, l, {.engine = "model", .with_records = o.json || o.trace}, o.max_records);
  if (o.engine != "interp" && o.engine != "model") fail("--engine {}: expected interp or model", o.engine);
  Trace t;
  try {
    t = run(p, l, {.max_records = o.max_records.value_or(RunOptions{}.max_records)});
  } catch (const Error& e) {
    fail("{}: {}", file, e.what());
  }
  if (o.check) return check_on_model(o.model, t);
  if (o.json) return fmt::print("{}\n", trace_json(p, l, t, {}).dump());
  fmt::print("{}", trace_text(p, l, t, o.trace));
}

}  // namespace

void add_asm_command(CLI::App& app) {
  auto o = std::make_shared<AsmOptions>();
  auto* cmd = app.add_subcommand("asm", "Assemble .qasm machine programs, and run them with --run");
  cmd->add_option("files", o->files, "Assembly files")->required()->check(CLI::ExistingFile);
  cmd->add_flag("--run", o->run, "Run on the reference interpreter");
  cmd->add_flag("--json", o->json, "One JSON object per file: outputs, memory, records, counts");
  cmd->add_flag("--trace", o->trace, "With --run: print every record");
  cmd->add_option("--grid", o->grid, "Grid size X[,Y] in CUDA blocks (default: the file's .grid)");
  cmd->add_option("--block", o->block, "CUDA block size X[,Y] in threads (default: the file's .block)");
  cmd->add_option("--dump", o->dump, "Print the program as 'asm' (canonical text) or its prompt 'image'");
  cmd->add_option("--max-records", o->max_records, "Give up after this many generated records (default: 2000000 "
                  "on the interpreter; --engine model: max(4 x the interpreter's records + 1000, 10000))");
  cmd->add_option("--engine", o->engine, "With --run: interp (the reference interpreter) or model (the compiled model generates)");
  cmd->add_flag("--check", o->check, "With --run: compare the compiled model with the interpreter after every token");
  cmd->add_option("--model", o->model.model, "The compiled model for --engine model and --check (default: the GPU-only model, built in memory at start)");
  cmd->add_option("--dtype", o->model.dtype, "f32, bf16 or f16 (the model; default: the checkpoint's own)");
  cmd->add_option("--rounding", o->model.rounding, "--check: llama (default) or transformers");
  add_lens_options(cmd, o->model.lens);
  cmd->callback([o] {
    o->model.json = o->json;
    for (const std::string& f : o->files) run_file(f, *o);
  });
}

}  // namespace qgpu
