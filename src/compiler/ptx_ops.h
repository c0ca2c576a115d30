// Which machine op a PTX opcode becomes, or why it cannot: the opcode tables of the
// lowering, kept apart from its control flow.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir.h"
#include "compiler/ptx.h"
#include "gpu/isa.h"

namespace qgpu {

struct OpMapping {
  bool known = false;      // the opcode belongs to this family
  std::optional<Op> op;    // the machine op when supported
  std::string problem;     // why not, naming the CUDA construct, when unsupported
};

// add sub mul mad div rem neg abs min max and or xor not shl shr popc clz brev (and floats).
OpMapping arith_mapping(const PtxInstr& in);
// setp.CMP.TYPE
OpMapping setp_mapping(const PtxInstr& in);
// atom.SPACE.OP.TYPE / red.SPACE.OP.TYPE
OpMapping atom_mapping(const PtxInstr& in);

// A PTX special register as an operand: the machine's special, or a constant for the z
// dimension (launches are at most 2-D); nullopt for those the machine lacks.
std::optional<IrOperand> special_operand(const std::string& name);
// Why an opcode with no mapping at all is unsupported, naming the CUDA construct.
std::string opcode_hint(const std::string& op);

// PTX writes a true predicate immediate as 1 or -1; the machine takes 0 or 1.
void normalise_predicate_immediates(IrInstr& in);

// Why doubles are refused (types, constants, conversions).
inline constexpr const char* kNoDouble =
    "double is not supported: the machine's floating point is binary32 (write float, 1.5f, sqrtf)";

// cvt.RND.DTYPE.STYPE between f32 and 32-bit integers, or f32 to f32: the ops in order
// (a rounding to an integer first, where a float becomes an int other than toward zero),
// or the problem. `rnd` is "" when the instruction has none.
struct CvtMapping {
  std::vector<Op> ops;  // empty: a copy (cvt.f32.f32)
  std::string problem;
};
CvtMapping float_cvt_mapping(const PtxInstr& in);

bool is_float_type(std::string_view t);
bool is_64(std::string_view t);
std::string last_part(const PtxInstr& in);
bool has_part(const PtxInstr& in, std::string_view p);
// The CUDA construct behind an unsupported type suffix ("f32", "u8", ...), or "".
std::string type_problem(std::string_view t);
// 1 for u8/s8/b8, 2 for u16/s16/b16 (char and short data), else 0.
int small_bytes(std::string_view t);

}  // namespace qgpu
