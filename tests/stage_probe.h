// A sublayer probe for the construction's MLP stages (tests only): residual vectors that
// hold a valid code in every field alive at the input of layer il's MLP, with the fields
// under test overridden, run through that MLP (and the MLPs of the layers after it) with
// the engine's own ops, exactly as Runtime::forward_batch computes an MLP sublayer of an
// f32 model under the llama.cpp rounding policy:
//   x += down(SiLU(gate a) * up a), a = RMSNorm(x) with post_attention_layernorm,
// the products through matmul_csr (the Runtime's path for the construction's sparse
// weights: the reference's sum) or matmul_reference for a dense weight. Outputs are read
// with lift::read / lift::word_of, the codes' one decoder.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "base/thread_pool.h"
#include "engine/model.h"
#include "engine/ops.h"
#include "gpu/isa.h"
#include "lift/code.h"
#include "lift/layout.h"
#include "lift/plan.h"
#include "lift/stages.h"
#include "test_util.h"

namespace qgpu::test_util {

class StageProbe {
 public:
  // `cases` residual vectors at the input of layer il's MLP (sublayer 2 il + 1), every
  // alive field holding digit 0 in each group (words 0; a pad its `counted` ones).
  StageProbe(int il, int cases)
      : m_(gpu_model()), layout_(lift::machine_layout()), hots_(lift::machine_hots()), il_(il), cases_(cases) {
    H_ = m_.config.hidden_size;
    EXPECT_GE(H_, layout_.used);
    x_.assign(static_cast<size_t>(cases_) * static_cast<size_t>(H_), 0.0f);
    const int s = lift::mlp(il);
    for (const lift::Field& f : layout_.fields) {
      if (!alive(f, s)) continue;
      for (int c = 0; c < cases_; ++c) {
        if (f.code.kind == lift::Code::Kind::kOnes) {
          for (int i = 0; i < f.code.counted; ++i) row(c)[f.dim(i)] = 1.0f;
        } else if (f.code.kind == lift::Code::Kind::kDigits) {
          set(c, f.name, std::vector<int>(static_cast<size_t>(f.code.groups()), 0));
        } else {
          set_word(c, f.name, 0);
        }
      }
    }
  }

  // Whether field f holds its code at the input of sublayer s: written by an earlier
  // sublayer, not yet cleared (a field is cleared by the MLP at `cleared`, after reading it).
  static bool alive(const lift::Field& f, int s) { return f.life.born < s && s <= f.life.cleared; }

  const lift::Field& field(const std::string& name) const { return layout_[name]; }
  int cases() const { return cases_; }

  // Field `name` of case c holds these digits (one per group of its code).
  void set(int c, const std::string& name, const std::vector<int>& digits) {
    const lift::Field& f = layout_[name];
    CheckAlive(f);
    float* r = row(c);
    for (int i = 0; i < f.size; ++i) r[f.offset + i] = 0.0f;
    for (int d : lift::encode(f.code, digits)) r[f.offset + d] = 1.0f;
  }
  void set(int c, const std::string& name, int digit) { set(c, name, std::vector<int>{digit}); }
  void set_all(const std::string& name, int digit) {
    for (int c = 0; c < cases_; ++c) set(c, name, digit);
  }
  void set_word(int c, const std::string& name, uint32_t word) {
    const lift::Field& f = layout_[name];
    CheckAlive(f);
    float* r = row(c);
    for (int i = 0; i < f.size; ++i) r[f.offset + i] = 0.0f;
    for (int d : lift::encode_word(f.code, word)) r[f.offset + d] = 1.0f;
  }
  // f_op = op + 1 and, past L4's MLP, which writes them, the op-set flags (opf) that go with it.
  void set_op(int c, Op op) {
    set(c, "f_op", static_cast<int>(op) + 1);
    if (!alive(layout_["opf"], lift::mlp(il_))) return;
    std::vector<int> flags;
    for (const lift::OpSet& s : lift::kOpSets) {
      bool in = false;
      for (Op o : s.ops) in |= o == op;
      flags.push_back(in ? 0 : 1);
    }
    set(c, "opf", flags);
  }

  // Runs the MLPs of layers il .. last (the mixers between them are zero: checked), each
  // on a residual of exactly the hot count its norm was built for (checked before each).
  void run(int last) {
    ThreadPool pool(1);
    const int64_t T = cases_, I = m_.config.intermediate_size;
    const float eps = static_cast<float>(m_.config.rms_norm_eps);
    std::vector<float> a(x_.size()), g(static_cast<size_t>(T * I)), u(g.size()), out(x_.size());
    for (int il = il_; il <= last; ++il) {
      if (il > il_) {
        ASSERT_TRUE(mixer_zero(il)) << "L" << il << "'s mixer is not zero: the probe skips it";
      }
      ASSERT_NO_FATAL_FAILURE(check_hots(lift::mlp(il)));
      const engine::LayerWeights& l = m_.layers[static_cast<size_t>(il)];
      for (int64_t t = 0; t < T; ++t)
        engine::rms_norm(row(static_cast<int>(t)), l.post_attention_layernorm.data(), &a[static_cast<size_t>(t * H_)], H_, eps);
      linear(l.gate_proj, a.data(), g.data(), T, pool);
      linear(l.up_proj, a.data(), u.data(), T, pool);
      engine::swiglu(g.data(), u.data(), T * I, engine::DType::f32);
      linear(l.down_proj, g.data(), out.data(), T, pool);
      for (size_t i = 0; i < x_.size(); ++i) x_[i] += out[i];
    }
    ASSERT_NO_FATAL_FAILURE(check_hots(lift::mlp(last) + 1));
  }

