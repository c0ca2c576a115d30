// Program checks against the machine's limits and the op table's operand forms, launch
// arithmetic (warps, waves), and the printer. The parser is in asm.cpp.
#include "gpu/program.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/error.h"

namespace qgpu {
namespace {

bool is_none(Operand o) { return o.kind == OperandKind::kNone; }
bool is_reg(Operand o) { return o.kind == OperandKind::kReg; }
bool is_pred(Operand o) { return o.kind == OperandKind::kPred; }
bool is_imm(Operand o) { return o.kind == OperandKind::kImm; }
bool is_value(Operand o) { return is_reg(o) || o.kind == OperandKind::kSpecial || is_imm(o); }
bool is_register_value(Operand o) { return is_reg(o) || o.kind == OperandKind::kSpecial; }
bool is_pred_source(Operand o) { return is_pred(o) || is_imm(o); }
bool is_base(Operand o) { return is_none(o) || is_register_value(o); }

// What each operand field may hold, per form: a predicate over Operand per field.
using Accept = bool (*)(Operand);
struct FormRule {
  Accept d, a, b, c;
  const char* shape;  // for messages
};

FormRule form_rule(Form f) {
  switch (f) {
    case Form::kNone: return {is_none, is_none, is_none, is_none, "no operands"};
    case Form::kDA: return {is_reg, is_value, is_none, is_none, "rD, A"};
    case Form::kDAB: return {is_reg, is_value, is_value, is_none, "rD, A, B"};
    case Form::kDABC: return {is_reg, is_value, is_value, is_value, "rD, A, B, C"};
    case Form::kDABP: return {is_reg, is_value, is_value, is_pred, "rD, A, B, pC"};
    case Form::kPAB: return {is_pred, is_value, is_value, is_none, "pD, A, B"};
    case Form::kPPP: return {is_pred, is_pred_source, is_pred_source, is_none, "pD, pA, pB"};
    case Form::kPP: return {is_pred, is_pred_source, is_none, is_none, "pD, pA"};
    case Form::kLoad: return {is_reg, is_base, is_none, is_none, "rD, [A+imm]"};
    case Form::kStore: return {is_none, is_base, is_register_value, is_none, "[A+imm], rB"};
    case Form::kAtom: return {is_reg, is_base, is_register_value, is_none, "rD, [A+imm], rB"};
    case Form::kCas:
      return {is_reg, is_base, is_register_value, is_register_value, "rD, [A+imm], rB, rC"};
    case Form::kBranch: return {is_none, is_none, is_none, is_none, "target"};
  }
  CHECK(false);
}

std::vector<std::string> check_operands(const Instr& in) {
  const OpInfo& info = op_info(in.op);
  FormRule rule = form_rule(info.form);
  std::vector<std::string> out;
  if (!rule.d(in.d) || !rule.a(in.a) || !rule.b(in.b) || !rule.c(in.c))
    out.push_back(fmt::format("operands do not fit '{} {}'", info.mnemonic, rule.shape));
  int n_imm = is_imm(in.a) + is_imm(in.b) + is_imm(in.c);
  const bool memory = info.form == Form::kLoad || info.form == Form::kStore || info.form == Form::kAtom || info.form == Form::kCas;
  if (n_imm > 1 && memory)  // value operands may share the one immediate word
    out.push_back("at most one immediate per instruction: move the others into registers");
  bool pred_imm = info.form == Form::kPPP || info.form == Form::kPP;
  if (pred_imm && n_imm == 1 && in.imm != 0 && in.imm != 1)
    out.push_back(fmt::format("predicate immediate must be 0 or 1, not {}", in.imm));
  if (info.effect == Effect::kPred && in.guard.pred >= 0 && is_pred(in.d) &&
      in.d.index == in.guard.pred)
    out.push_back("a guarded instruction cannot write its own guard predicate");
  return out;
}

}  // namespace

std::vector<std::string> check_instr(const Instr& in, int n_blocks) {
  std::vector<std::string> out = check_operands(in);
  if (op_info(in.op).form == Form::kBranch && (in.imm < 0 || in.imm >= n_blocks))
    out.push_back(fmt::format("branch target {} is outside the program (blocks 0..{})", in.imm,
                              n_blocks - 1));
  return out;
}

std::vector<ProgramProblem> program_problems(const Program& p) {
  std::vector<ProgramProblem> out;
  int n = static_cast<int>(p.code.size());
  if (n == 0) out.push_back({"the program has no instructions"});
  if (n > kBlocks)
    out.push_back({fmt::format("the program has {} blocks; the ROM holds {} ({} too many): "
                               "simplify the kernel or split it into several launches",
                               n, kBlocks, n - kBlocks), kBlocks});
  for (int i = 0; i < n; ++i)
    for (const std::string& m : check_instr(p.code[i], n))
      out.push_back({fmt::format("block {} ({}): {}", i, instr_text(p.code[i]), m), i});
  if (n > 0) {
    const Instr& last = p.code.back();
    bool ends = last.guard.pred < 0 && (last.op == Op::kExit || last.op == Op::kBra);
    if (!ends)
      out.push_back({fmt::format("block {} ({}): the last block must be 'exit' or an unguarded "
                                 "'bra', or lanes run off the end of the program",
                                 n - 1, instr_text(last)), n - 1});
  }
  int used = 0, crossing = -1;
  for (int i = 0; i < static_cast<int>(p.arrays.size()); ++i) {
    const Array& a = p.arrays[i];
    CHECK(static_cast<int>(a.init.size()) == a.size);
    used += a.size;
    if (crossing < 0 && a.base + a.size > kMemWords) crossing = i;
    if (a.base < 0 || a.size < 1)
      out.push_back({fmt::format("array '{}': base {} and size {} must be >= 0 and >= 1", a.name,
                                 a.base, a.size), -1, i});
    if (i > 0 && a.base < p.arrays[i - 1].base + p.arrays[i - 1].size)
      out.push_back({fmt::format("array '{}' overlaps array '{}'", a.name, p.arrays[i - 1].name), -1, i});
  }
  int top = p.arrays.empty() ? 0 : p.arrays.back().base + p.arrays.back().size;
  if (top > kMemWords)
    out.push_back({fmt::format("the arrays need words 0..{} ({} words in use); global memory has "
                               "{} words ({} too many): make the arrays smaller",
                               top - 1, used, kMemWords, top - kMemWords), -1, crossing});
  for (ProgramProblem& m : launch_problems(p.launch)) out.push_back(std::move(m));
  return out;
}

std::vector<std::string> check_program(const Program& p) {
  std::vector<std::string> out;
  for (const ProgramProblem& m : program_problems(p)) out.push_back(m.text);
  return out;
}

std::vector<ProgramProblem> launch_problems(const Launch& l) {
  std::vector<ProgramProblem> out;
  if (l.grid_x < 1 || l.grid_y < 1 || l.block_x < 1 || l.block_y < 1) {
    out.push_back({fmt::format("launch dimensions must be >= 1 (grid {}x{}, block {}x{})",
                               l.grid_x, l.grid_y, l.block_x, l.block_y)});
    return out;
  }
  int64_t blocks = static_cast<int64_t>(l.grid_x) * l.grid_y;
  if (blocks > kMaxGridBlocks)
    out.push_back({fmt::format("grid {}x{} = {} CUDA blocks; a launch runs at most {} ({} too "
                               "many): use fewer, larger CUDA blocks or loop inside the kernel",
                               l.grid_x, l.grid_y, blocks, kMaxGridBlocks, blocks - kMaxGridBlocks),
                   -1, -1, 1});
  int64_t threads = static_cast<int64_t>(l.block_x) * l.block_y;
  if (threads > kMaxBlockThreads)
    out.push_back({fmt::format("CUDA block {}x{} = {} threads; the machine has {} ({} warps of {} "
                               "lanes), {} too many: use more CUDA blocks",
                               l.block_x, l.block_y, threads, kMaxBlockThreads, kWarps, kLanes,
                               threads - kMaxBlockThreads), -1, -1, 2});
  return out;
}

std::vector<std::string> check_launch(const Launch& l) {
  std::vector<std::string> out;
  for (const ProgramProblem& m : launch_problems(l)) out.push_back(m.text);
  return out;
}

int block_threads(const Launch& l) { return l.block_x * l.block_y; }
int warps_per_cta(const Launch& l) { return (block_threads(l) + kLanes - 1) / kLanes; }
int ctas_per_wave(const Launch& l) { return kWarps / warps_per_cta(l); }
int wave_count(const Launch& l) {
  int blocks = l.grid_x * l.grid_y;
  return (blocks + ctas_per_wave(l) - 1) / ctas_per_wave(l);
}

// ---- Printing.

namespace {

std::string operand_text(Operand o, int32_t imm) {
  switch (o.kind) {
    case OperandKind::kNone: return "";
    case OperandKind::kReg: return fmt::format("r{}", o.index);
    case OperandKind::kPred: return fmt::format("p{}", o.index);
    case OperandKind::kSpecial: return std::string(kSpecials[o.index].name);
    case OperandKind::kImm: return std::to_string(imm);
  }
  CHECK(false);
}

std::string address_text(Operand base, int32_t offset) {
  if (base.kind == OperandKind::kNone) return fmt::format("[{}]", offset);
  std::string b = operand_text(base, 0);
  if (offset == 0) return fmt::format("[{}]", b);
  return fmt::format("[{}{}{}]", b, offset < 0 ? "-" : "+",
                     offset < 0 ? -static_cast<int64_t>(offset) : offset);
}

std::string operands_text(const Instr& in, const std::string& target) {
  auto t = [&](Operand o) { return operand_text(o, in.imm); };
  std::string addr = address_text(in.a, in.imm);
  switch (op_info(in.op).form) {
    case Form::kNone: return "";
    case Form::kDA: case Form::kPP: return fmt::format("{}, {}", t(in.d), t(in.a));
    case Form::kDAB: case Form::kPAB: case Form::kPPP:
      return fmt::format("{}, {}, {}", t(in.d), t(in.a), t(in.b));
    case Form::kDABC: case Form::kDABP:
      return fmt::format("{}, {}, {}, {}", t(in.d), t(in.a), t(in.b), t(in.c));
    case Form::kLoad: return fmt::format("{}, {}", t(in.d), addr);
    case Form::kStore: return fmt::format("{}, {}", addr, t(in.b));
    case Form::kAtom: return fmt::format("{}, {}, {}", t(in.d), addr, t(in.b));
    case Form::kCas: return fmt::format("{}, {}, {}, {}", t(in.d), addr, t(in.b), t(in.c));
    case Form::kBranch: return target;
  }
  CHECK(false);
}

std::string instr_text_with(const Instr& in, const std::string& target) {
  std::string s;
  if (in.guard.pred >= 0) s = fmt::format("@{}p{} ", in.guard.negate ? "!" : "", in.guard.pred);
  s += op_info(in.op).mnemonic;
  std::string ops = operands_text(in, target);
  if (!ops.empty()) s += " " + ops;
  return s;
}

std::string array_text(const Array& a) {
  std::string s = fmt::format(".array {} {} @{}", a.name, a.size, a.base);
  bool zero = std::all_of(a.init.begin(), a.init.end(), [](uint32_t v) { return v == 0; });
  if (zero) return s;
  s += " =";
  for (size_t i = 0; i < a.init.size(); ++i)
    s += fmt::format("{} {}", i ? "," : "", static_cast<int32_t>(a.init[i]));
  return s;
}

}  // namespace

std::string instr_text(const Instr& in) { return instr_text_with(in, std::to_string(in.imm)); }

std::string disassemble(const Program& p) {
  std::vector<bool> is_target(p.code.size() + 1, false);
  for (const Instr& in : p.code)
    if (in.op == Op::kBra && in.imm >= 0 && in.imm < static_cast<int>(p.code.size()))
      is_target[in.imm] = true;
  std::string s = fmt::format(".kernel {}\n.grid {} {}\n.block {} {}\n", p.kernel,
                              p.launch.grid_x, p.launch.grid_y, p.launch.block_x,
                              p.launch.block_y);
  for (const Array& a : p.arrays) s += array_text(a) + "\n";
  for (size_t i = 0; i < p.code.size(); ++i) {
    if (is_target[i]) s += fmt::format("L{}:\n", i);
    s += "    " + instr_text_with(p.code[i], fmt::format("L{}", p.code[i].imm)) + "\n";
  }
  return s;
}

std::vector<int64_t> array_elements(const Array& a, const std::vector<uint32_t>& words) {
  std::vector<int64_t> out;
  if (a.elem_bytes == 4) {
    for (uint32_t w : words) out.push_back(a.elem_signed ? int64_t{static_cast<int32_t>(w)} : int64_t{w});
    return out;
  }
  const int bits = 8 * a.elem_bytes;
  for (int i = 0; i < a.count && (i * a.elem_bytes) / 4 < static_cast<int>(words.size()); ++i) {
    const int byte = i * a.elem_bytes;
    const uint32_t v = (words[byte / 4] >> (8 * (byte % 4))) & ((1u << bits) - 1);
    out.push_back(a.elem_signed && (v >> (bits - 1)) ? static_cast<int64_t>(v) - (int64_t{1} << bits) : v);
  }
  return out;
}

}  // namespace qgpu
