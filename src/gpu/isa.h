// The qgpu machine, defined once as data.
//
// Machine constants, the opcode table, operand kinds and special registers. The
// assembler, printer, interpreter, the weight compiler and the chat panel all read
// these tables; nothing else in the tree may restate them. docs/isa.md is generated
// from here (`qgpu isa --markdown`) and a test keeps it in sync.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace qgpu {

// ---- Machine constants (the floor from the spec, or more where it stays cheap in weights).
inline constexpr int kLanes = 4;              // lanes per warp
inline constexpr int kWarps = 4;              // resident warps (16 threads)
inline constexpr int kRegs = 24;              // general 32-bit registers per lane: r0..r23
inline constexpr int kPreds = 4;              // predicate registers per lane: p0..p3
inline constexpr int kBlocks = 256;           // program ROM: one instruction per block
inline constexpr int kMemWords = 126;         // global memory, 32-bit words
inline constexpr int kMaxBlockThreads = kLanes * kWarps;  // threads per CUDA block
inline constexpr int kMaxGridBlocks = 256;    // CUDA blocks per launch (gx * gy)
inline constexpr int kMaxCtas = kWarps;       // CUDA blocks resident at once (one per warp at most)
inline constexpr int kSmallMin = -256;        // a value in [kSmallMin, kSmallMax] is one token
inline constexpr int kSmallMax = 511;   // byte addresses (0..503) fit

// What a step does besides advancing the program counter; decides its records.
enum class Effect : uint8_t {
  kValue,    // writes register d of every effective lane: value records
  kPred,     // writes predicate d of every effective lane: one pred record
  kStore,    // writes memory: one st record per effective lane
  kAtomic,   // read-modify-write of memory, old value to d: value records per lane
  kBranch,   // effective lanes jump to imm: one br record
  kBarrier,  // effective lanes wait at the CUDA block's barrier
  kExit,     // effective lanes finish
};

// Operand signature of an op: which of d, a, b, c are used and what they may hold.
enum class Form : uint8_t {
  kNone,    // bar, exit
  kDA,      // d = f(a)
  kDAB,     // d = f(a, b)
  kDABC,    // d = f(a, b, c)
  kDABP,    // d = c ? a : b            (c is a predicate)
  kPAB,     // p = cmp(a, b)
  kPPP,     // p = f(pa, pb)            (predicates or 0/1 immediates)
  kPP,      // p = f(pa)
  kLoad,    // d = mem[a + imm]  (a + imm: a byte address)
  kStore,   // mem[a + imm] = b
  kAtom,    // d = mem[a + imm]; mem[a + imm] = f(old, b)
  kCas,     // d = mem[a + imm]; mem[a + imm] = old == b ? c : old
  kBranch,  // pc = imm
};

enum class Op : uint8_t {
  kMov, kAdd, kSub, kMulLo, kMulHiS, kMulHiU, kMadLo,
  kDivS, kDivU, kRemS, kRemU, kNeg, kAbs,
  kMinS, kMinU, kMaxS, kMaxU,
  kAnd, kOr, kXor, kNot, kShl, kShrU, kShrS, kPopc, kClz, kBrev, kSelp,
  kSetpEq, kSetpNe, kSetpLtS, kSetpLeS, kSetpGtS, kSetpGeS,
  kSetpLtU, kSetpLeU, kSetpGtU, kSetpGeU,
  kAndPred, kOrPred, kXorPred, kNotPred, kMovPred,
  kLd, kSt,
  kAtomAdd, kAtomMinS, kAtomMinU, kAtomMaxS, kAtomMaxU, kAtomExch, kAtomCas,
  kBra, kBar, kExit,
  // IEEE-754 binary32 (docs/isa.md, "Floating point").
  kAddF, kSubF, kMulF, kFmaF, kMinF, kMaxF, kNegF, kAbsF, kDivF, kSqrtF,
  kCvtFS, kCvtFU, kCvtSF, kCvtUF, kRndNF, kRndMF, kRndPF, kRndZF,
  kSetpEqF, kSetpNeF, kSetpLtF, kSetpLeF, kSetpGtF, kSetpGeF,
  kSetpEquF, kSetpNeuF, kSetpLtuF, kSetpLeuF, kSetpGtuF, kSetpGeuF,
  // binary32 add in two machine steps (docs/isa.md, "Float microcode").
  kAddFSig, kAddFRnd,
  kCount
};
inline constexpr int kNumOps = static_cast<int>(Op::kCount);