  // Field `name` of case c read back (peak 1).
  lift::Reading read(int c, const std::string& name) const {
    const lift::Field& f = layout_[name];
    return lift::read(f.code, std::span<const float>(row(c) + f.offset, static_cast<size_t>(f.size)), 1.0f);
  }
  // The word a kNibbles or kBits field holds; fails the test (and returns 0) when invalid.
  uint32_t word(int c, const std::string& name) const {
    const lift::Reading r = read(c, name);
    EXPECT_TRUE(r.valid()) << name << " of case " << c << ": " << r.error;
    return r.valid() ? lift::word_of(layout_[name].code, r) : 0;
  }
  // The digit of a one-group field; -1 (and a failure) when invalid.
  int digit(int c, const std::string& name) const {
    const lift::Reading r = read(c, name);
    EXPECT_TRUE(r.valid()) << name << " of case " << c << ": " << r.error;
    EXPECT_EQ(r.digit.size(), 1u) << name;
    return r.valid() && !r.digit.empty() ? r.digit[0] : -1;
  }

 private:
  float* row(int c) { return x_.data() + static_cast<size_t>(c) * static_cast<size_t>(H_); }
  const float* row(int c) const { return x_.data() + static_cast<size_t>(c) * static_cast<size_t>(H_); }

  void CheckAlive(const lift::Field& f) const {
    EXPECT_TRUE(alive(f, lift::mlp(il_))) << f.name << " is not alive at L" << il_ << "'s MLP";
  }

  // Every entry is 0 or 1 (within f32's rounding of the rules' outputs), and the 1s are
  // the hot count machine_hots() gives sublayer s's input.
  void check_hots(int s) const {
    for (int c = 0; c < cases_; ++c) {
      int hot = 0;
      const float* r = row(c);
      for (int i = 0; i < H_; ++i) {
        const bool one = std::fabs(r[i] - 1.0f) < 1e-3f, zero = std::fabs(r[i]) < 1e-3f;
        ASSERT_TRUE(one || zero) << "case " << c << " dim " << i << " is " << r[i] << " at sublayer " << s;
        hot += one;
      }
      ASSERT_EQ(hot, hots_[static_cast<size_t>(s)]) << "case " << c << ": hot entries at sublayer " << s << invalid(c, s);
    }
  }

  // The fields alive at sublayer s that case c does not hold a valid code in (a failure's
  // message), and the dims outside them that are hot.
  std::string invalid(int c, int s) const {
    std::string out;
    std::vector<bool> owned(static_cast<size_t>(H_), false);
    for (const lift::Field& f : layout_.fields) {
      if (!alive(f, s)) continue;
      for (int i = 0; i < f.size; ++i) owned[static_cast<size_t>(f.offset + i)] = true;
      if (f.code.kind == lift::Code::Kind::kOnes) continue;
      const lift::Reading r = read(c, f.name);
      if (!r.valid()) out += "; " + f.name + ": " + r.error;
    }
    for (int i = 0; i < H_; ++i)
      if (!owned[static_cast<size_t>(i)] && std::fabs(row(c)[i]) > 1e-3f) out += "; dim " + std::to_string(i) + " (no field) is hot";
    return out;
  }

  // Whether layer il's mixer writes nothing (its output projection is all zeros).
  bool mixer_zero(int il) const {
    const engine::LayerWeights& l = m_.layers[static_cast<size_t>(il)];
    const engine::Linear& w = l.linear ? l.linear_attn.out_proj : l.self_attn.o_proj;
    if (w.is_sparse()) return w.sparse->nnz() == 0;
    return engine::count_nonzeros(w).entries == 0;
  }

  static void linear(const engine::Linear& w, const float* x, float* y, int64_t T, ThreadPool& pool) {
    std::vector<uint8_t> xq(static_cast<size_t>(T * w.in() * 4));
    if (w.is_sparse())
      engine::matmul_csr(w, *w.sparse, x, y, T, xq.data(), pool);
    else
      engine::matmul_reference(w, x, y, T, xq.data());
  }

  const engine::Model& m_;
  lift::Layout layout_;
  std::vector<int> hots_;
  int il_, cases_;
  int H_ = 0;
  std::vector<float> x_;
};

}  // namespace qgpu::test_util
