// The compile pipeline (compile.h lists the stages), the kernel signature reader and the
// memory layout. Kernel parameter names come from the CUDA source, because PTX only has
// NAME_param_0, NAME_param_1, ...
#include "compiler/compile.h"

#include <fmt/format.h>

#include <unistd.h>

#include <bit>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>

#include "base/error.h"
#include "compiler/clang_driver.h"
#include "compiler/kernel_names.h"
#include "compiler/lower.h"
#include "compiler/lower_expand.h"
#include "compiler/opt.h"
#include "compiler/ptx.h"
#include "compiler/ptx_lines.h"
#include "compiler/ptx_ops.h"
#include "compiler/regalloc.h"
#include "gpu/f32.h"

namespace qgpu {
namespace {

int element_bytes(const std::string& type) {
  if (type == ".b8" || type == ".u8" || type == ".s8") return 1;
  if (type == ".b16" || type == ".u16" || type == ".s16") return 2;
  if (type == ".b64" || type == ".u64" || type == ".s64" || type == ".f64") return 8;
  return 4;
}

// A variable's initial contents as 32-bit little-endian words.
std::vector<uint32_t> var_words(const PtxVar& v) {
  int eb = element_bytes(v.type);
  int64_t n = v.array_size < 0 ? 1 : v.array_size;
  std::vector<uint8_t> bytes(static_cast<size_t>(n * eb), 0);
  for (size_t i = 0; i < v.init.size() && i < static_cast<size_t>(n); ++i)
    for (int b = 0; b < eb; ++b) bytes[i * eb + b] = static_cast<uint8_t>(v.init[i] >> (8 * b));
  std::vector<uint32_t> words((bytes.size() + 3) / 4, 0);
  for (size_t i = 0; i < bytes.size(); ++i) words[i / 4] |= static_cast<uint32_t>(bytes[i]) << (8 * (i % 4));
  return words;
}

struct Layout {
  std::vector<Array> arrays;
  LowerEnv env;
  std::string summary;  // "a 8, c 8, s 16 x 4 copies" for the overflow message
};

void place(Layout& l, const std::string& name, std::vector<uint32_t> init, int& next) {
  int size = std::max<int>(1, static_cast<int>(init.size()));
  init.resize(size, 0);
  l.arrays.push_back({name, next, size, init});
  next += size;
}

// The words of an argument for its parameter: an int parameter takes integers (a value
// with a fraction is an error naming it); a float parameter takes floats, and an integer
// is that number as a float (rounded to nearest even).
std::vector<uint32_t> arg_words(const KernelArg& a, const CudaParam& p) {
  std::vector<uint32_t> words;
  if (p.elem_bytes != 4) {  // chars, bools, shorts: packed little-endian, 4 or 2 a word
    const int bits = 8 * p.elem_bytes;
    const int64_t lo = p.is_bool ? 0 : p.elem_signed ? -(int64_t{1} << (bits - 1)) : 0;
    const int64_t hi = p.is_bool ? 1 : p.elem_signed ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
    const char* type = p.is_bool ? "bool" : p.elem_bytes == 1 ? (p.elem_signed ? "char" : "unsigned char")
                                                              : (p.elem_signed ? "short" : "unsigned short");
    for (size_t i = 0; i < a.values.size(); ++i) {
      const std::string_view item = i < a.items.size() ? std::string_view(a.items[i]) : std::string_view();
      const std::optional<int64_t> v = item.empty() ? a.values[i] : parse_integer(item);
      if (!v || *v < lo || *v > hi)
        fail("--arg {}: '{}' is not a {} ({}..{}; parameter '{}')", a.name, item.empty() ? std::to_string(a.values[i]) : std::string(item),
             type, lo, hi, p.name);
      if (!p.pointer) {  // a scalar: the word holds the value, extended
        words.push_back(static_cast<uint32_t>(*v));
        continue;
      }
      const size_t byte = i * p.elem_bytes;
      if (byte / 4 >= words.size()) words.push_back(0);
      words[byte / 4] |= (static_cast<uint32_t>(*v) & ((bits == 32 ? 0u : 1u << bits) - 1)) << (8 * (byte % 4));
    }
    return words;
  }
  for (size_t i = 0; i < a.values.size(); ++i) {
    const std::string_view item = i < a.items.size() ? std::string_view(a.items[i]) : std::string_view();
    if (!p.is_float) {
      const std::optional<int64_t> v = item.empty() ? a.values[i] : parse_integer(item);
      if (!v)
        fail("--arg {}: '{}' is not an integer (parameter '{}' is an int{})", a.name, item, p.name, p.pointer ? " array" : "");
      if (*v < INT32_MIN || *v > UINT32_MAX) fail("--arg {}: {} does not fit in 32 bits", a.name, item);
      if (!p.pointer && p.wide == 1 && *v > INT32_MAX)
        fail("--arg {}: {} is past -2147483648..2147483647, what a long parameter holds here (its word is 32 bits)",
             a.name, item);
      if (!p.pointer && p.wide == 2 && *v < 0)
        fail("--arg {}: {} is negative, and parameter '{}' is unsigned (size_t)", a.name, item, p.name);
      words.push_back(static_cast<uint32_t>(*v));
      continue;
    }
    // A decimal (integer or not) reads as a float, so "-0" is -0.0; a hex integer and a
    // value given as a number (no text) are converted, rounded to nearest even.
    const bool hex = item.starts_with("0x") || item.starts_with("0X") || item.starts_with("-0x");
    const std::optional<int64_t> v = hex ? parse_integer(item) : std::nullopt;
    if (v && (*v < INT32_MIN || *v > UINT32_MAX)) fail("--arg {}: {} does not fit in 32 bits", a.name, item);
    std::optional<uint32_t> bits = item.empty() || hex ? std::bit_cast<uint32_t>(static_cast<float>(a.values[i]))
                                                       : parse_f32(item);
    if (!bits)
      fail("--arg {}: '{}' is not a float (parameter '{}' is a float{}): write a decimal like 1.5 or -2e-3, inf, "
           "-inf, nan, or raw bits like 0f3fc00000; the float range is +-3.4028235e+38", a.name, item, p.name,
           p.pointer ? " array" : "");
    words.push_back(*bits);
  }
  return words;
}

const KernelArg& find_arg(const CompileOptions& o, const CudaParam& p) {
  for (const KernelArg& a : o.args)
    if (a.name == p.name) {
      if (a.is_array != p.pointer)
        fail("--arg {}: parameter '{}' is {}: give {}", a.name, p.name, p.pointer ? "a pointer" : "a scalar",
             p.pointer ? "a list like [1,2,3]" : "a number");
      return a;
    }
  fail("kernel parameter '{}' needs a value: --arg {}={}", p.name, p.name, p.pointer ? "[...]" : "N");
}

// Whether the kernel compares 64-bit values (pointers: p != NULL, p < end).
bool compares_64(const PtxModule& m, const Reach& r) {
  for (const PtxFunction& f : m.functions)
    if (r.functions.count(f.name))
      for (const PtxStmt& st : f.body)
        if (st.instr && st.instr->parts.at(0) == "setp" && st.instr->parts.size() == 3 && is_64(st.instr->parts[2]))
          return true;
  return false;
}

// The pointer parameters' arrays, their contents from --arg (in the element type).
void place_arrays(Layout& l, int& next, const PtxFunction& k, const std::vector<CudaParam>& params,
                  const CompileOptions& o) {
  for (size_t i = 0; i < params.size(); ++i) {
    const KernelArg& a = find_arg(o, params[i]);
    if (!params[i].pointer) continue;
    l.env.param_value[k.params[i].name] = 4 * next;
    std::vector<uint32_t> words = arg_words(a, params[i]);
    l.summary += fmt::format("{}{} {}", l.summary.empty() ? "" : ", ", a.name, words.size());
    place(l, a.name, std::move(words), next);
    l.arrays.back().is_float = params[i].is_float;
    l.arrays.back().elem_bytes = params[i].elem_bytes;
    l.arrays.back().elem_signed = params[i].elem_signed;
    if (params[i].elem_bytes != 4) l.arrays.back().count = static_cast<int>(a.values.size());
  }
}

// Module variables (__device__, __constant__), with their initial values, or the values an
// --arg gives them, as cudaMemcpyToSymbol would before the launch.
void place_globals(Layout& l, int& next, const PtxModule& m, std::string_view source, const CompileOptions& o) {
  for (const PtxVar& g : m.globals) {
    if (g.space == ".shared") continue;
    const std::string name = variable_name(g.name);
    std::vector<uint32_t> words = var_words(g);
    bool is_float = g.type == ".f32";
    for (const KernelArg& a : o.args) {
      if (a.name != name) continue;
      // clang declares an array without an initialiser as bytes (.b8 coeffs[16]): its words
      // are the elements, and the source says whether they are floats.
      const bool array = g.array_size >= 0 && words.size() > 1;
      if (element_bytes(g.type) != 4 && (element_bytes(g.type) != 1 || g.array_size % 4 != 0))
        fail("--arg {}: only variables of 32-bit elements (int, unsigned, float) can be set", a.name);
      if (a.is_array != array)
        fail("--arg {}: '{}' is {}: give {}", a.name, name, array ? "an array" : "a scalar",
             array ? "a list like [1,2,3]" : "a number");
      const std::regex float_decl("\\bfloat\\b[^;{}()]*\\b" + name + "\\s*[\\[=;]");
      is_float = is_float || std::regex_search(strip_comments(source), float_decl);
      std::vector<uint32_t> given = arg_words(a, {name, a.is_array, is_float});
      if (given.size() > words.size())
        fail("--arg {}: {} values for '{}', which holds {}", a.name, given.size(), name, words.size());
      std::copy(given.begin(), given.end(), words.begin());
    }
    l.env.global_address[g.name] = 4 * next;
    l.summary += fmt::format(", {} {}", name, words.size());
    place(l, name, words, next);
    l.arrays.back().is_float = is_float;
  }
}

// The __shared__ variables the kernel names, one copy per resident CUDA block, under the
// names the source gives them. Every `extern __shared__ T s[]` (dynamic shared memory)
// starts at the same word, as in CUDA, sized by the launch (--shared BYTES).
void place_shared(Layout& l, int& next, const PtxModule& m, const PtxFunction& k, const Reach& r,
                  const CompileOptions& o) {
  std::vector<const PtxVar*> shared;
  for (const PtxVar& g : m.globals) if (g.space == ".shared" && r.symbols.count(g.name)) shared.push_back(&g);
  for (const PtxVar& v : k.locals) if (v.space == ".shared") shared.push_back(&v);
  std::set<std::string> taken;
  for (const Array& a : l.arrays) taken.insert(a.name);
  std::optional<SharedPlacement> dynamic;
  for (const PtxVar* v : shared) {
    if (v->unsized && dynamic) {
      l.env.shared[v->name] = *dynamic;
      continue;
    }
    if (v->unsized && o.shared_bytes < 0)
      fail("{}: kernel '{}' uses dynamic shared memory (extern __shared__ array '{}'): give its size in bytes with "
           "--shared BYTES, as the third <<<grid, block, BYTES>>> launch parameter would", o.file,
           kernel_name(k.name).name, variable_name(v->name));
    const int words = v->unsized ? std::max(1, (o.shared_bytes + 3) / 4) : static_cast<int>(var_words(*v).size());
    std::string name = variable_name(v->name);
    if (!taken.insert(name).second) name = v->name;  // two functions' `buf`: the PTX names tell them apart
    l.env.shared[v->name] = {next, words};
    if (v->unsized) dynamic = l.env.shared[v->name];
    l.summary += fmt::format(", __shared__ {}{} {} x {} copies", name, v->unsized ? " (dynamic)" : "", words,
                             l.env.ctas_per_wave);
    for (int c = 0; c < l.env.ctas_per_wave; ++c)
      place(l, l.env.ctas_per_wave == 1 ? name : fmt::format("{}#{}", name, c), std::vector<uint32_t>(words, 0), next);
  }
}

// Local arrays (a function's .local depot: `int t[8]` indexed at run time): one copy per
// lane of the machine, as spilled values have, since any lane may run any thread. Then the
// words warp shuffles and votes exchange values through (lower.cpp), when the kernel uses
// them; written zero in the image, so a lane may read one no lane of its warp wrote yet.
void place_lane_words(Layout& l, int& next, const PtxModule& m, const Reach& r) {
  bool shfl = false, vote = false;
  for (const PtxFunction& f : m.functions) {
    if (!r.functions.count(f.name)) continue;
    for (const PtxVar& v : f.locals) {
      if (v.space != ".local") continue;
      const int words = std::max(1, static_cast<int>(var_words(v).size()));
      l.env.local[v.name] = {next, words};
      l.summary += fmt::format(", local array{} {} x {} lanes", f.is_entry ? "" : " of " + kernel_name(f.name).name,
                               words, kWarps * kLanes);
      place(l, fmt::format("__local{}", l.env.local.size() == 1 ? "" : fmt::format("#{}", l.env.local.size() - 1)),
            std::vector<uint32_t>(static_cast<size_t>(words * kWarps * kLanes), 0), next);
    }
    for (const PtxStmt& st : f.body)
      if (st.instr) {
        const std::string& op = st.instr->parts.at(0);
        shfl |= op == "shfl", vote |= op == "vote" || op == "activemask";
      }
  }
  if (shfl) {
    l.env.shfl_word = next;
    l.summary += fmt::format(", shuffles {}", kWarps * kLanes);
    place(l, "__shfl", std::vector<uint32_t>(kWarps * kLanes, 0), next);
  }
  if (vote) {
    l.env.vote_word = next;
    l.summary += fmt::format(", votes {}", kWarps);
    place(l, "__vote", std::vector<uint32_t>(kWarps, 0), next);
  }
}

// Scalar parameters live in memory words, as in PTX's parameter space, after everything
// else (the arrays keep the addresses they had when scalars were immediates): the kernel
// loads them, so no arithmetic on its inputs can happen here, in the compiler.
void place_scalars(Layout& l, int& next, const PtxFunction& k, const std::vector<CudaParam>& params,
                   const CompileOptions& o) {
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i].pointer) continue;
    const KernelArg& a = find_arg(o, params[i]);
    l.env.param_value[k.params[i].name] = 4 * next;
    l.env.scalar_params.insert(k.params[i].name);
    if (params[i].wide == 1) l.env.signed_wide_params.insert(k.params[i].name);
    l.summary += fmt::format(", {} 1", a.name);
    place(l, a.name, arg_words(a, params[i]), next);
    l.arrays.back().is_float = params[i].is_float;  // printed as a float, as a float * array is
    l.arrays.back().elem_signed = params[i].elem_signed;  // an unsigned scalar printed unsigned
  }
}