struct OpInfo {
  Op op;
  std::string_view mnemonic;  // assembly spelling, PTX-like
  Form form;
  Effect effect;
  std::string_view meaning;   // one line, for docs/isa.md and --help
};

// The opcode table: one row per op, in enum order.
inline constexpr std::array<OpInfo, kNumOps> kOps = {{
    {Op::kMov, "mov", Form::kDA, Effect::kValue, "d = a"},
    {Op::kAdd, "add", Form::kDAB, Effect::kValue, "d = a + b (mod 2^32)"},
    {Op::kSub, "sub", Form::kDAB, Effect::kValue, "d = a - b (mod 2^32)"},
    {Op::kMulLo, "mul.lo", Form::kDAB, Effect::kValue, "d = low 32 bits of a * b"},
    {Op::kMulHiS, "mul.hi.s", Form::kDAB, Effect::kValue, "d = high 32 bits of signed a * b"},
    {Op::kMulHiU, "mul.hi.u", Form::kDAB, Effect::kValue, "d = high 32 bits of unsigned a * b"},
    {Op::kMadLo, "mad.lo", Form::kDABC, Effect::kValue, "d = low 32 bits of a * b + c"},
    {Op::kDivS, "div.s", Form::kDAB, Effect::kValue,
     "d = a / b signed, toward zero; INT_MIN/-1 = INT_MIN; a/0 = (a < 0 ? 1 : -1)"},
    {Op::kDivU, "div.u", Form::kDAB, Effect::kValue, "d = a / b unsigned; a/0 = 0xffffffff"},
    {Op::kRemS, "rem.s", Form::kDAB, Effect::kValue,
     "d = a - (a / b) * b, sign of a; INT_MIN%-1 = 0; a%0 = a"},
    {Op::kRemU, "rem.u", Form::kDAB, Effect::kValue, "d = a mod b unsigned; a%0 = a"},
    {Op::kNeg, "neg", Form::kDA, Effect::kValue, "d = -a (neg INT_MIN = INT_MIN)"},
    {Op::kAbs, "abs", Form::kDA, Effect::kValue, "d = |a| (abs INT_MIN = INT_MIN)"},
    {Op::kMinS, "min.s", Form::kDAB, Effect::kValue, "d = signed minimum"},
    {Op::kMinU, "min.u", Form::kDAB, Effect::kValue, "d = unsigned minimum"},
    {Op::kMaxS, "max.s", Form::kDAB, Effect::kValue, "d = signed maximum"},
    {Op::kMaxU, "max.u", Form::kDAB, Effect::kValue, "d = unsigned maximum"},
    {Op::kAnd, "and", Form::kDAB, Effect::kValue, "d = a & b"},
    {Op::kOr, "or", Form::kDAB, Effect::kValue, "d = a | b"},
    {Op::kXor, "xor", Form::kDAB, Effect::kValue, "d = a ^ b"},
    {Op::kNot, "not", Form::kDA, Effect::kValue, "d = ~a"},
    {Op::kShl, "shl", Form::kDAB, Effect::kValue, "d = a << b; unsigned b >= 32 gives 0"},
    {Op::kShrU, "shr.u", Form::kDAB, Effect::kValue, "d = a >> b logical; unsigned b >= 32 gives 0"},
    {Op::kShrS, "shr.s", Form::kDAB, Effect::kValue,
     "d = a >> b arithmetic; unsigned b >= 32 gives 0 or -1 (sign fill)"},
    {Op::kPopc, "popc", Form::kDA, Effect::kValue, "d = number of set bits of a"},
    {Op::kClz, "clz", Form::kDA, Effect::kValue, "d = leading zero bits of a (clz 0 = 32)"},
    {Op::kBrev, "brev", Form::kDA, Effect::kValue, "d = a with its 32 bits reversed"},
    {Op::kSelp, "selp", Form::kDABP, Effect::kValue, "d = c ? a : b (c a predicate)"},
    {Op::kSetpEq, "setp.eq", Form::kPAB, Effect::kPred, "p = a == b"},
    {Op::kSetpNe, "setp.ne", Form::kPAB, Effect::kPred, "p = a != b"},
    {Op::kSetpLtS, "setp.lt.s", Form::kPAB, Effect::kPred, "p = a < b signed"},
    {Op::kSetpLeS, "setp.le.s", Form::kPAB, Effect::kPred, "p = a <= b signed"},
    {Op::kSetpGtS, "setp.gt.s", Form::kPAB, Effect::kPred, "p = a > b signed"},
    {Op::kSetpGeS, "setp.ge.s", Form::kPAB, Effect::kPred, "p = a >= b signed"},
    {Op::kSetpLtU, "setp.lt.u", Form::kPAB, Effect::kPred, "p = a < b unsigned"},
    {Op::kSetpLeU, "setp.le.u", Form::kPAB, Effect::kPred, "p = a <= b unsigned"},
    {Op::kSetpGtU, "setp.gt.u", Form::kPAB, Effect::kPred, "p = a > b unsigned"},
    {Op::kSetpGeU, "setp.ge.u", Form::kPAB, Effect::kPred, "p = a >= b unsigned"},
    {Op::kAndPred, "and.pred", Form::kPPP, Effect::kPred, "p = pa and pb"},
    {Op::kOrPred, "or.pred", Form::kPPP, Effect::kPred, "p = pa or pb"},
    {Op::kXorPred, "xor.pred", Form::kPPP, Effect::kPred, "p = pa xor pb"},
    {Op::kNotPred, "not.pred", Form::kPP, Effect::kPred, "p = not pa"},
    {Op::kMovPred, "mov.pred", Form::kPP, Effect::kPred, "p = pa (or the immediate 0 or 1)"},
    {Op::kLd, "ld", Form::kLoad, Effect::kValue, "d = the word at byte address a + imm"},
    {Op::kSt, "st", Form::kStore, Effect::kStore, "the word at byte address a + imm = b"},
    {Op::kAtomAdd, "atom.add", Form::kAtom, Effect::kAtomic, "d = old; mem = old + b"},
    {Op::kAtomMinS, "atom.min.s", Form::kAtom, Effect::kAtomic, "d = old; mem = signed min(old, b)"},
    {Op::kAtomMinU, "atom.min.u", Form::kAtom, Effect::kAtomic,
     "d = old; mem = unsigned min(old, b)"},
    {Op::kAtomMaxS, "atom.max.s", Form::kAtom, Effect::kAtomic, "d = old; mem = signed max(old, b)"},
    {Op::kAtomMaxU, "atom.max.u", Form::kAtom, Effect::kAtomic,
     "d = old; mem = unsigned max(old, b)"},
    {Op::kAtomExch, "atom.exch", Form::kAtom, Effect::kAtomic, "d = old; mem = b"},
    {Op::kAtomCas, "atom.cas", Form::kCas, Effect::kAtomic, "d = old; mem = old == b ? c : old"},
    {Op::kBra, "bra", Form::kBranch, Effect::kBranch, "effective lanes jump to block imm"},
    {Op::kBar, "bar", Form::kNone, Effect::kBarrier,
     "wait until every unfinished thread of the CUDA block has arrived"},
    {Op::kExit, "exit", Form::kNone, Effect::kExit, "effective lanes finish"},
    {Op::kAddF, "add.f32", Form::kDAB, Effect::kValue, "d = a + b, rounded to nearest even"},
    {Op::kSubF, "sub.f32", Form::kDAB, Effect::kValue, "d = a - b, rounded to nearest even"},
    {Op::kMulF, "mul.f32", Form::kDAB, Effect::kValue, "d = a * b, rounded to nearest even"},
    {Op::kFmaF, "fma.f32", Form::kDABC, Effect::kValue, "d = a * b + c with one rounding (fused)"},
    {Op::kMinF, "min.f32", Form::kDAB, Effect::kValue,
     "d = the smaller; -0 < +0; one NaN operand: the other; both NaN: NaN"},
    {Op::kMaxF, "max.f32", Form::kDAB, Effect::kValue,
     "d = the larger; -0 < +0; one NaN operand: the other; both NaN: NaN"},
    {Op::kNegF, "neg.f32", Form::kDA, Effect::kValue, "d = -a (the sign flipped; NaN gives NaN)"},
    {Op::kAbsF, "abs.f32", Form::kDA, Effect::kValue, "d = |a| (the sign cleared; NaN gives NaN)"},
    {Op::kDivF, "div.f32", Form::kDAB, Effect::kValue, "d = a / b, correctly rounded (div.rn)"},
    {Op::kSqrtF, "sqrt.f32", Form::kDA, Effect::kValue, "d = sqrt(a), correctly rounded; sqrt(-0) = -0"},
    {Op::kCvtFS, "cvt.f32.s32", Form::kDA, Effect::kValue, "d = signed a as a float, nearest even"},
    {Op::kCvtFU, "cvt.f32.u32", Form::kDA, Effect::kValue, "d = unsigned a as a float, nearest even"},
    {Op::kCvtSF, "cvt.s32.f32", Form::kDA, Effect::kValue,
     "d = float a toward zero as a signed int, saturated; NaN gives 0"},
    {Op::kCvtUF, "cvt.u32.f32", Form::kDA, Effect::kValue,
     "d = float a toward zero as an unsigned int, saturated (negatives 0); NaN gives 0"},
    {Op::kRndNF, "cvt.rni.f32", Form::kDA, Effect::kValue, "d = a rounded to an integer, ties to even"},
    {Op::kRndMF, "cvt.rmi.f32", Form::kDA, Effect::kValue, "d = a rounded down to an integer (floor)"},
    {Op::kRndPF, "cvt.rpi.f32", Form::kDA, Effect::kValue, "d = a rounded up to an integer (ceil)"},
    {Op::kRndZF, "cvt.rzi.f32", Form::kDA, Effect::kValue, "d = a rounded toward zero to an integer (trunc)"},
    {Op::kSetpEqF, "setp.eq.f32", Form::kPAB, Effect::kPred, "p = a == b (false when either is NaN)"},
    {Op::kSetpNeF, "setp.ne.f32", Form::kPAB, Effect::kPred, "p = a != b and neither is NaN"},
    {Op::kSetpLtF, "setp.lt.f32", Form::kPAB, Effect::kPred, "p = a < b (false when either is NaN)"},
    {Op::kSetpLeF, "setp.le.f32", Form::kPAB, Effect::kPred, "p = a <= b (false when either is NaN)"},
    {Op::kSetpGtF, "setp.gt.f32", Form::kPAB, Effect::kPred, "p = a > b (false when either is NaN)"},
    {Op::kSetpGeF, "setp.ge.f32", Form::kPAB, Effect::kPred, "p = a >= b (false when either is NaN)"},
    {Op::kSetpEquF, "setp.equ.f32", Form::kPAB, Effect::kPred, "p = a == b or either is NaN"},
    {Op::kSetpNeuF, "setp.neu.f32", Form::kPAB, Effect::kPred, "p = a != b or either is NaN"},
    {Op::kSetpLtuF, "setp.ltu.f32", Form::kPAB, Effect::kPred, "p = a < b or either is NaN"},
    {Op::kSetpLeuF, "setp.leu.f32", Form::kPAB, Effect::kPred, "p = a <= b or either is NaN"},
    {Op::kSetpGtuF, "setp.gtu.f32", Form::kPAB, Effect::kPred, "p = a > b or either is NaN"},
    {Op::kSetpGeuF, "setp.geu.f32", Form::kPAB, Effect::kPred, "p = a >= b or either is NaN"},
    {Op::kAddFSig, "add.f32.sig", Form::kDAB, Effect::kValue,
     "d = the significands of a + b aligned and added: bit 31 = |b| > |a|, bits 30..0 = sig(x) << 6 +- the "
     "other's sig << 6 shifted right by the exponents' difference with a sticky bit (x the larger magnitude)"},
    {Op::kAddFRnd, "add.f32.rnd", Form::kDABC, Effect::kValue,
     "d = a + b (binary32, nearest even) from a = add.f32.sig b, c and the operands b, c: normalised, rounded, "
     "packed; NaNs, infinities and zeros from b and c"},
}};

