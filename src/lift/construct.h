// The terms the construction is written in (internal to src/lift): a Net (the builder, the
// residual layout and the residual's rms at each layer) and a Head (one DeltaNet head used
// as an exact RAM), so a stage says "slot 5 is keyed by step_w[2] and f_d[7]" instead of
// computing in_proj rows.
//
// Conventions (docs/design.md §3, "Exactness"):
// - Every residual entry that is set holds 1 (a "hot"); the residual at a sublayer's input
//   has a fixed number of hots, so its rms is a compile-time constant, and the sublayer's
//   RMSNorm weight (1 + w = rms * c) makes every hot entry exactly c, a power of two, after
//   the norm (bf16 and f16 round the stored w by less than half an ulp of c). So a weight
//   `target / c` turns a hot dim into a pre-activation of exactly `target`, and reads and
//   rule outputs are exactly 1 in every dtype: the residual's energy never drifts.
// - Keys and queries are ANDs of hot dims: alpha (sum - (n - 0.5)) is +alpha/2 when all n
//   are hot and <= -alpha/2 otherwise, where SiLU is exactly 0 (alpha = 400) and the L2
//   norm leaves an exact one-hot. A key or query with no hot slot is zero: the write is a
//   no-op (S + 0 d^T = S) and the read is exactly 0.
// - Value channels are lambda (SiLU(24) = 24 in f32, bf16, f16) or 0, so a row is replaced
//   exactly; the gated norm gives each of a row's n hot entries sqrt(dv / n) * SiLU(gate),
//   which out_proj scales back to 1. Rows hold 2, 8 or 32 hot entries (pad channels make
//   up the count), so that scale is a power of two and a read is exactly 1 in every dtype.
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
inline constexpr float kGate = 32.0f;    // SiLU(32) = 32: the z gate of a head that reads

// What the construction wrote, unit by unit and head by head, for the map (map.h): the
// stage that wrote each, the dims it reads and the dims it writes.
struct Trail {
  struct Unit {
    int layer, first, count;  // MLP units [first, first + count) of the layer
    int stage;                // index into kStages
    bool clear;               // a clear (build_clears): writes minus its one input dim
    std::vector<int> reads, writes;
  };
  struct HeadUse {
    int layer, head;
    std::vector<int> stages;  // every stage that set a weight of it
    std::vector<int> reads;   // the dims its keys, queries and values read
    std::vector<int> writes;  // the dims its out_proj writes
  };
  std::vector<Unit> units;
  std::vector<HeadUse> heads;
  HeadUse& head(int layer, int head, int stage);
};

struct Net {
  Builder& b;
  const Layout& l;
  // Hot entries of the residual at each sublayer's input: 2 il the mixer of layer il,
  // 2 il + 1 its MLP (machine_hots()).
  std::vector<int> hots;
  std::vector<int> mlp_units = std::vector<int>(64, 0);  // per layer: rule units used so far
  // The width RMSNorm averages over: the hidden size, or a merged model's wider residual
  // (the machine's dims plus a base's, +0 at the machine's tokens).
  int norm_width = 0;
  Trail* trail = nullptr;  // recorded into when set
  int stage = 0;           // the stage being built (kStages)

