// Head and Net: every weight of a head written from its terms (construct.h has the
// conventions).
#include "lift/construct.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "base/error.h"
#include "lift/machine_model.h"
#include "lift/stages.h"

namespace qgpu::lift {

Trail::HeadUse& Trail::head(int layer, int h, int stage) {
  for (HeadUse& u : heads)
    if (u.layer == layer && u.head == h) {
      if (std::find(u.stages.begin(), u.stages.end(), stage) == u.stages.end()) u.stages.push_back(stage);
      return u;
    }
  heads.push_back({.layer = layer, .head = h, .stages = {stage}, .reads = {}, .writes = {}});
  return heads.back();
}

namespace {
void note_head(Net& n, int il, int h, std::initializer_list<int> reads, int write = -1) {
  if (!n.trail) return;
  Trail::HeadUse& u = n.trail->head(il, h, n.stage);
  u.reads.insert(u.reads.end(), reads.begin(), reads.end());
  if (write >= 0) u.writes.push_back(write);
}
void note_units(Net& n, int il, int first, int count, bool clear, std::vector<int> reads, std::vector<int> writes) {
  if (n.trail) n.trail->units.push_back({il, first, count, n.stage, clear, std::move(reads), std::move(writes)});
}
}  // namespace

float Net::rms_at(int sublayer) const {
  CHECK(sublayer >= 0 && sublayer < static_cast<int>(hots.size()));
  // As RMSNorm computes it, eps included: then 1 + w = rms * hot gives hot to f32's last bits.
  const int width = norm_width > 0 ? norm_width : b.config.hidden_size;
  return static_cast<float>(std::sqrt(double(hots[sublayer]) / width + b.config.rms_norm_eps));
}

float Net::hot_at(int sublayer) const { return std::exp2(std::round(std::log2(1.0f / rms_at(sublayer)))); }

void Net::set_norms() {
  for (int il = 0; il < b.config.num_hidden_layers; ++il)
    for (int d = 0; d < b.config.hidden_size; ++d) {
      b.at(b.layer(il) + "input_layernorm.weight", d) = rms_at(2 * il) * hot_at(2 * il) - 1.0f;
      b.at(b.layer(il) + "post_attention_layernorm.weight", d) = rms_at(2 * il + 1) * hot_at(2 * il + 1) - 1.0f;
    }
}

std::vector<int> op_dims(Net& n, std::initializer_list<Op> ops, bool except) {
  std::vector<int> d;
  for (int code = 0; code < n.l["f_op"].size; ++code) {
    bool listed = false;
    for (Op o : ops) listed |= code == static_cast<int>(o) + 1;
    if (listed != except) d.push_back(n.dim("f_op", code));
  }
  return d;
}

namespace {
int op_set(std::string_view name) {
  for (int i = 0; i < kOpSetCount; ++i)
    if (kOpSets[i].name == name) return i;
  CHECK(!"no such op set");
  return 0;
}
}  // namespace

std::vector<int> op_set_dims(Net& n, std::string_view name) { return op_dims(n, kOpSets[op_set(name)].ops); }
std::vector<int> op_veto(Net& n, std::string_view name) { return {n.dim("opf", 2 * op_set(name) + 1)}; }
std::vector<int> op_in(Net& n, std::string_view name) { return {n.dim("opf", 2 * op_set(name))}; }

Mlp::Term value_term(Net& n, const std::string& field, int first, int size) {
  Mlp::Term t;
  for (int v = 1; v < size; ++v) {
    t.dims.push_back(n.dim(field, first + v));
    t.weight.push_back(v);
  }
  return t;
}

Mlp::Term nibble_term(Net& n, const std::string& field, int g, const std::function<int(int)>& w) {
  Mlp::Term t;
  for (int v = 0; v < 16; ++v)
    if (const int x = w(v); x != 0) {
      t.dims.push_back(n.digit(field, g, v));
      t.weight.push_back(x);
    }
  return t;
}

void build_op_flags(Net& n) {
  Mlp m(n, kSchedLayer);
  for (int i = 0; i < kOpSetCount; ++i) {
    m.rule({op_dims(n, kOpSets[i].ops)}, {n.dim("opf", 2 * i)});
    m.rule({op_dims(n, kOpSets[i].ops, true)}, {n.dim("opf", 2 * i + 1)});
  }
}

std::vector<int> effect_dims(Net& n, std::initializer_list<Effect> effects, bool except) {
  std::vector<int> d;
  for (int code = 0; code < n.l["f_op"].size; ++code) {
    bool listed = false;
    if (code >= 1 && code <= kNumOps)
      for (Effect e : effects) listed |= op_info(static_cast<Op>(code - 1)).effect == e;
    if (listed != except) d.push_back(n.dim("f_op", code));
  }
  return d;
}

int Net::fam(Tok t) const { return l["fam"].dim(static_cast<int>(t)); }

std::vector<int> Net::dims(const std::string& field, int first, int count) const {
  std::vector<int> d;
  for (int i = 0; i < count; ++i) d.push_back(dim(field, first + i));
  return d;
}

std::vector<int> Net::families(std::initializer_list<Tok> list, bool except) const {
  std::vector<int> d;
  for (int f = 0; f < kNumFamilies; ++f) {
    bool listed = false;
    for (Tok t : list) listed |= static_cast<int>(t) == f;
    if (listed != except) d.push_back(fam(static_cast<Tok>(f)));
  }
  return d;
}

// Idempotent: a head opened twice (the ROM heads: written by the image stage, read by the
// fetch) gets its basics once. Channels tap() moved keep their tap.
Head::Head(Net& n, int il, int h) : n_(n), il_(il), h_(h), qkv_(n.b.layer(il) + "linear_attn.in_proj_qkv.weight") {
  const engine::Config& c = n.b.config;
  CHECK(c.is_linear(il) && h >= 0 && h < c.linear_num_value_heads);
  CHECK(c.linear_num_key_heads == c.linear_num_value_heads);  // key head h feeds value head h
  std::string a = n.b.layer(il) + "linear_attn.";
  n.b.at(a + "in_proj_b.weight", h, n.one()) = w(kBeta);
  for (int j = 0; j < c.linear_value_head_dim; ++j)
    n.b.at(a + "in_proj_z.weight", int64_t{h} * c.linear_value_head_dim + j, n.one()) = w(kGate);
  auto current_tap = [&](int64_t channel) {
    const int K = c.linear_conv_kernel_dim;
    for (int t = 0; t < K; ++t)
      if (n.b.conv(il, channel, t) != 0.0f) return;
    n.b.conv(il, channel, K - 1) = 1.0f;
  };
  for (int i = 0; i < c.linear_key_head_dim; ++i) {
    current_tap(q_row(i));
    current_tap(k_row(i));
  }
  for (int j = 0; j < c.linear_value_head_dim; ++j) current_tap(v_row(j));
  note_head(n, il, h, {n.one()});
}

int64_t Head::q_row(int i) const {
  CHECK(i >= 0 && i < n_.b.config.linear_key_head_dim);
  return int64_t{h_} * n_.b.config.linear_key_head_dim + i;
}
int64_t Head::k_row(int i) const { return n_.b.config.key_dim() + q_row(i); }
int64_t Head::v_row(int j) const {
  const engine::Config& c = n_.b.config;
  CHECK(j >= 0 && j < c.linear_value_head_dim);
  return 2 * int64_t{c.key_dim()} + int64_t{h_} * c.linear_value_head_dim + j;
}

float Head::w(float target) const { return target / n_.hot(il_); }

// A constant pre-activation in row `row` of `tensor`, through the dim every token sets.
void Head::bias(const std::string& tensor, int64_t row, float target) { n_.b.at(tensor, row, n_.one()) += w(target); }

void Head::key(int slot, int dim, float units) {
  n_.b.at(qkv_, k_row(slot), dim) += w(units * kAlpha);
  note_head(n_, il_, h_, {dim});
}
void Head::key_bias(int slot, float units) { bias(qkv_, k_row(slot), units * kAlpha); }
void Head::key_and(int slot, const std::vector<int>& dims) {
  for (int d : dims) key(slot, d);
  key_bias(slot, -(float(dims.size()) - 0.5f));
}

void Head::query(int slot, int dim, float units) {
  n_.b.at(qkv_, q_row(slot), dim) += w(units * kAlpha);
  note_head(n_, il_, h_, {dim});
}
void Head::query_bias(int slot, float units) { bias(qkv_, q_row(slot), units * kAlpha); }
void Head::query_and(int slot, const std::vector<int>& dims) {
  for (int d : dims) query(slot, d);
  query_bias(slot, -(float(dims.size()) - 0.5f));
}

void Head::value(int j, int dim, float units) {
  n_.b.at(qkv_, v_row(j), dim) += w(units * kLambda);
  note_head(n_, il_, h_, {dim});
}

void Head::pad(int j) { value(j, n_.one()); }

void Head::tap(int j, int back) {
  const int K = n_.b.config.linear_conv_kernel_dim;
  CHECK(back >= 0 && back < K);
  n_.b.conv(il_, v_row(j), K - 1) = 0.0f;
  n_.b.conv(il_, v_row(j), K - 1 - back) = 1.0f;
}

void Head::read(int j, int to, int n_hot) {
  const engine::Config& c = n_.b.config;
  CHECK(n_hot == 2 || n_hot == 8 || n_hot == 32);
  float scale = 1.0f / (std::sqrt(float(c.linear_value_head_dim) / float(n_hot)) * kGate);
  n_.b.at(n_.b.layer(il_) + "linear_attn.out_proj.weight", to, int64_t{h_} * c.linear_value_head_dim + j) = scale;
  note_head(n_, il_, h_, {}, to);
}

Mlp::Mlp(Net& n, int il) : n_(n), il_(il) {}

int Mlp::take_units(int count) {
  if (n_.mlp_units[il_] + count > n_.b.config.intermediate_size) std::fprintf(stderr, "layer %d's MLP is full\n", il_);
  CHECK(n_.mlp_units[il_] + count <= n_.b.config.intermediate_size);
  const int u = n_.mlp_units[il_];
  n_.mlp_units[il_] += count;
  units_ += count;
  return u;
}

void Mlp::clear(int dim) {
  const std::string p = n_.b.layer(il_) + "mlp.";
  const int u = take_units(1);
  const float hot = n_.mlp_hot(il_);
  n_.b.at(p + "gate_proj.weight", u, n_.one()) = kGate / hot;
  n_.b.at(p + "up_proj.weight", u, dim) = 1.0f / hot;
  n_.b.at(p + "down_proj.weight", dim, u) = -1.0f / kGate;
  note_units(n_, il_, u, 1, true, {n_.one(), dim}, {dim});
}

void Mlp::threshold(const std::vector<Term>& terms, int theta, const std::vector<int>& veto, const std::vector<Out>& outputs) {
  const std::string p = n_.b.layer(il_) + "mlp.";
  int hi = 0;
  for (const Term& t : terms) {
    CHECK(t.dims.size() == t.weight.size() && !t.dims.empty());
    int most = 0;
    for (int w : t.weight) {
      // At most 7 significant bits, so kThresholdGate w / hot is exact in bf16; an f32 residue
      // times it stays below what a veto's kThresholdVeto gives (the NaN tests weigh 24 a bit,
      // up to 96 a nibble: stage_pred.cpp).
      CHECK(std::abs(w) <= 127);
      most = std::max(most, w);
    }
    hi += most;
  }
  CHECK(std::abs(theta) <= kThresholdRange && hi - theta <= kThresholdRange);  // the bias and a firing gate: exact
  const int u = take_units();
  const float hot = n_.mlp_hot(il_);
  for (int k = 0; k < 2; ++k) {
    for (const Term& t : terms)
      for (size_t i = 0; i < t.dims.size(); ++i)
        n_.b.at(p + "gate_proj.weight", u + k, t.dims[i]) += kThresholdGate * float(t.weight[i]) / hot;
    for (int d : veto) n_.b.at(p + "gate_proj.weight", u + k, d) -= kThresholdVeto / hot;
    const float bias = -float(theta) * kThresholdGate + (k == 0 ? kRuleLift : 0.0f);
    n_.b.at(p + "gate_proj.weight", u + k, n_.one()) += bias / hot;
    n_.b.at(p + "gate_proj.weight", u + k, n_.one2()) += kThresholdEdge / hot;
    n_.b.at(p + "up_proj.weight", u + k, n_.one()) = 1.0f / hot;
    for (const Out& o : outputs) {
      CHECK(o.sign == 1 || o.sign == -1);
      n_.b.at(p + "down_proj.weight", o.dim, u + k) += float(o.sign) * (k == 0 ? 1.0f : -1.0f) / kRuleLift;
    }
  }
  if (n_.trail) {
    std::vector<int> reads = {n_.one(), n_.one2()}, writes;
    for (const Term& t : terms) reads.insert(reads.end(), t.dims.begin(), t.dims.end());
    reads.insert(reads.end(), veto.begin(), veto.end());
    for (const Out& o : outputs) writes.push_back(o.dim);
    note_units(n_, il_, u, 2, false, std::move(reads), std::move(writes));
  }
}

void Mlp::rule(const std::vector<Literal>& literals, const std::vector<int>& outputs) {
  const std::string p = n_.b.layer(il_) + "mlp.";
  CHECK(!literals.empty());
  for (const Literal& lit : literals) CHECK(!lit.empty());
  CHECK(literals.size() <= 32);  // the gate's bias, 128 (4 n - 3) / hot, has 7 significant bits: exact in bf16
  const int u = take_units();
  const float hot = n_.mlp_hot(il_);
  // Two units that differ by kRuleLift in the gate: firing, 3 kRuleLift and 2 kRuleLift
  // (SiLU is the identity there), so down's difference is exactly 1 however far the
  // literals are from 1; otherwise -kRuleLift and below, where SiLU is exactly -0.
  for (int k = 0; k < 2; ++k) {
    for (const Literal& lit : literals)
      for (int d : lit) n_.b.at(p + "gate_proj.weight", u + k, d) += kRuleGate / hot;
    const float bias = -(float(literals.size()) - 0.5f) * kRuleGate + (k == 0 ? kRuleLift : 0.0f);
    n_.b.at(p + "gate_proj.weight", u + k, n_.one()) += bias / hot;
    n_.b.at(p + "up_proj.weight", u + k, n_.one()) = 1.0f / hot;
    for (int d : outputs) n_.b.at(p + "down_proj.weight", d, u + k) = (k == 0 ? 1.0f : -1.0f) / kRuleLift;
  }
  if (n_.trail) {
    std::vector<int> reads = {n_.one()};
    for (const Literal& lit : literals) reads.insert(reads.end(), lit.begin(), lit.end());
    note_units(n_, il_, u, 2, false, std::move(reads), outputs);
  }
}

}  // namespace qgpu::lift
