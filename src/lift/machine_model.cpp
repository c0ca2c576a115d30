// The GPU-only model: its config and weights, built stage by stage in kStages' order
// (plan.h has the layers and fields; stages.h the stages; construct.h the conventions).
#include "lift/machine_model.h"

#include <algorithm>
#include <iterator>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "gpu/vocab.h"
#include "lift/stages.h"

namespace qgpu::lift {

namespace {

// Every field is cleared where its life says (layout.h), so the fields born later can
// take its dims.
void build_clears(Net& n) {
  Mlp input(n, kHeadPatternLayer);  // the head pattern the tied embedding writes (hpad's clear counts its hots)
  for (const Field& f : n.l.fields)
    if (f.life.head)
      for (int i = 0; i < f.size; ++i) input.clear(f.dim(i));
  for (const Field& f : n.l.fields) {
    if (f.life.cleared == kNever) continue;
    Mlp m(n, (f.life.cleared - 1) / 2);
    for (int i = 0; i < f.size; ++i) m.clear(f.dim(i));
  }
}

}  // namespace

engine::Config machine_config() {
  engine::Config c;
  c.hidden_size = machine_hidden_size();
  c.num_hidden_layers = kLayerCount;
  c.layer_types.clear();
  for (const LayerPlan& p : kLayers) c.layer_types.push_back(p.attention ? "full_attention" : "linear_attention");
  // Qwen3.5-2B's MLP width, which the construction fills: two units per rule or threshold
  // rule, one per cleared dim (build_clears uses what the layers have left; L5 is the fullest).
  c.intermediate_size = 6144;
  c.vocab_size = (vocab_size() + 63) / 64 * 64;
  c.num_attention_heads = 8;
  c.num_key_value_heads = 2;
  c.head_dim = 256;
  c.linear_num_key_heads = 16;
  c.linear_num_value_heads = 16;
  c.linear_key_head_dim = 128;
  c.linear_value_head_dim = 128;
  c.tie_word_embeddings = true;  // the head is the embedding (stage_emit.cpp), as in Qwen3.5-2B
  c.dtype = "float32";
  c.eos_token_id = {token_id({Tok::kEnd})};
  CHECK(machine_layout().used <= c.hidden_size);
  return c;
}

Builder build_machine(int norm_width, bool shared, Trail* trail) {
  Layout l = machine_layout(shared);
  engine::Config c = machine_config();
  if (!shared) c.hidden_size = (l.used + 63) / 64 * 64;
  Builder b(c);
  Net n{b, l, machine_hots()};
  n.norm_width = norm_width;
  n.trail = trail;
  n.set_norms();
  // In kStages' order.
  void (*const build[])(Net&) = {build_embedding, build_image,     build_state,      build_lane_control,
                                 build_launch,    build_lanes,     build_scheduler,  build_operands,
                                 build_op_flags,  build_multiplier, build_alu,       build_predicates,
                                 build_select,    build_atomics,   build_float,      build_emit,
                                 build_clears};
  static_assert(std::size(build) == std::size(kStages));
  for (size_t i = 0; i < std::size(build); ++i) {
    n.stage = static_cast<int>(i);
    build[i](n);
  }
  return b;
}

std::string machine_tokenizer_json() {
  nlohmann::ordered_json vocab = nlohmann::ordered_json::object();
  for (int id = 0; id < vocab_size(); ++id) vocab[record_text(decode_token(id))] = id;
  nlohmann::ordered_json j = {
      {"version", "1.0"}, {"truncation", nullptr}, {"padding", nullptr}, {"added_tokens", nlohmann::ordered_json::array()},
      {"normalizer", nullptr}, {"pre_tokenizer", {{"type", "WhitespaceSplit"}}}, {"post_processor", nullptr},
      {"decoder", nullptr}, {"model", {{"type", "WordLevel"}, {"vocab", vocab}, {"unk_token", "end"}}}};
  return j.dump();
}

void write_machine_model(const std::string& dir, engine::DType dtype) {
  build_machine().write(dir, dtype, machine_tokenizer_json());
}

MachineCounts machine_counts(const Builder& b) {
  const engine::Config& c = b.config;
  MachineCounts n;
  n.layer_nonzero.assign(static_cast<size_t>(c.num_hidden_layers), 0);
  for (const auto& [name, t] : b.tensors) {
    n.parameters += t.numel();
    int64_t set_nonzero = 0;
    t.set.for_each([&](int64_t, float x) { set_nonzero += x != 0.0f; });
    const int64_t nz = set_nonzero + (t.fill != 0.0f ? t.numel() - static_cast<int64_t>(t.set.size()) : 0);
    n.nonzero += nz;
    for (int il = 0; il < c.num_hidden_layers; ++il)
      if (name.rfind(b.layer(il), 0) == 0) n.layer_nonzero[static_cast<size_t>(il)] += nz;
  }
  return n;
}

std::string machine_summary(const Builder& b) {
  const engine::Config& c = b.config;
  const MachineCounts counts = machine_counts(b);
  const std::vector<int64_t>& layer_nonzero = counts.layer_nonzero;
  std::string per_layer;
  for (int il = 0; il < c.num_hidden_layers; ++il)
    per_layer += fmt::format("{}L{} {}", per_layer.empty() ? "" : ", ", il, layer_nonzero[static_cast<size_t>(il)]);
  std::string heads, mlp;
  int total_heads = 0, widest = 0, widest_layer = 0;
  for (int il = 0; il < c.num_hidden_layers; ++il) {
    if (c.is_linear(il)) {
      // A head is used when its key is (it writes; memory is written and read by the host).
      std::vector<bool> used(static_cast<size_t>(c.linear_num_key_heads));
      b.tensors.at(b.layer(il) + "linear_attn.in_proj_qkv.weight").set.for_each([&](int64_t i, float x) {
        const int64_t row = i / c.hidden_size;
        if (x != 0.0f && row >= c.key_dim() && row < 2 * c.key_dim())
          used[static_cast<size_t>((row - c.key_dim()) / c.linear_key_head_dim)] = true;
      });
      const int n = static_cast<int>(std::count(used.begin(), used.end(), true));
      total_heads += n;
      heads += fmt::format("{}L{} {}", heads.empty() ? "" : ", ", il, n);
    }
    std::vector<bool> unit(static_cast<size_t>(c.intermediate_size));
    b.tensors.at(b.layer(il) + "mlp.down_proj.weight").set.for_each([&](int64_t i, float x) {
      if (x != 0.0f) unit[static_cast<size_t>(i % c.intermediate_size)] = true;
    });
    const int units = static_cast<int>(std::count(unit.begin(), unit.end(), true));
    if (units > widest) widest = units, widest_layer = il;
    mlp += fmt::format("{}L{} {}", mlp.empty() ? "" : ", ", il, units);
  }
  // Where the width goes (docs/design.md §3, "Where the width goes"): dims alive after
  // the embedding and after each layer's mixer and MLP.
  const Layout l = machine_layout();
  std::string alive = fmt::format("E {}", l.alive(kEmbedding));
  int most = 0, most_at = 0;
  for (int il = 0; il < c.num_hidden_layers; ++il) {
    alive += fmt::format(", L{} {}/{}", il, l.alive(mixer(il)), l.alive(lift::mlp(il)));
    for (int s : {mixer(il), lift::mlp(il)})
      if (l.alive(s) > most) most = l.alive(s), most_at = s;
  }
  return fmt::format(
      "residual: {} of {} dims used; the most alive at once {}, after L{}'s {}\n"
      "dims alive after each sublayer (mixer/MLP): {}\nDeltaNet heads used: {} ({})\n"
      "widest MLP: {} of {} units (layer {})\nMLP units (two per rule or threshold rule): {}\nparameters: {} ({} nonzero)\n"
      "nonzero per layer: {}\n",
      l.used, c.hidden_size, most, most_at / 2, most_at % 2 ? "MLP" : "mixer", alive, total_heads, heads, widest,
      c.intermediate_size, widest_layer, mlp, counts.parameters, counts.nonzero, per_layer);
}

}  // namespace qgpu::lift
