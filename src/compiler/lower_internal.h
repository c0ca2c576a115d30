// The PTX -> IR lowering's one class, shared by its two files: lower.cpp (operands,
// emission, bodies and inlined calls, labels) and lower_families.cpp (one function per
// PTX instruction family). Internal to src/compiler; lower.h is the interface.
#pragma once

#include <fmt/format.h>

#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "compiler/lower.h"
#include "compiler/lower_expand.h"

namespace qgpu::lowering {

using K = IrOperand::Kind;

inline constexpr const char* kNoSync =
    "the warp functions without _sync (__shfl, __ballot, __any, __all) are not supported: use __shfl_sync, "
    "__ballot_sync, __any_sync, __all_sync";
inline constexpr const char* kLocalMemory =
    "local memory (a local array, or -O0) is not supported; use -Os and shared or global arrays";

struct Frame {
  const PtxFunction* fn = nullptr;
  std::string prefix;                         // register and label namespace of this inline copy
  std::map<std::string, IrOperand> params;    // .param name -> value (callee params, retvals)
  std::vector<IrOperand> returns;             // callee's func_retval vregs
  std::string ret_label;                      // continuation label; empty in the kernel
};

class Lowerer {
 public:
  Lowerer(const PtxModule& m, const LowerEnv& env) : m_(m), env_(env) {}

  IrFunction run(const PtxFunction& kernel) {
    for (const std::string& name : env_.scalar_params) f_.param_words.push_back(env_.param_value.at(name));
    Frame top{&kernel, ""};
    lower_body(top, 0);
    resolve_labels();
    append_routines();
    append_rendezvous();
    if (env_.wide) check_wide_compares();
    else check_pointer_compares();
    check_single_defs();
    if (!errors_.empty()) {
      std::string all;
      for (const std::string& e : errors_) all += (all.empty() ? "" : "\n") + e;
      throw Error(all);
    }
    return std::move(f_);
  }

 private:
  // ---- Diagnostics.

  void error(const PtxInstr& in, int col, const std::string& msg);
  void unsupported(const PtxInstr& in, std::string_view why);

  // ---- Registers and operands.

  int vreg(const Frame& fr, const std::string& name);
  int predreg(const Frame& fr, const std::string& name);
  int temp();
  static std::string reg_type(const Frame& fr, const std::string& name);
  static bool is_local_var(const Frame& fr, const std::string& name);
  static int64_t wrap32(int64_t v);
  std::optional<IrOperand> value(Frame& fr, const PtxInstr& in, const PtxOperand& o);
  std::optional<IrOperand> symbol_address(Frame& fr, const PtxInstr& in, const std::string& name, int col);
  std::optional<IrOperand> dest(Frame& fr, const PtxInstr& in, size_t i);
  bool address(Frame& fr, const PtxInstr& in, const PtxOperand& o, IrOperand& base, int64_t& off);

  // ---- Emission.

  void emit(const PtxInstr& src, IrInstr out);
  void emit_helper(const PtxInstr& src, IrInstr out);
  void emit_sequence(const PtxInstr& src, std::vector<IrInstr> seq);
  // A float op as a call of its shared copy (env_.shared_float_ops), and the copies.
  void emit_float_call(const PtxInstr& src, const IrInstr& out);
  void append_routines();
  bool operands(const PtxInstr& in, size_t n);

  // ---- Bodies and calls.

  void lower_body(Frame& fr, int depth);
  void lower_instr(Frame& fr, const PtxInstr& in, int depth);
  void lower_call(Frame& fr, const PtxInstr& in, int depth);
  void skip_call(Frame& fr, const PtxInstr& in, const std::vector<std::string>& rets, std::string_view why);
  void inline_call(Frame& fr, const PtxInstr& in, const PtxFunction& callee,
                   const std::vector<std::string>& rets, const std::vector<std::string>& args, int depth);

  // ---- Families (lower_families.cpp).