Layout layout(const PtxModule& m, const PtxFunction& k, std::string_view source, const std::vector<CudaParam>& params,
              const CompileOptions& o) {
  Layout l;
  l.env.ctas_per_wave = ctas_per_wave(o.launch);
  const Reach r = reach(m, k);
  // A kernel that compares pointers (p != NULL) finds no array at address 0: word 0 stays
  // unwritten (a load of it is a trap, as a null dereference would be).
  int next = compares_64(m, r) ? 1 : 0;
  place_arrays(l, next, k, params, o);
  for (const KernelArg& a : o.args) {
    bool known = false;
    for (const CudaParam& p : params) known |= p.name == a.name;
    for (const PtxVar& g : m.globals) known |= g.space != ".shared" && variable_name(g.name) == a.name;
    if (!known)
      fail("--arg {}: the kernel has no parameter '{}' (nor a __device__ or __constant__ variable of that name)",
           a.name, a.name);
  }
  place_globals(l, next, m, source, o);
  place_shared(l, next, m, k, r, o);
  place_lane_words(l, next, m, r);
  place_scalars(l, next, k, params, o);
  if (next > kMemWords)
    fail("the kernel's memory needs {} words ({}); global memory has {} ({} too many): use smaller "
         "arrays, or larger CUDA blocks (fewer __shared__ copies)", next, l.summary, kMemWords, next - kMemWords);
  return l;
}

