// The terms the construction is written in (internal to src/lift): a Net (the builder, the
// residual layout and the residual's rms at each layer) and a Head (one DeltaNet head used
// as an exact RAM), so a stage says "slot 5 is keyed by step_w[2] and f_d[7]" instead of
// computing in_proj rows.
//
// Conventions (docs/design.md §3, DESIGN-NOTES §2-3):
// - Every residual entry that is set holds about 1 (a "hot"); the residual at a layer's
//   input has a fixed number of hots, so its rms is a compile-time constant and a weight
//   `units * scale * rms` turns a hot dim into a pre-activation of `units * scale`.
// - Keys and queries are ANDs of hot dims: alpha (sum - (n - 0.5)) is +alpha/2 when all n
//   are hot and <= -alpha/2 otherwise, where SiLU is exactly 0 (alpha = 400) and the L2
//   norm leaves an exact one-hot. A key or query with no hot slot is zero: the write is a
//   no-op (S + 0 d^T = S) and the read is exactly 0.
// - Value channels are lambda (SiLU(24) = 24 in f32, bf16, f16) or 0, so a row is replaced
//   exactly; the gated norm gives each of a row's n hot entries sqrt(dv / n) * SiLU(gate),
//   which out_proj scales back to 1.
#pragma once

#include <string>
#include <vector>

#include "gpu/vocab.h"
#include "lift/builder.h"
#include "lift/layout.h"

namespace qgpu::lift {

inline constexpr float kAlpha = 400.0f;  // key and query pre-activation scale
inline constexpr float kLambda = 24.0f;  // value code entries
inline constexpr float kBeta = 30.0f;    // sigmoid(30) = 1: every write replaces the row
inline constexpr float kGate = 20.0f;    // SiLU(20) = 20: the z gate of a head that reads

struct Net {
  Builder& b;
  const Layout& l;
  std::vector<int> hots;  // hot entries of the residual at each layer's input

  float rms(int il) const;             // of the residual at layer il's input
  int fam(Tok t) const;                // the embedding dim of token family t
  int dim(const std::string& field, int i) const { return l[field].dim(i); }
};

// One DeltaNet head as a RAM: beta 1, decay 1, a constant z gate, the current conv tap for
// q, k and v (tap() moves a value channel to another tap).
class Head {
 public:
  Head(Net& n, int il, int h);

  // key[slot] += units * alpha when dim is hot (bias: at every token).
  void key(int slot, int dim, float units = 1.0f);
  void key_bias(int slot, float units);
  // key[slot] = alpha (sum of dims - (dims.size() - 0.5)): the AND of the dims.
  void key_and(int slot, const std::vector<int>& dims);
  void query(int slot, int dim, float units = 1.0f);
  void query_bias(int slot, float units);
  void query_and(int slot, const std::vector<int>& dims);
  // value[j] += units * lambda when dim is hot.
  void value(int j, int dim, float units = 1.0f);
  // Value channel j reads its input `back` tokens back (0: the current token, 3 the oldest).
  void tap(int j, int back);
  // Residual dim `to` gets 1 for a hot entry j of a read whose row has n_hot hot entries.
  void read(int j, int to, int n_hot);

  int il() const { return il_; }
  int h() const { return h_; }

 private:
  int64_t q_row(int i) const;
  int64_t k_row(int i) const;
  int64_t v_row(int j) const;
  float w(float target) const;  // the weight of a hot dim for a pre-activation `target`
  void bias(const std::string& tensor, int64_t row, float target);

  Net& n_;
  int il_, h_;
  std::string qkv_;
};

}  // namespace qgpu::lift
