// PTX text as clang emits it, and anything near it: the parser (parse_ptx), then the rest
// of the compiler on the module's first kernel (the subset check, layout, lowering with the
// warp sequences, the optimiser, legalisation, register allocation, emission:
// compile_ptx), then the program it made on the interpreter. The CUDA source compile_ptx
// reads the parameters' names from is made from the PTX's .param list (u64: a pointer).
#include "compiler/compile.h"
#include "compiler/ptx.h"
#include "fuzz_util.h"
#include "gpu/interp.h"

namespace {

// A CUDA signature for k and arguments for every parameter: arrays of 4 words, scalars 3.
std::string signature(const qgpu::PtxFunction& k, std::vector<qgpu::KernelArg>& args) {
  std::string params;
  for (size_t i = 0; i < k.params.size(); ++i) {
    const bool pointer = k.params[i].type == ".u64" || k.params[i].type == ".b64";
    params += fmt::format("{}int {}p{}", i ? ", " : "", pointer ? "*" : "", i);
    args.push_back({.name = fmt::format("p{}", i), .is_array = pointer,
                    .values = pointer ? std::vector<int64_t>{1, -2, 3, 40} : std::vector<int64_t>{3}});
  }
  return fmt::format("__global__ void {}({}) {{}}\n", k.name, params);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view ptx = qgpu::fuzz::text_of(data, size);
  qgpu::PtxModule m;
  if (!qgpu::fuzz::accepted([&] { m = qgpu::parse_ptx(ptx, "fuzz.ptx"); })) return 0;
  for (const qgpu::PtxFunction& k : m.functions) {
    if (!k.is_entry) continue;
    qgpu::CompileOptions o{.file = "fuzz.cu", .kernel = k.name};
    const std::string source = signature(k, o.args);
    qgpu::fuzz::accepted([&] {
      const qgpu::CompiledKernel c = qgpu::compile_ptx(ptx, source, o);
      FUZZ_REQUIRE(qgpu::check_program(c.program).empty(), "the compiler emitted a program the ISA rejects: {}",
                   qgpu::check_program(c.program).front());
      qgpu::run(c.program, o.launch, {.max_records = 20'000});
    });
    break;
  }
  return 0;
}