Operand machine_operand(const IrOperand& o) {
  switch (o.kind) {
    case IrOperand::Kind::kNone: return {};
    case IrOperand::Kind::kVReg: return reg(o.index);
    case IrOperand::Kind::kPred: return pred(o.index);
    case IrOperand::Kind::kSpecial: return special(static_cast<Special>(o.index));
    case IrOperand::Kind::kImm: return imm();
  }
  CHECK(false);
}

Instr machine_instr(const IrInstr& in) {
  Instr out{.op = in.op, .line = in.line, .float_d = in.float_d};
  if (in.guard >= 0) out.guard = {static_cast<int8_t>(in.guard), in.guard_negated};
  out.d = machine_operand(in.d);
  out.a = machine_operand(in.a);
  out.b = machine_operand(in.b);
  out.c = machine_operand(in.c);
  Form f = op_info(in.op).form;
  bool memory = f == Form::kLoad || f == Form::kStore || f == Form::kAtom || f == Form::kCas;
  int64_t v = memory ? in.offset : in.op == Op::kBra ? in.target : 0;
  for (const IrOperand* o : {&in.a, &in.b, &in.c})
    if (o->kind == IrOperand::Kind::kImm) v = o->imm;
  out.imm = static_cast<int32_t>(static_cast<uint32_t>(v));
  return out;
}

