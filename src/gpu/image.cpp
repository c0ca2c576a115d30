// The program image: the prompt tokens that load a launch header, the ROM and the
// arrays. Fields equal to their never-written default (0) are left out; every array
// word is written, so a load from an array never reads an unwritten word.
#include "base/error.h"
#include "gpu/interp.h"

namespace qgpu {
namespace {

void append_values(std::vector<Rec>& out, uint32_t v) {
  for (const Rec& r : value_records(kTagData, v)) out.push_back(r);
}

void append_block(std::vector<Rec>& out, int block, const Instr& in) {
  out.push_back({Tok::kRomAt, block});
  out.push_back({Tok::kOp, static_cast<int>(in.op)});
  if (int g = guard_code(in.guard)) out.push_back({Tok::kGuard, g});
  const std::pair<Tok, Operand> fields[] = {
      {Tok::kFieldD, in.d}, {Tok::kFieldA, in.a}, {Tok::kFieldB, in.b}, {Tok::kFieldC, in.c}};
  for (const auto& [tok, o] : fields)
    if (int code = field_code(o)) out.push_back({tok, code});
  if (in.imm != 0) append_values(out, static_cast<uint32_t>(in.imm));
}

}  // namespace

std::vector<Rec> encode_image(const Program& p, const Launch& l) {
  std::vector<Rec> out = {{Tok::kBegin},
                          {Tok::kGridX, l.grid_x},
                          {Tok::kGridY, l.grid_y},
                          {Tok::kBlockX, l.block_x},
                          {Tok::kBlockY, l.block_y}};
  for (size_t i = 0; i < p.code.size(); ++i) append_block(out, static_cast<int>(i), p.code[i]);
  for (const Array& a : p.arrays)
    for (int i = 0; i < a.size; ++i) {
      out.push_back({Tok::kMemAt, a.base + i});
      append_values(out, a.init[i]);
    }
  out.push_back({Tok::kRun});
  return out;
}

std::optional<Instr> rom_instr(const RomSlot& slot) {
  if (!slot.op) return std::nullopt;
  Instr in;
  in.op = *slot.op;
  in.guard = guard_from_code(slot.guard);
  in.d = operand_from_code(slot.d);
  in.a = operand_from_code(slot.a);
  in.b = operand_from_code(slot.b);
  in.c = operand_from_code(slot.c);
  in.imm = static_cast<int32_t>(slot.imm);
  return in;
}

}  // namespace qgpu
