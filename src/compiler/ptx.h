// PTX as clang 14-19 (and nvcc, where it stays in the subset) emit it for ordinary kernels:
// the syntax tree the parser builds and the lowering reads. Names are PTX's own spelling.
// ../shared/reference/ptx.md sections 6-9 list every construct this must accept.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace qgpu {

enum class PtxOperandKind : uint8_t {
  kReg,       // %r5, %rd3, %p1, %rs2, %f4; also %SP / %SPL
  kSpecial,   // %tid.x, %ntid.y, %ctaid.x, %nctaid.x, %laneid, %warpid, ...
  kImm,       // 42, -7, 0x1F  (integer immediate)
  kFloatImm,  // 0f3FC00000 (f32 bits) or 0d... (f64 bits), kept as raw bits
  kSymbol,    // a variable, function or label name used as a value: mov.u64 %rd1, sym; bra LBB0_2
  kAddress,   // [base], [base+imm], [base-imm], [imm]; base is a register or a symbol
  kList,      // ( a, b, ... ) in call.uni: names of .param variables
};

struct PtxOperand {
  PtxOperandKind kind = PtxOperandKind::kImm;
  std::string name;                 // register, special, symbol, the address base ("" for [imm]), or a float's text
  bool base_is_reg = false;         // for kAddress: base is a register (else a symbol or none)
  int64_t imm = 0;                  // immediate, float bits, or address offset
  std::vector<std::string> list;    // kList entries
  int col = 0;                      // 1-based column in the source line
  int line = 0;                     // 1-based source line (call.uni spans several)
};

struct PtxInstr {
  std::string opcode;               // full dotted opcode: "ld.global.u32", "setp.ge.s32", "bra.uni"
  std::vector<std::string> parts;   // opcode split at '.': {"ld", "global", "u32"}
  std::string guard;                // predicate register of "@%p1" / "@!%p1", "" when unguarded
  bool guard_negated = false;
  std::vector<PtxOperand> operands;
  int line = 0, col = 0;            // where the instruction starts (col of the guard or opcode)
};

// A variable or parameter declaration: .param/.reg/.shared/.global/.const/.local.
struct PtxVar {
  std::string space;                // ".param", ".reg", ".shared", ".global", ".const", ".local"
  std::string type;                 // ".u32", ".b8", ".u64", ".pred", ".f32", ...
  std::string name;                 // for ".reg .b32 %r<9>" the prefix "%r", with count = 9
  int count = 0;                    // ".reg %r<N>": N; otherwise 0
  int align = 0;                    // .align N, 0 when absent
  int64_t array_size = -1;          // "name[N]": N elements of `type`; -1 when scalar
  bool unsized = false;             // "name[]": an .extern array sized at launch (dynamic shared memory)
  std::vector<int64_t> init;        // "= {1, 2, ...}" or "= 5": elements of `type`
  bool visible = false;             // .visible / .extern linkage
  int line = 0;
};

// One statement of a function body, in order: a label or an instruction.
struct PtxStmt {
  std::optional<std::string> label; // "LBB0_2" / "$L__BB0_2"
  std::optional<PtxInstr> instr;
};

struct PtxFunction {
  bool is_entry = false;            // .entry (kernel) or .func (device function)
  std::string name;
  std::vector<PtxVar> params;       // in order
  std::vector<PtxVar> returns;      // .func (.param .b32 func_retval0) ...
  std::vector<PtxVar> locals;       // .reg / .shared / .local / .param declared in the body,
                                    // including those inside { } call-sequence blocks
  std::vector<std::string> directives;  // ".maxntid 4, 1, 1", ".pragma \"nounroll\"", ...
  std::vector<PtxStmt> body;        // call-sequence braces are flattened away
  int line = 0;
};

struct PtxModule {
  std::string version;              // ".version 6.3" -> "6.3"
  std::string target;               // ".target sm_75" -> "sm_75"
  int address_size = 64;
  std::vector<PtxVar> globals;      // module-scope .global / .const / .shared variables
  std::vector<PtxFunction> functions;
};

// Parses PTX text. Throws Error listing every syntax problem, each as
// "file:line:col: message", the source line and a caret.
PtxModule parse_ptx(std::string_view text, std::string_view file);
// The same, each problem written by where(line, col, message) (compile_ptx: at the CUDA line
// behind the PTX line, ptx_lines.h).
using PtxWhere = std::function<std::string(int line, int col, std::string_view message)>;
PtxModule parse_ptx(std::string_view text, const PtxWhere& where);

}  // namespace qgpu
