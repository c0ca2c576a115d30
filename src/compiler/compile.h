// CUDA source -> machine program, as a short list of named stages. Each stage's output can
// be printed with --dump=ptx|ir|alloc|blocks.
//
//   clang      .cu -> PTX text (a template launched: instantiated)   (clang_driver.h)
//   lines      the CUDA line behind each PTX line, from clang's .loc  (ptx_lines.h)
//   parse      PTX text -> syntax tree          (ptx.h)
//   select     the kernel by its source name, its parameters     (kernel_names.h)
//   layout     kernel arrays, module globals, __shared__ copies (static and dynamic), local
//              arrays and warp words in the 126 words
//   lower      PTX -> IR: 64-bit addresses by the low-32 rule (a kernel comparing other
//              64-bit values: again with their high halves), calls inlined, every warp
//              function after a rendezvous, chars and shorts inside words
//   optimise   constant and copy propagation, address folding, dead code; registers read
//              before any write set to 0 at entry
//   legalise   one immediate word per instruction
//   allocate   virtual registers -> r0..r23, predicates -> p0..p3
//   emit       one instruction per ROM block
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compiler/ir.h"
#include "gpu/program.h"

namespace qgpu {

// A kernel argument as given on the command line: `NAME=5`, `NAME=[1,2,-3]`, `NAME=2.5`,
// `NAME=[1.5,-inf,nan]`. Its words depend on the parameter's type (an int, or a float),
// which the compile reads from the kernel: `items` keeps the text of each value.
struct KernelArg {
  std::string name;
  bool is_array = false;
  std::vector<int64_t> values;     // one value for a scalar; an item that is not a 32-bit integer: 0
  std::vector<std::string> items;  // the values as written (empty: `values` are integers)
};

// One integer of an --arg list: an optional '-', decimal digits or 0x and hex digits. A
// magnitude past 63 bits saturates (the caller's range check rejects it).
std::optional<int64_t> parse_integer(std::string_view s);

// Parses "NAME=VALUE" (the --arg syntax); throws Error naming the argument.
KernelArg parse_kernel_arg(std::string_view text);

// "X" or "X,Y" (the --grid / --block syntax) into two positive integers; throws Error
// naming --what.
std::pair<int, int> parse_dims(const std::string& text, const char* what);

struct CompileOptions {
  std::string file = "<input>";  // for diagnostics
  std::string kernel;            // empty: the file's only kernel
  Launch launch;
  std::vector<KernelArg> args;
  // Dynamic shared memory in bytes (`extern __shared__ T s[]`, the third <<<grid, block,
  // BYTES>>> launch parameter); -1: not given (an error if the kernel has such an array).
  int shared_bytes = -1;
  std::string opt_level = "-Os";
  // For the compiled model: f32 add, sub, mul, div, sqrt and the conversions become sequences of
  // integer ops (its layers lack them; lower_float.cpp). The interpreter runs either form
  // with the same results.
  bool float_sequences = false;
};

// The words of a launch's `qgpu run` options (a corpus `// run:` line, a chat launch):
// split at blanks, '...' quoting a word (a template kernel: --kernel 'reduce<int,16>').
std::vector<std::string> split_run_line(std::string_view text);

// `qgpu run`'s launch options (--grid, --block, --kernel, --arg, --shared; `FLAG VALUE`
// or `FLAG=VALUE`) into o, the launch checked against the machine; throws Error naming a
// bad one, `where` first (a file, or a run line).
void parse_launch_options(const std::vector<std::string>& words, CompileOptions& o, std::string_view where = "");

struct CompiledKernel {
  std::string kernel;
  std::string ptx;
  IrFunction ir;                       // after optimisation, before allocation
  IrFunction allocated;                // after allocation (vreg names are machine registers)
  Program program;
  std::vector<std::string> outputs;    // pointer parameters, in order (their arrays)
};

// The first stage alone: the PTX clang makes of options.file (a template kernel instantiated
// for the launch), the text --dump=ptx prints, also for a kernel the later stages refuse.
std::string compile_cuda_to_ptx(const CompileOptions& options);
// The whole pipeline from CUDA source text. Throws Error: clang's diagnostics unchanged,
// or qgpu's own for what the machine lacks: file:line:col of the CUDA line behind the PTX
// instruction, the line and a caret, then the PTX line (ptx_lines.h).
CompiledKernel compile_cuda(std::string_view source, const CompileOptions& options);
// The same from source text with no file of its own (a kernel a model wrote, an embedded
// one): clang compiles a temporary copy, and diagnostics name options.file.
CompiledKernel compile_cuda_text(std::string_view source, const CompileOptions& options);
// From PTX text on (the source is still needed for parameter names).
CompiledKernel compile_ptx(std::string_view ptx, std::string_view source, const CompileOptions& options);

}  // namespace qgpu
