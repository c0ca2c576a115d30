// PTX -> IR: one kernel with its device functions inlined, 64-bit address arithmetic by
// the low-32 rule, parameters and symbols replaced by the values the memory layout gives.
#pragma once

#include <map>
#include <set>
#include <string>

#include "compiler/ir.h"
#include "compiler/ptx.h"

namespace qgpu {

// A __shared__ variable: one copy per resident CUDA block, `words` apart.
struct SharedPlacement {
  int base_word = 0;  // copy 0
  int words = 0;
};

struct PtxSourceMap;

struct LowerEnv {
  const PtxSourceMap* source = nullptr;           // for diagnostics: PTX line -> CUDA line (the caller's)
  std::map<std::string, int64_t> param_value;     // kernel .param name -> its array's byte address,
                                                  // or for a scalar the byte address of its word
  std::set<std::string> scalar_params;            // kernel .params loaded from their word
  std::map<std::string, int64_t> global_address;  // .global/.const symbol -> byte address
  std::map<std::string, SharedPlacement> shared;  // .shared symbol -> placement
  // .local depot symbol (a local array: int t[8] indexed at run time) -> its placement: one
  // copy of `words` per resident lane, lane slot 4 %warpid + %laneid at base + slot * words.
  std::map<std::string, SharedPlacement> local;
  int ctas_per_wave = 1;
  int shfl_word = -1;  // first of the shuffles' 16 words (a word per lane of each resident warp), or -1
  int vote_word = -1;  // first of the votes' 4 words (one per resident warp), or -1
  // f32 add and sub as the layers' two float steps, mul, div, sqrt and the conversions as
  // integer sequences (the ops the model's layers compute).
  bool float_sequences = false;
  // With float_sequences: the float ops (mul, fma, div, sqrt) whose sequence is one shared
  // copy after the kernel, called from each use (compile_ptx's second try when the inlined
  // sequences pass the ROM; design.md §3, "The rest of the ALU").
  std::set<Op> shared_float_ops;
  // With kFmaF shared: mul is a call of the fma's copy too (compile_ptx's third try):
  // a * b = fma(a, b, -0), exact.
  bool fma_for_all = false;
  // 64-bit values with their high halves (lower_wide.cpp): the second try of a kernel that
  // compares 64-bit values other than addresses (a size_t index against its bound).
  bool wide = false;
  std::set<std::string> signed_wide_params;  // long (not size_t) scalar parameters: high half = sign
};

// What a first try (env.wide false) says when the kernel needs a 64-bit value's high half
// that only the second try tracks: compile_ptx tries again with env.wide on either.
inline constexpr const char* kNoPointerCompare = "64-bit comparisons are supported between pointers";
inline constexpr const char* kNoHighHalf =
    "the high half of a 64-bit value computed in 64 bits (a long long, or a product's high half) is not "
    "supported here";

// Lowers the kernel. Throws Error listing every unsupported instruction or operand, each
// at the CUDA line behind it (env.source; else the PTX line), with a caret and the CUDA
// construct that likely produced it.
IrFunction lower_kernel(const PtxModule& m, const PtxFunction& kernel, const LowerEnv& env);

}  // namespace qgpu