Program emit(const std::string& kernel, const IrFunction& f, const Layout& l, const Launch& launch) {
  Program p;
  p.kernel = kernel;
  p.launch = launch;
  p.arrays = l.arrays;
  for (const IrInstr& in : f.code) p.code.push_back(machine_instr(in));
  std::vector<std::string> problems = check_program(p);
  if (!problems.empty()) {
    std::string all;
    for (const std::string& m : problems) all += (all.empty() ? "" : "\n") + m;
    fail("the compiled kernel does not fit the machine:\n{}", all);
  }
  return p;
}

}  // namespace

// Lowered, optimised, allocated and emitted (the emit checks the machine's limits).
void finish(CompiledKernel& out, const PtxModule& m, const PtxFunction& k, const Layout& l, const CompileOptions& o) {
  try {
    out.ir = lower_kernel(m, k, l.env);
  } catch (const Error& e) {
    // A compare of 64-bit values that are not all addresses (a size_t index): again, with
    // every 64-bit value's high half (lower_wide.cpp), which only such kernels pay for.
    const std::string_view what = e.what();
    if (l.env.wide || (what.find(kNoPointerCompare) == what.npos && what.find(kNoHighHalf) == what.npos)) throw;
    LowerEnv wide = l.env;
    wide.wide = true;
    out.ir = lower_kernel(m, k, wide);
  }
  optimise(out.ir);
  // Not with shared float copies: their returns branch to every call site, so along paths
  // that never run a value looks read before written, and the registers set at entry would
  // stay live across the whole kernel (mandelbrot_float would pass the ROM).
  if (l.env.shared_float_ops.empty()) define_before_use(out.ir);
  legalise(out.ir);
  int next = 0;
  for (const Array& x : l.arrays) next = std::max(next, x.base + x.size);
  out.allocated = allocate_registers(out.ir, {.first_word = next, .words = kMemWords - next});
  if (out.allocated.spill_words == 0) {
    out.program = emit(out.kernel, out.allocated, l, o.launch);
    return;
  }
  // The words values were spilled to, after everything else; written zero in the image.
  Layout spilled = l;
  spilled.summary += fmt::format(", spilled values {}", out.allocated.spill_words);
  place(spilled, "__spill", std::vector<uint32_t>(static_cast<size_t>(out.allocated.spill_words), 0), next);
  out.program = emit(out.kernel, out.allocated, spilled, o.launch);
}

