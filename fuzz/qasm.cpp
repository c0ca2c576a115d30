// A .qasm file (gpu::assemble): directives, labels, every op's operand forms, immediates,
// arrays. An accepted program that the ISA check passes prints (disassemble) as text that
// assembles to the same program, and runs on the interpreter (bounded) without failing
// other than by a qgpu::Error.
#include "fuzz_util.h"
#include "gpu/interp.h"
#include "gpu/program.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  qgpu::Program p;
  if (!qgpu::fuzz::accepted([&] { p = qgpu::assemble(qgpu::fuzz::text_of(data, size), "fuzz.qasm"); })) return 0;
  if (!qgpu::check_program(p).empty()) return 0;
  const std::string text = qgpu::disassemble(p);
  qgpu::Program again;
  FUZZ_REQUIRE(qgpu::fuzz::accepted([&] { again = qgpu::assemble(text, "disassembled.qasm"); }),
               "the disassembly does not assemble:\n{}", text);
  FUZZ_REQUIRE(qgpu::disassemble(again) == text, "disassemble(assemble(disassemble(p))) differs:\n{}", text);
  qgpu::fuzz::accepted([&] { qgpu::run(p, p.launch, {.max_records = 20'000}); });
  return 0;
}
