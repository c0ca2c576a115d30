// Renders the tables of isa.h and vocab.h. Nothing here restates a value: every number
// and word comes from the tables.
#include "gpu/isa_doc.h"

#include <fmt/format.h>

#include "gpu/isa.h"
#include "gpu/vocab.h"

namespace qgpu {
namespace {

std::string_view form_text(Form f) {
  switch (f) {
    case Form::kNone: return "";
    case Form::kDA: return "rD, A";
    case Form::kDAB: return "rD, A, B";
    case Form::kDABC: return "rD, A, B, C";
    case Form::kDABP: return "rD, A, B, pC";
    case Form::kPAB: return "pD, A, B";
    case Form::kPPP: return "pD, pA, pB";
    case Form::kPP: return "pD, pA";
    case Form::kLoad: return "rD, [A+imm]";
    case Form::kStore: return "[A+imm], rB";
    case Form::kAtom: return "rD, [A+imm], rB";
    case Form::kCas: return "rD, [A+imm], rB, rC";
    case Form::kBranch: return "target";
  }
  return "?";
}

std::string_view effect_text(Effect e) {
  switch (e) {
    case Effect::kValue: return "value";
    case Effect::kPred: return "pred";
    case Effect::kStore: return "store";
    case Effect::kAtomic: return "atomic";
    case Effect::kBranch: return "branch";
    case Effect::kBarrier: return "barrier";
    case Effect::kExit: return "exit";
  }
  return "?";
}

std::string_view phase_text(PipelinePhase s) {
  switch (s) {
    case PipelinePhase::kImage: return "image";
    case PipelinePhase::kFetch: return "fetch";
    case PipelinePhase::kExecute: return "execute";
    case PipelinePhase::kMemory: return "memory";
    case PipelinePhase::kWriteback: return "write-back";
  }
  return "?";
}

constexpr std::pair<const char*, int> kConstantRows[] = {
    {"lanes per warp", kLanes},          {"resident warps", kWarps},
    {"registers per lane (r0..)", kRegs}, {"predicates per lane (p0..)", kPreds},
    {"ROM blocks", kBlocks},              {"memory words", kMemWords},
    {"threads per CUDA block", kMaxBlockThreads}, {"CUDA blocks per launch", kMaxGridBlocks},
    {"smallest one-token value", kSmallMin},      {"largest one-token value", kSmallMax},
};

std::string constants() {
  std::string s = "| constant | value |\n|---|---|\n";
  for (const auto& [name, v] : kConstantRows) s += fmt::format("| {} | {} |\n", name, v);
  return s;
}

std::string ops() {
  std::string s = "| # | op | operands | effect | meaning |\n|---|---|---|---|---|\n";
  for (const OpInfo& o : kOps)
    s += fmt::format("| {} | `{}` | {} | {} | {} |\n", static_cast<int>(o.op), o.mnemonic,
                     form_text(o.form), effect_text(o.effect), o.meaning);
  return s;
}

std::string specials() {
  std::string s = "| special | field code | meaning |\n|---|---|---|\n";
  for (const SpecialInfo& sp : kSpecials)
    s += fmt::format("| `{}` | {} | {} |\n", sp.name, field_code(special(sp.special)), sp.meaning);
  return s;
}

std::string families() {
  std::string s = "| family | first id | ids | phase | fields | meaning |\n|---|---|---|---|---|---|\n";
  for (const Family& f : kFamilies)
    s += fmt::format("| `{}` | {} | {} | {} | {} | {} |\n", f.name, family_offset(f.kind), f.size,
                     phase_text(f.phase), f.fields, f.meaning);
  return s + fmt::format("\nVocabulary size: **{}** tokens.\n", vocab_size());
}

std::string field_codes() {
  return fmt::format(
      "Operand field codes: 0 none, 1..{} r0..r{}, {}..{} p0..p{}, then the specials above, "
      "{} imm. Guard codes: 0 none, 1..{} @p0..@p{}, {}..{} @!p0..@!p{}.",
      kRegs, kRegs - 1, kRegs + 1, kRegs + kPreds, kPreds - 1, kFieldCodes - 1, kPreds, kPreds - 1, kPreds + 1,
      2 * kPreds, kPreds - 1);
}

// A family's token ids: "3..258", or "0" for a family of one.
std::string id_range(const Family& f) {
  const int first = family_offset(f.kind);
  return f.size == 1 ? std::to_string(first) : fmt::format("{}..{}", first, first + f.size - 1);
}

}  // namespace

std::string isa_text() {
  std::string s = "Machine constants\n";
  for (const auto& [name, v] : kConstantRows) s += fmt::format("  {:<28} {}\n", name, v);
  s += "\nOps (mnemonic, operands, meaning)\n";
  for (const OpInfo& o : kOps) s += fmt::format("  {:<12} {:<18} {}\n", o.mnemonic, form_text(o.form), o.meaning);
  s += "\nSpecial registers (name, field code, meaning)\n";
  for (const SpecialInfo& sp : kSpecials)
    s += fmt::format("  {:<12} {:<4} {}\n", sp.name, field_code(special(sp.special)), sp.meaning);
  s += fmt::format("\n{}\n", field_codes());
  s += fmt::format("\nToken vocabulary: {} ids (family, ids, phase, fields: meaning)\n", vocab_size());
  for (const Family& f : kFamilies)
    s += fmt::format("  {:<6} {:<12} {:<10} {}{}\n", f.name, id_range(f), phase_text(f.phase), f.fields,
                     f.fields.empty() ? f.meaning : fmt::format(": {}", f.meaning));
  return s;
}

std::string isa_markdown() {
  return fmt::format(
      "### Machine constants\n\n{}\n### Ops\n\n{}\n### Special registers\n\n{}\n{}\n\n"
      "### Token families\n\n{}",
      constants(), ops(), specials(), field_codes(), families());
}

}  // namespace qgpu