// True for the binary32 ops (their operands and result are float bit patterns).
constexpr bool is_float_op(Op op) { return op >= Op::kAddF && op <= Op::kSetpGeuF; }

constexpr const OpInfo& op_info(Op op) { return kOps[static_cast<int>(op)]; }

// Looks an op up by its assembly mnemonic.
std::optional<Op> find_op(std::string_view mnemonic);

// ---- Operands.

// Special registers: read-only values the lowering needs.
enum class Special : uint8_t {
  kTidX, kTidY, kNtidX, kNtidY, kCtaidX, kCtaidY, kNctaidX, kNctaidY, kLaneid, kWarpid,
  kCtaslot, kCount
};
inline constexpr int kNumSpecials = static_cast<int>(Special::kCount);

struct SpecialInfo {
  Special special;
  std::string_view name;  // as written in assembly, PTX spelling
  std::string_view meaning;
};

inline constexpr std::array<SpecialInfo, kNumSpecials> kSpecials = {{
    {Special::kTidX, "%tid.x", "thread index in the CUDA block, x"},
    {Special::kTidY, "%tid.y", "thread index in the CUDA block, y"},
    {Special::kNtidX, "%ntid.x", "CUDA block size, x"},
    {Special::kNtidY, "%ntid.y", "CUDA block size, y"},
    {Special::kCtaidX, "%ctaid.x", "CUDA block index in the grid, x"},
    {Special::kCtaidY, "%ctaid.y", "CUDA block index in the grid, y"},
    {Special::kNctaidX, "%nctaid.x", "grid size in CUDA blocks, x"},
    {Special::kNctaidY, "%nctaid.y", "grid size in CUDA blocks, y"},
    {Special::kLaneid, "%laneid", "lane within the warp, 0..3"},
    {Special::kWarpid, "%warpid", "resident warp slot, 0..3"},
    {Special::kCtaslot, "%ctaslot",
     "resident CUDA block slot of the warp, 0..3 (selects this block's __shared__ copy)"},
}};

