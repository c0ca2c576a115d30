// `qgpu run FILE.cu [--kernel NAME] [--grid G] [--block B] [--arg NAME=VALUE]...
//                  [--engine interp|model] [--dtype f32|bf16|f16] [--json] [--trace]
//                  [--shared BYTES] [--dump=ptx|ir|alloc|blocks] [-O LEVEL]
//                  [--check [--model DIR] [--rounding llama|transformers]]`
// Compiles a CUDA kernel for the machine and launches it. This contract is stable: later
// executors, the tests and users rely on it. --check runs the divergence finder (host/check.h)
// on the compiled model: the GPU-only model (built in memory) unless --model names one.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "commands.h"
#include "compiler/compile.h"
#include "gpu/interp.h"
#include "gpu/trace_json.h"
#include "host/check.h"

namespace qgpu {
namespace {

struct RunArgs {
  std::string file, kernel, grid = "1", block = "4", engine = "interp", dtype, dump, opt = "s";
  std::string model, rounding = "llama";
  std::vector<std::string> args;
  int shared = -1;
  bool json = false, trace = false, check = false;
  std::optional<int64_t> max_records;  // none: the interpreter's default; the model's cap from the interpreter's run
  LensArgs lens;
};

CompileOptions compile_options(const RunArgs& r) {
  CompileOptions o{.file = r.file, .kernel = r.kernel, .shared_bytes = r.shared, .opt_level = "-O" + r.opt};
  o.float_sequences = r.engine == "model" || r.check;  // the program the model runs
  std::tie(o.launch.grid_x, o.launch.grid_y) = parse_dims(r.grid, "grid");
  std::tie(o.launch.block_x, o.launch.block_y) = parse_dims(r.block, "block");
  std::vector<std::string> problems = check_launch(o.launch);
  if (!problems.empty()) fail("{}", problems.front());
  for (const std::string& a : r.args) o.args.push_back(parse_kernel_arg(a));
  return o;
}

void dump(const CompiledKernel& k, const std::string& what) {
  if (what == "ir") return fmt::print("{}", ir_dump(k.ir));
  if (what == "alloc") return fmt::print("{}", ir_dump(k.allocated));
  if (what == "blocks") return fmt::print("{}", disassemble(k.program));
  fail("--dump={}: expected ptx, ir, alloc or blocks", what);
}

void run_kernel(const RunArgs& r) {
  if (r.engine != "interp" && r.engine != "model") fail("--engine {}: expected interp or model", r.engine);
  if (!r.dtype.empty() && r.dtype != "f32" && r.dtype != "bf16" && r.dtype != "f16")
    fail("--dtype {}: expected f32, bf16 or f16", r.dtype);
  std::string source = read_text_file(r.file, kMaxSourceBytes, "CUDA source");
  // The PTX is printed before the later stages run: their diagnostics name its lines.
  if (r.dump == "ptx") return fmt::print("{}", compile_cuda_to_ptx(compile_options(r)));
  CompiledKernel k = compile_cuda(source, compile_options(r));
  if (!r.dump.empty()) return dump(k, r.dump);
  const Program& p = k.program;
  // The interpreter has no dtype (it is the spec: exact integers and binary32); a model run
  // reports the dtype it ran in (run_on_model).
  ReportOptions report{.engine = r.engine, .outputs = k.outputs, .with_records = r.trace};
  if (r.lens.requested() && (r.engine != "model" || r.check))
    fail("--lens, --dump-activations, --patch-* and --ablate look inside the model: add --engine model");
  if (r.engine == "model" && !r.check)
    return run_on_model({r.model, r.dtype, r.rounding, r.json, r.lens}, p, p.launch, report, r.max_records);
  Trace t = run(p, p.launch, {.max_records = r.max_records.value_or(RunOptions{}.max_records)});
  if (r.check) return check_on_model({r.model, r.dtype, r.rounding, r.json}, t);
  if (r.json) return fmt::print("{}\n", trace_json(p, p.launch, t, report).dump());
  fmt::print("{}", trace_text(p, p.launch, t, r.trace));
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto r = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand("run", "Compile a CUDA kernel and launch it on the machine");
  cmd->add_option("file", r->file, "CUDA source (.cu)")->required()->check(CLI::ExistingFile);
  cmd->add_option("--kernel", r->kernel, "Kernel to launch (needed when the file has several): its name, "
                  "'NAME<int,16>' for a template's instance, 'NAME(float*, int)' for one of several overloads");
  cmd->add_option("--shared", r->shared, "Dynamic shared memory in bytes (extern __shared__ T s[]), as the third "
                  "<<<grid, block, BYTES>>> launch parameter")->check(CLI::Range(0, 4 * kMemWords));
  cmd->add_option("--grid", r->grid, "Grid size X[,Y] in CUDA blocks (default 1)");
  cmd->add_option("--block", r->block, "CUDA block size X[,Y] in threads (default 4)");
  cmd->add_option("--arg", r->args, "NAME=VALUE: a number for a scalar, [1,2,-3] for a pointer (its contents)");
  cmd->add_option("--engine", r->engine, "interp (the reference interpreter) or model");
  cmd->add_option("--dtype", r->dtype, "f32, bf16 or f16 (model engine; default: the checkpoint's own)");
  cmd->add_flag("--json", r->json, "Print one JSON object: kernel, engine, dtype (--engine model), outputs, tokens, ...");
  cmd->add_flag("--trace", r->trace, "Print (or include in the JSON) every record");
  cmd->add_option("--dump", r->dump, "Print the program after a stage: ptx, ir, alloc or blocks");
  cmd->add_option("-O", r->opt, "clang optimisation level: s (default), z, 1, 2, 3");
  cmd->add_option("--max-records", r->max_records, "Give up after this many generated records (default: 2000000 "
                  "on the interpreter; --engine model: max(4 x the interpreter's records + 1000, 10000))");
  cmd->add_flag("--check", r->check, "Compare the compiled model's state with the interpreter's after every token");
  cmd->add_option("--model", r->model, "The compiled model for --engine model and --check (default: the GPU-only model, built in memory at start)");
  cmd->add_option("--rounding", r->rounding, "--check: llama (default) or transformers");
  add_lens_options(cmd, r->lens);
  cmd->callback([r] { run_kernel(*r); });
}

}  // namespace qgpu