  void lower_mov(Frame& fr, const PtxInstr& in);
  // 8- and 16-bit data (char, short, bool): 16-bit ops as 32-bit ones, their operands
  // extended where the result depends on the bits above 16; loads and stores of bytes and
  // halves inside a word (the machine's memory is words).
  void lower_16(Frame& fr, const PtxInstr& in, int depth);
  void lower_mul_hi16(Frame& fr, const PtxInstr& in);
  IrOperand extended(Frame& fr, const PtxInstr& in, IrOperand v, int bytes, bool sign);
  struct SubWord {
    IrOperand word;      // the word's byte address: a register, or none with `offset` alone
    int64_t offset = 0;
    IrOperand shift;     // where the value starts in the word, in bits: a register or an immediate
  };
  SubWord sub_word(const PtxInstr& in, IrOperand base, int64_t off);
  void lower_ld_small(const PtxInstr& in, IrOperand d, IrOperand base, int64_t off, int bytes, bool sign);
  void lower_st_small(const PtxInstr& in, IrOperand v, IrOperand base, int64_t off, int bytes);
  int guard_skip(const PtxInstr& in);
  void end_guard_skip(int at);
  int small_count_ = 0;
  void lower_cvt(Frame& fr, const PtxInstr& in);
  void lower_float_cvt(Frame& fr, const PtxInstr& in);
  // 64-bit values whose high half is cheap (ptx.md section 7 exceptions)
  void note_high(const PtxInstr& in, IrOperand d, IrOperand a, bool sign);
  void lower_mul_wide(Frame& fr, const PtxInstr& in);
  void lower_unpack64(Frame& fr, const PtxInstr& in);
  void lower_halves16(Frame& fr, const PtxInstr& in);
  void lower_shr64(Frame& fr, const PtxInstr& in);
  void check_single_defs();
  // memory
  bool memory_type_ok(const PtxInstr& in);
  std::vector<PtxOperand> vector_elements(const PtxInstr& in, const PtxOperand& o);
  void lower_ld(Frame& fr, const PtxInstr& in);
  void lower_ld_param(Frame& fr, const PtxInstr& in);
  void lower_st(Frame& fr, const PtxInstr& in);
  void lower_st_param(Frame& fr, const PtxInstr& in);
  void lower_atom(Frame& fr, const PtxInstr& in);
  // compares, selects, control
  void lower_setp(Frame& fr, const PtxInstr& in);
  void lower_selp(Frame& fr, const PtxInstr& in);
  void lower_bra(Frame& fr, const PtxInstr& in);
  void lower_ret(Frame& fr, const PtxInstr& in);
  void lower_bar(const PtxInstr& in);
  // bit manipulation
  void lower_shf(Frame& fr, const PtxInstr& in);
  void lower_bfe(Frame& fr, const PtxInstr& in);
  void lower_prmt(Frame& fr, const PtxInstr& in);
  // warp shuffles and votes: memory ops over words of their own (lower_expand.h)
  void lower_shfl(Frame& fr, const PtxInstr& in);
  void lower_vote(Frame& fr, const PtxInstr& in);
  void emit_warp_sequence(const PtxInstr& src, const std::vector<IrInstr>& seq);
  // Before a warp function (shuffle, vote, __syncwarp), the warp's lanes meet: a branch to a
  // block past all code that branches back. The machine runs a warp's lanes at their
  // smallest PC, so lanes that arrive early wait there (the highest PCs) until every other
  // live lane has arrived too, wherever clang's code layout sends them; then all run the
  // warp function together, as a .sync with the full mask does on a GPU.
  void emit_rendezvous(const PtxInstr& src);
  void append_rendezvous();
  std::vector<std::pair<int, int>> rendezvous_;  // (the branch there, the index to return to)
  // add sub mul mad div rem neg abs min max and or xor not shl shr popc clz brev
  bool lower_arith(Frame& fr, const PtxInstr& in);

  // ---- Labels.

  struct Fixup {
    int instr;
    std::string label;
    PtxInstr src;
  };
  void resolve_labels();

  const PtxModule& m_;
  const LowerEnv& env_;
  IrFunction f_;
  Frame* frame_ = nullptr;
  std::map<std::string, int> vregs_, preds_, labels_;
  std::vector<Fixup> fixups_;
  FreshReg fresh_ = [this] { return ir_vreg(temp()); };
  FreshReg fresh_pred_ = [this] { return f_.pred_names.push_back(fmt::format("%ptmp{}", f_.n_preds)), ir_pred(f_.n_preds++); };
  std::map<int, IrOperand> high_;                           // 64-bit vreg -> its high half
  // Pointers compared (p != NULL, p < end): a 64-bit compare is exact in 32 bits when every
  // value of both operands is an address (< 504) or a small constant. The 64-bit registers
  // with an address among their definitions, those with anything else, and the compares
  // whose operands check_pointer_compares() checks against both when the body is lowered.
  std::set<int> pointer_defs_, other_defs_;
  // env.wide (lower_wide.cpp): each 64-bit register's shadow holds its high half. The
  // registers whose high halves each one's definitions read, those defined by an op that
  // leaves it unknown, and each compare's registers with the compare.
  bool is_wide_reg(const Frame& fr, const PtxOperand& o);
  IrOperand shadow(const Frame& fr, const std::string& name);
  IrOperand high_of(Frame& fr, const PtxOperand& o);
  std::vector<IrOperand> needed_highs(Frame& fr, const PtxInstr& in, std::initializer_list<size_t> at);
  bool lower_wide(Frame& fr, const PtxInstr& in);
  struct Wide {
    IrOperand lo, hi;  // a 64-bit result's halves, in temporaries
  };
  enum class WideResult { kDone, kUnknown, kError };  // kUnknown: not an op lower_wide knows
  WideResult wide_copy(Frame& fr, const PtxInstr& in, Wide& w);
  WideResult wide_load(Frame& fr, const PtxInstr& in, Wide& w);
  WideResult wide_add(Frame& fr, const PtxInstr& in, Wide& w);
  WideResult wide_mul(Frame& fr, const PtxInstr& in, Wide& w);
  WideResult wide_bits(Frame& fr, const PtxInstr& in, Wide& w);
  void lower_wide_setp(Frame& fr, const PtxInstr& in);
  void check_wide_compares();
  std::map<std::string, std::set<std::string>> wide_defs_;
  std::set<std::string> wide_unknown_;
  std::vector<std::pair<std::vector<std::string>, PtxInstr>> wide_compares_;
  std::vector<std::string>* deps_ = nullptr;
  std::vector<std::pair<int, PtxInstr>> pointer_compares_;
  void note_def64(const PtxInstr& src, const IrInstr& out);
  void check_pointer_compares();
  std::vector<std::pair<int, PtxInstr>> single_def_checks_;
  std::vector<std::string> errors_;
  int inline_count_ = 0;
  // A shared float sequence: the call sites set a, b, c and ret (the site's number) and
  // branch to it; it leaves its result in a (a register every call writes, so no copy of it
  // is propagated past a later call) and branches back by ret.
  struct Routine {
    Op op;
    IrOperand a, b, c, ret;
    std::vector<int> calls, returns;  // each call's bra, and the index after it
    int line = 0;
  };
  std::vector<Routine> routines_;
};

}  // namespace qgpu::lowering
