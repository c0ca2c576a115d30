// IR helpers shared by the lowering passes: uses and defs for liveness, successors for
// the control-flow graph, and the --dump=ir text.
#include "compiler/ir.h"

#include <fmt/format.h>

namespace qgpu {
namespace {

bool is_register(const IrOperand& o) {
  return o.kind == IrOperand::Kind::kVReg || o.kind == IrOperand::Kind::kPred;
}

std::string operand_text(const IrFunction& f, const IrOperand& o) {
  switch (o.kind) {
    case IrOperand::Kind::kNone: return "_";
    case IrOperand::Kind::kVReg: return f.vreg_names.at(o.index);
    case IrOperand::Kind::kPred: return f.pred_names.at(o.index);
    case IrOperand::Kind::kSpecial: return std::string(kSpecials[o.index].name);
    case IrOperand::Kind::kImm: return std::to_string(o.imm);
  }
  return "?";
}

}  // namespace

std::vector<IrOperand> ir_uses(const IrInstr& in) {
  std::vector<IrOperand> out;
  for (const IrOperand* o : {&in.a, &in.b, &in.c})
    if (is_register(*o)) out.push_back(*o);
  if (in.guard >= 0) out.push_back(ir_pred(in.guard));
  return out;
}

IrOperand ir_def(const IrInstr& in) { return is_register(in.d) ? in.d : IrOperand{}; }

bool ir_has_side_effect(const IrInstr& in) {
  Effect e = op_info(in.op).effect;
  return e != Effect::kValue && e != Effect::kPred;
}

std::vector<int> ir_successors(const IrFunction& f, int i) {
  const IrInstr& in = f.code[i];
  bool last = i + 1 >= static_cast<int>(f.code.size());
  if (in.op == Op::kExit && in.guard < 0) return {};
  if (in.op == Op::kBra && in.guard < 0) return {in.target};
  std::vector<int> out;
  if (!last) out.push_back(i + 1);
  if (in.op == Op::kBra) out.push_back(in.target);
  return out;
}

std::string ir_text(const IrFunction& f, const IrInstr& in) {
  std::string s;
  if (in.guard >= 0) s += fmt::format("@{}{} ", in.guard_negated ? "!" : "", f.pred_names.at(in.guard));
  s += op_info(in.op).mnemonic;
  if (in.op == Op::kBra) return s + fmt::format(" -> {}", in.target);
  std::vector<std::string> parts;
  if (in.d.kind != IrOperand::Kind::kNone) parts.push_back(operand_text(f, in.d));
  Form form = op_info(in.op).form;
  bool memory = form == Form::kLoad || form == Form::kStore || form == Form::kAtom || form == Form::kCas;
  if (memory) {
    std::string base = in.a.kind == IrOperand::Kind::kNone ? "" : operand_text(f, in.a) + "+";
    parts.push_back(fmt::format("[{}{}]", base, in.offset));
  } else if (in.a.kind != IrOperand::Kind::kNone) {
    parts.push_back(operand_text(f, in.a));
  }
  for (const IrOperand* o : {&in.b, &in.c})
    if (o->kind != IrOperand::Kind::kNone) parts.push_back(operand_text(f, *o));
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? ", " : " ") + parts[i];
  return s;
}

std::string ir_dump(const IrFunction& f) {
  std::string s;
  for (size_t i = 0; i < f.code.size(); ++i)
    s += fmt::format("{:4}: {}\n", i, ir_text(f, f.code[i]));
  return s;
}

}  // namespace qgpu