// How often the optimised kernel has each float op (after fold_fma; sub counts as add).
std::map<Op, int> float_op_uses(const PtxModule& m, const PtxFunction& k, LowerEnv env) {
  env.float_sequences = false;
  IrFunction f = lower_kernel(m, k, env);
  optimise(f);
  std::map<Op, int> uses;
  for (const IrInstr& in : f.code) {
    const Op op = fold_fma(in).op;
    ++uses[op == Op::kSubF ? Op::kAddF : op];
  }
  return uses;
}

// The float arithmetic ops with a sequence that the optimised kernel has more than once.
// add and sub (2 and 3 steps) and the conversions (13-18 ops) stay inlined: a call's 7
// blocks would save little or nothing.
std::set<Op> repeated_float_ops(std::map<Op, int> uses) {
  std::set<Op> out;
  for (Op op : {Op::kMulF, Op::kDivF, Op::kSqrtF, Op::kFmaF})
    if (uses[op] > 1) out.insert(op);
  return out;
}

// The second and third tries of compile_ptx, when the inlined sequences pass the ROM (or
// the registers): one shared copy of each repeated op; then, for a kernel with an fma and
// a mul, the fma's copy for both (and div's and sqrt's when repeated).
std::vector<LowerEnv> shared_tries(const PtxModule& m, const PtxFunction& k, const LowerEnv& env) {
  std::map<Op, int> uses = float_op_uses(m, k, env);
  std::vector<LowerEnv> tries;
  LowerEnv shared = env;
  shared.shared_float_ops = repeated_float_ops(uses);
  if (!shared.shared_float_ops.empty()) tries.push_back(shared);
  if (uses[Op::kFmaF] > 0 && uses[Op::kMulF] > 0) {
    LowerEnv fma = env;
    fma.fma_for_all = true;
    fma.shared_float_ops = {Op::kFmaF};
    for (Op op : {Op::kDivF, Op::kSqrtF})
      if (uses[op] > 1) fma.shared_float_ops.insert(op);
    tries.push_back(fma);
  }
  return tries;
}