  float rms_at(int sublayer) const;
  // What a hot entry is after the sublayer's RMSNorm: the power of two nearest 1 / rms.
  float hot_at(int sublayer) const;
  float hot(int il) const { return hot_at(2 * il); }          // at layer il's mixer
  float mlp_hot(int il) const { return hot_at(2 * il + 1); }  // at layer il's MLP
  // Sets every RMSNorm weight: 1 + w = rms * hot.
  void set_norms();
  int fam(Tok t) const;                // the embedding dim of token family t
  int one() const { return l["one"].dim(0); }  // the dim every token sets: biases and constants
  int one2() const { return l["one2"].dim(0); }  // a second one: the threshold rules' kThresholdEdge
  int dim(const std::string& field, int i) const { return l[field].dim(i); }
  // The dim of `digit` in one-hot group `group` of the field's code (nibble g of a word,
  // bit i's rail, ...): its code checks both.
  int digit(const std::string& field, int group, int digit) const { return l[field].dim(group, digit); }
  // Literals for Mlp rules: dims [first, first + count) of a field; the families listed,
  // or all but them.
  std::vector<int> dims(const std::string& field, int first, int count) const;
  std::vector<int> families(std::initializer_list<Tok> list, bool except = false) const;
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
  // Value channel j is lambda at every token: a pad that makes up a row's hot count.
  void pad(int j);
  // Value channel j reads its input `back` tokens back (0: the current token, 3 the oldest).
  void tap(int j, int back);
  // Residual dim `to` gets 1 for a hot entry j of a read whose row has n_hot (2, 8 or 32)
  // hot entries.
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

// One SwiGLU MLP as a table of rules (several Mlp objects on one layer share its units). A
// rule fires when each of its literals holds, a literal being "one of these dims is hot"
// (dims of one one-hot group, so the sum is 0 or 1), and then writes exactly 1 to each of
// its outputs. It is two units whose gates are kRuleGate (sum - (n - 0.5)) + kRuleLift and
// the same without the lift: firing, 384 and 256, where SiLU is the identity; otherwise
// -128 and below, where SiLU is exactly -0. Up is the constant 1 and down takes the
// difference over kRuleLift, so an output is 1 whatever small errors its literals carry:
// in f32 the norms leave a hot 1e-7 off, and with one unit per rule (output proportional
// to the gate) that error grew by twice the literal count per layer (9% after five rule
// layers); with the pair it stays at f32's rounding of the difference. Every weight is a
// power of two over the norm's hot value or a small multiple of one: exact in bf16 and f16.
// A stage writes a complete set of disjoint rules per output group, so exactly one fires
// at every token and the group is a valid one-hot code of constant energy.
inline constexpr float kRuleGate = 512.0f;
inline constexpr float kRuleLift = 128.0f;
inline constexpr float kThresholdGate = 256.0f;
inline constexpr float kThresholdEdge = 18.0f;  // the firing gates' offset: SiLU is linear from 17.3
inline constexpr int kThresholdRange = 127;
inline constexpr float kThresholdVeto = 32768.0f;  // more than kThresholdGate * kThresholdRange + kThresholdEdge + kRuleLift

class Mlp {
 public:
  Mlp(Net& n, int il);
  using Literal = std::vector<int>;
  void rule(const std::vector<Literal>& literals, const std::vector<int>& outputs);

  // A threshold rule: fires when sum_i weight_i [dim_i hot] >= theta and no veto dim is hot,
  // adding each output's sign (+1 or -1) to its dim. Two units with gates kThresholdGate (sum -
  // theta) + kThresholdEdge + kRuleLift and without the lift, less kThresholdVeto per hot veto
  // dim: firing (m = sum - theta >= 0), 256 m + 146 and 256 m + 18, where SiLU is the identity
  // (in f32 from 17.3 up), so down's difference is exactly 1; otherwise 256 m + 146 <= -110,
  // where SiLU is exactly -0 (f32: below -108.5). So a rule at its threshold is as far from
  // SiLU's bend as one past it: an error of a few units in the gate (f32: a cleared dim's
  // residue, a few 1e-6, times weights up to 15 x 256, or a veto's 2^15) moves its output by
  // 1e-7, where a gate at 0 moved it by half the error. The offset sits on `one2`, apart from
  // `one`'s -256 theta + 128, so both weights have at most 8 significant bits (exact in bf16);
  // the gates round in bf16 to 256 m and 256 m + 128 or stay exact, a difference of 128 either
  // way. Stages build one-hot codes from threshold rules by telescoping: a base rule sets entry
  // 0 and the threshold rule "sum >= v" moves the hot from entry v - 1 to entry v; sums of
  // nibble values compare words without tables.
  // A one-hot group's contribution: weight[i] when dims[i] is hot (at most one is).
  struct Term {
    std::vector<int> dims;
    std::vector<int> weight;
  };
  struct Out {
    int dim;
    int sign;
  };
  void threshold(const std::vector<Term>& terms, int theta, const std::vector<int>& veto, const std::vector<Out>& outputs);
  // Clears a dim after its last reader (whatever it holds, 1 or 0, so its field's code
  // whatever it is): one unit, gate kGate through `one` (SiLU(32) = 32), up the dim, down
  // -1 / kGate, so the output is exactly minus the dim's value in bf16 and f16 (f32: to
  // the norm's rounding, 1e-7) and 0 at a base model's tokens (`one` is 0 there).
  void clear(int dim);
  int units() const { return units_; }

 private:
  int take_units(int count = 2);

  Net& n_;
  int il_;
  int units_ = 0;
};

}  // namespace qgpu::lift