std::optional<Special> find_special(std::string_view name);

enum class OperandKind : uint8_t { kNone, kReg, kPred, kSpecial, kImm };

// One operand field of an instruction. The immediate value itself lives in Instr::imm.
struct Operand {
  OperandKind kind = OperandKind::kNone;
  uint8_t index = 0;  // register, predicate or Special number

  friend bool operator==(const Operand&, const Operand&) = default;
};

constexpr Operand reg(int i) { return {OperandKind::kReg, static_cast<uint8_t>(i)}; }
constexpr Operand pred(int i) { return {OperandKind::kPred, static_cast<uint8_t>(i)}; }
constexpr Operand special(Special s) { return {OperandKind::kSpecial, static_cast<uint8_t>(s)}; }
constexpr Operand imm() { return {OperandKind::kImm, 0}; }

// Field codes: every operand field (d, a, b, c) is one small integer in the ROM and in
// the program-image tokens. 0 = none, then registers, predicates, specials, imm.
inline constexpr int kFieldCodes = 1 + kRegs + kPreds + kNumSpecials + 1;
inline constexpr int kPredCode = 1 + kRegs;             // field code of p0
inline constexpr int kSpecialCode = kPredCode + kPreds;  // field code of Special 0
inline constexpr int kImmCode = kFieldCodes - 1;         // field code of the immediate
int field_code(Operand o);
Operand operand_from_code(int code);  // CHECKs the range

// Guard: none, @pN or @!pN. Encoded 0 (none), 1 + N (@pN), 1 + kPreds + N (@!pN).
struct Guard {
  int8_t pred = -1;  // -1: unguarded
  bool negate = false;

  friend bool operator==(const Guard&, const Guard&) = default;
};
inline constexpr int kGuardCodes = 1 + 2 * kPreds;
int guard_code(Guard g);
Guard guard_from_code(int code);

}  // namespace qgpu