CompiledKernel compile_ptx(std::string_view ptx, std::string_view source, const CompileOptions& o) {
  CompiledKernel out;
  out.ptx = std::string(ptx);
  // Diagnostics name the CUDA line behind a PTX line (clang's .loc directives), else the
  // PTX line, as --dump=ptx prints it.
  const PtxSourceMap lines = map_ptx_lines(ptx, o.file, source);
  PtxModule m = parse_ptx(lines.ptx, [&](int line, int col, std::string_view message) {
    return lines.diagnostic(line, col, message);
  });
  const PtxFunction& k = select_kernel(m, o.kernel, o.file);
  const KernelName name = kernel_name(k.name);
  out.kernel = name.name;
  std::optional<std::vector<CudaParam>> params = kernel_params(source, name, k.params.size());
  if (!params) fail("{}: cannot find the parameter list of kernel '{}' in the source", o.file, name.signature);
  if (params->size() != k.params.size())
    fail("{}: kernel '{}' has {} parameters in the source but {} in PTX", o.file, name.signature, params->size(),
         k.params.size());
  for (const CudaParam& p : *params)
    if (p.pointer) out.outputs.push_back(p.name);
  Layout l = layout(m, k, source, *params, o);
  l.env.source = &lines;
  l.env.float_sequences = o.float_sequences;
  try {
    finish(out, m, k, l, o);
  } catch (const Error&) {
    // Inlined, the sequences passed the ROM (or the registers): shared copies may fit
    // (shared_tries). If none does, the inlined form's error stands.
    if (!o.float_sequences) throw;
    for (const LowerEnv& env : shared_tries(m, k, l.env)) {
      Layout shared = l;
      shared.env = env;
      try {
        finish(out, m, k, shared, o);
        return out;
      } catch (const Error&) {
      }
    }
    throw;
  }
  return out;
}

// A template kernel named with its arguments (--kernel 'reduce<int,16>') is instantiated
// for the launch, as a launch of it in host code would: a reference to it after the file.
std::string compile_cuda_to_ptx(const CompileOptions& o) {
  std::string instantiate;
  if (is_template_id(o.kernel))
    instantiate = fmt::format("static void *const __qgpu_launched_kernel = (void *)&{};\n", o.kernel);
  return compile_to_ptx(o.file, o.opt_level, instantiate);
}

CompiledKernel compile_cuda(std::string_view source, const CompileOptions& o) {
  std::string ptx = compile_cuda_to_ptx(o);
  try {
    return compile_ptx(ptx, source, o);
  } catch (const Error& e) {
    if (o.opt_level != "-O0") throw;
    throw Error(fmt::format("{}\nat -O0 clang keeps every variable in a stack of 64-bit words, which the machine "
                            "cannot hold: compile at -Os (the default) or -O1, -O2, -O3, -Oz", e.what()));
  }
}

CompiledKernel compile_cuda_text(std::string_view source, const CompileOptions& o) {
  std::string path = (std::filesystem::temp_directory_path() / "qgpu_kernel_XXXXXX.cu").string();
  const int fd = mkstemps(path.data(), 3);
  if (fd < 0) fail("cannot create a temporary .cu file in {}", std::filesystem::temp_directory_path().string());
  close(fd);
  struct Remove {
    std::string path;
    ~Remove() { std::filesystem::remove(path); }
  } remove{path};
  { std::ofstream(path, std::ios::binary) << source; }
  CompileOptions at = o;
  at.file = path;
  try {
    return compile_cuda(source, at);
  } catch (const Error& e) {
    std::string text = e.what();  // diagnostics name the kernel's own name, not the copy
    for (size_t i; (i = text.find(path)) != std::string::npos;) text.replace(i, path.size(), o.file);
    throw Error(text);
  }
}

}  // namespace qgpu
