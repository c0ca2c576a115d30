// Opcode tables. 64-bit forms are accepted exactly when the low 32 bits of the result
// depend only on the low 32 bits of the inputs (ptx.md section 7): add, sub, mul.lo and
// mul.wide, mad.lo, neg, shl, and, or, xor, not. Others name what to change in the kernel.
#include "compiler/ptx_ops.h"

#include <fmt/format.h>

#include <map>

namespace qgpu {
namespace {

OpMapping ok(Op op) { return {true, op, ""}; }
OpMapping no(std::string why) { return {true, std::nullopt, std::move(why)}; }

OpMapping breaks(const char* what) {
  return no(fmt::format("{} on 64-bit values is not supported (long long arithmetic; addresses are fine)", what));
}

bool is_arith(std::string_view base) {
  static const char* kArith[] = {"add", "sub", "mul", "mad", "div", "rem", "neg", "abs", "min",
                                 "max", "and", "or", "xor", "not", "shl", "shr", "popc", "clz",
                                 "brev", "fma", "sqrt", "rcp", "ex2", "lg2", "sin", "cos"};
  for (const char* a : kArith)
    if (base == a) return true;
  return false;
}

OpMapping int_arith(const PtxInstr& in, const std::string& base, bool sgn, bool wide64, bool pred) {
  if (base == "add" || base == "sub") {
    if (has_part(in, "cc") || has_part(in, "sat")) return no("carry and saturating adds are not supported");
    return ok(base == "add" ? Op::kAdd : Op::kSub);
  }
  if (base == "mul") {
    if (has_part(in, "hi")) return wide64 ? breaks("mul.hi") : ok(sgn ? Op::kMulHiS : Op::kMulHiU);
    return ok(Op::kMulLo);  // mul.lo, and mul.wide whose low half is mul.lo
  }
  if (base == "mad") {
    if (!has_part(in, "hi")) return ok(Op::kMadLo);  // mad.lo, and mad.wide whose low half is mad.lo
    return wide64 ? breaks("mad.hi") : no("mad.hi (the high half of a product, plus a value) is not supported");
  }
  if (base == "div" || base == "rem") {
    if (wide64) return breaks(base == "div" ? "division" : "remainder");
    return ok(base == "div" ? (sgn ? Op::kDivS : Op::kDivU) : (sgn ? Op::kRemS : Op::kRemU));
  }
  if (base == "neg") return ok(Op::kNeg);
  if (base == "abs") return wide64 ? breaks("abs") : ok(Op::kAbs);
  if (base == "min" || base == "max") {
    if (wide64) return breaks("min/max");
    return ok(base == "min" ? (sgn ? Op::kMinS : Op::kMinU) : (sgn ? Op::kMaxS : Op::kMaxU));
  }
  if (base == "and") return ok(pred ? Op::kAndPred : Op::kAnd);
  if (base == "or") return ok(pred ? Op::kOrPred : Op::kOr);
  if (base == "xor") return ok(pred ? Op::kXorPred : Op::kXor);
  if (base == "not") return ok(pred ? Op::kNotPred : Op::kNot);
  if (base == "shl") return ok(Op::kShl);
  if (base == "shr") return wide64 ? breaks("shift right") : ok(sgn ? Op::kShrS : Op::kShrU);
  if (wide64) return breaks(base.c_str());
  if (base == "popc") return ok(Op::kPopc);
  if (base == "clz") return ok(Op::kClz);
  if (base == "brev") return ok(Op::kBrev);
  return no("the machine has no such operation (see `qgpu isa`)");
}

// The modifiers of a float op that the machine cannot honour, as one problem, or "".
// `rn` is the machine's rounding; `rnd_ok` says whether the op takes a rounding at all.
std::string float_modifier_problem(const PtxInstr& in) {
  for (const std::string& p : in.parts) {
    if (p == "ftz")
      return "flush-to-zero floats (-fgpu-flush-denormals-to-zero, -ffast-math, --use_fast_math) are not "
             "supported: the machine keeps subnormals";
    if (p == "sat") return "saturating float ops (__saturatef, __fadd_rz with .sat) are not supported";
    if (p == "approx" || p == "full")
      return "approximate float ops (fast math: -ffast-math, __fdividef, __expf, __sinf, rsqrtf) are not "
             "supported: PTX does not define their results bit for bit; compile without fast math";
    if (p == "rz" || p == "rm" || p == "rp")
      return "float ops rounded other than to nearest even (__fadd_rz, __fmul_ru, ...) are not supported";
    if (p == "NaN" || p == "xorsign" || p == "relu") return "min/max with .NaN, .xorsign or .relu are not supported";
  }
  return "";
}

OpMapping float_arith(const PtxInstr& in, const std::string& base) {
  static const std::map<std::string, Op> ops = {
      {"add", Op::kAddF}, {"sub", Op::kSubF}, {"mul", Op::kMulF}, {"fma", Op::kFmaF}, {"mad", Op::kFmaF},
      {"min", Op::kMinF}, {"max", Op::kMaxF}, {"neg", Op::kNegF}, {"abs", Op::kAbsF}, {"div", Op::kDivF},
      {"sqrt", Op::kSqrtF}, {"rcp", Op::kDivF}};
  if (std::string p = float_modifier_problem(in); !p.empty()) return no(p);
  auto it = ops.find(base);
  if (it == ops.end())
    return no(fmt::format("{}.f32 is not supported (approximate transcendentals such as __expf and __sinf "
                          "are not defined bit for bit; expf, sinf and friends need a library the machine "
                          "lacks)", base));
  // mad.f32 without .rn is sm_1x's unfused multiply-add; fma and mad.rn are fused.
  if (base == "mad" && !has_part(in, "rn")) return no("mad.f32 without .rn (an unfused multiply-add) is not supported");
  return ok(it->second);
}

}  // namespace

CvtMapping float_cvt_mapping(const PtxInstr& in) {
  // cvt[.rnd][.ftz][.sat].dtype.stype
  CvtMapping m;
  if (in.parts.size() < 3) return {{}, "malformed conversion"};
  const std::string d = in.parts[in.parts.size() - 2], s = in.parts.back();
  std::string rnd;
  for (size_t i = 1; i + 2 < in.parts.size(); ++i) {
    const std::string& p = in.parts[i];
    if (p == "ftz") return {{}, "flush-to-zero floats (-ffast-math) are not supported: the machine keeps subnormals"};
    if (p == "sat") return {{}, "saturating float conversions (__saturatef) are not supported"};
    rnd = p;
  }
  for (const std::string& t : {d, s})
    if (t == "f64") return {{}, kNoDouble};
    else if (t == "f16" || t == "bf16" || t == "f16x2") return {{}, "half precision (__half, __nv_bfloat16) is not supported"};
  const bool int_s = s == "s32" || s == "u32", int_d = d == "s32" || d == "u32";
  if (d == "f32" && int_s) {
    if (rnd != "rn") return {{}, "int to float conversions rounded other than to nearest even are not supported"};
    return {{s == "s32" ? Op::kCvtFS : Op::kCvtFU}, ""};
  }
  static const std::map<std::string, Op> to_integer = {
      {"rni", Op::kRndNF}, {"rmi", Op::kRndMF}, {"rpi", Op::kRndPF}, {"rzi", Op::kRndZF}};
  if (d == "f32" && s == "f32") {
    if (rnd.empty()) return m;
    if (!to_integer.count(rnd)) return {{}, fmt::format("cvt.{}.f32.f32 is not supported", rnd)};
    return {{to_integer.at(rnd)}, ""};
  }
  if (int_d && s == "f32") {
    if (!to_integer.count(rnd)) return {{}, fmt::format("float to int conversions need rni, rmi, rpi or rzi (got '{}')", rnd)};
    if (rnd != "rzi") m.ops.push_back(to_integer.at(rnd));
    m.ops.push_back(d == "s32" ? Op::kCvtSF : Op::kCvtUF);
    return m;
  }
  return {{}, "conversions between float and 64-bit, 8-bit or 16-bit integers (long long, short, char) are not supported"};
}

std::optional<IrOperand> special_operand(const std::string& name) {
  static const std::map<std::string, IrOperand> table = {
      {"%tid.x", ir_special(Special::kTidX)},       {"%tid.y", ir_special(Special::kTidY)},
      {"%ntid.x", ir_special(Special::kNtidX)},     {"%ntid.y", ir_special(Special::kNtidY)},
      {"%ctaid.x", ir_special(Special::kCtaidX)},   {"%ctaid.y", ir_special(Special::kCtaidY)},
      {"%nctaid.x", ir_special(Special::kNctaidX)}, {"%nctaid.y", ir_special(Special::kNctaidY)},
      {"%laneid", ir_special(Special::kLaneid)},    {"%warpid", ir_special(Special::kWarpid)},
      {"%tid.z", ir_imm(0)},   {"%ntid.z", ir_imm(1)},
      {"%ctaid.z", ir_imm(0)}, {"%nctaid.z", ir_imm(1)},
  };
  auto it = table.find(name);
  return it == table.end() ? std::nullopt : std::optional<IrOperand>(it->second);
}

std::string opcode_hint(const std::string& op) {
  if (op == "match" || op == "redux")
    return "warp match and reduce intrinsics (__match_any_sync, __reduce_add_sync) are not supported; "
           "write the reduction with __shfl_xor_sync";
  if (op == "tex" || op == "suld" || op == "sust") return "textures and surfaces are not supported";
  return "the machine has no such operation (see `qgpu isa`)";
}

void normalise_predicate_immediates(IrInstr& in) {
  Form form = op_info(in.op).form;
  if (form != Form::kPP && form != Form::kPPP) return;
  for (IrOperand* o : {&in.a, &in.b})
    if (o->kind == IrOperand::Kind::kImm) o->imm = o->imm != 0;
}

bool is_float_type(std::string_view t) {
  return t == "f32" || t == "f64" || t == "f16" || t == "f16x2" || t == "bf16";
}

bool is_64(std::string_view t) { return t == "s64" || t == "u64" || t == "b64"; }

std::string last_part(const PtxInstr& in) { return in.parts.empty() ? "" : in.parts.back(); }

bool has_part(const PtxInstr& in, std::string_view p) {
  for (const std::string& s : in.parts)
    if (s == p) return true;
  return false;
}

int small_bytes(std::string_view t) {
  if (t == "u8" || t == "s8" || t == "b8") return 1;
  if (t == "u16" || t == "s16" || t == "b16") return 2;
  return 0;
}

std::string type_problem(std::string_view t) {
  if (t == "f64") return kNoDouble;
  if (is_float_type(t) && t != "f32") return "half precision (__half, __nv_bfloat16) is not supported";
  if (small_bytes(t))
    return "this 8- or 16-bit operation is not supported (char and short values are, in loads, stores, "
           "conversions and integer arithmetic)";
  return "";
}

OpMapping arith_mapping(const PtxInstr& in) {
  const std::string& base = in.parts.at(0);
  if (!is_arith(base)) return {};
  std::string t = last_part(in);
  if (std::string p = type_problem(t); !p.empty()) return no(p);
  if (t == "f32") return float_arith(in, base);
  if (base == "fma" || base == "sqrt" || base == "rcp") return no(fmt::format("{}.{} is not supported", base, t));
  return int_arith(in, base, t == "s32" || t == "s64", is_64(t), t == "pred");
}

OpMapping setp_mapping(const PtxInstr& in) {
  static const std::map<std::string, std::pair<Op, Op>> cmp = {  // signed, unsigned
      {"eq", {Op::kSetpEq, Op::kSetpEq}},   {"ne", {Op::kSetpNe, Op::kSetpNe}},
      {"lt", {Op::kSetpLtS, Op::kSetpLtU}}, {"le", {Op::kSetpLeS, Op::kSetpLeU}},
      {"gt", {Op::kSetpGtS, Op::kSetpGtU}}, {"ge", {Op::kSetpGeS, Op::kSetpGeU}},
      {"lo", {Op::kSetpLtU, Op::kSetpLtU}}, {"ls", {Op::kSetpLeU, Op::kSetpLeU}},
      {"hi", {Op::kSetpGtU, Op::kSetpGtU}}, {"hs", {Op::kSetpGeU, Op::kSetpGeU}}};
  static const std::map<std::string, Op> fcmp = {
      {"eq", Op::kSetpEqF},   {"ne", Op::kSetpNeF},   {"lt", Op::kSetpLtF},   {"le", Op::kSetpLeF},
      {"gt", Op::kSetpGtF},   {"ge", Op::kSetpGeF},   {"equ", Op::kSetpEquF}, {"neu", Op::kSetpNeuF},
      {"ltu", Op::kSetpLtuF}, {"leu", Op::kSetpLeuF}, {"gtu", Op::kSetpGtuF}, {"geu", Op::kSetpGeuF}};
  std::string t = last_part(in);
  if (std::string p = type_problem(t); !p.empty()) return no(p);
  if (t == "f32") {  // setp.CMP[.ftz].f32; nan and num are the lowering's (two compares)
    if (std::string p = float_modifier_problem(in); !p.empty()) return no(p);
    if (in.parts.size() != 3 || !(fcmp.count(in.parts[1]) || in.parts[1] == "nan" || in.parts[1] == "num"))
      return no("float compares are eq ne lt le gt ge, their unordered forms (equ ... geu), nan and num");
    return in.parts[1] == "nan" || in.parts[1] == "num" ? OpMapping{true, std::nullopt, ""} : ok(fcmp.at(in.parts[1]));
  }
  if (is_64(t)) return no("64-bit comparisons (long long, or pointers compared) are not supported");
  if (in.parts.size() != 3 || !cmp.count(in.parts[1]))
    return no("only eq, ne, lt, le, gt, ge (and lo, ls, hi, hs) integer compares are supported");
  return ok(t == "s32" ? cmp.at(in.parts[1]).first : cmp.at(in.parts[1]).second);
}

OpMapping atom_mapping(const PtxInstr& in) {
  if (last_part(in) == "f32") return no("atomics on floats (atomicAdd on a float) are not supported");
  static const std::map<std::string, std::pair<Op, Op>> ops = {  // signed, unsigned
      {"add", {Op::kAtomAdd, Op::kAtomAdd}},   {"min", {Op::kAtomMinS, Op::kAtomMinU}},
      {"max", {Op::kAtomMaxS, Op::kAtomMaxU}}, {"exch", {Op::kAtomExch, Op::kAtomExch}},
      {"cas", {Op::kAtomCas, Op::kAtomCas}}};
  for (const std::string& p : in.parts)
    if (auto it = ops.find(p); it != ops.end())
      return ok(last_part(in) == "s32" ? it->second.first : it->second.second);
  return no("only atomicAdd, atomicSub, atomicMin, atomicMax, atomicExch and atomicCAS on 32-bit "
            "integers are supported");
}

}  // namespace qgpu
