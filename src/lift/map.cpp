// The map: the plan's fields and layers, and the trail of a construction grouped by stage
// and field (map.h).
#include "lift/map.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include <fmt/format.h>

#include "base/error.h"
#include "gpu/vocab.h"
#include "lift/construct.h"
#include "lift/machine_model.h"

namespace qgpu::lift {

namespace {

using ojson = nlohmann::ordered_json;

// What a head of the machine is for, from the plan's head constants.
std::string head_role(int il, int h) {
  static const char* const kControl[] = {"the image address", "the ROM block address", "the step",
                                         "the consumed value's bytes", "the consumed value (v)", "the tag's bytes",
                                         "the value's tag (v)", "the energy pad at pred", "the last warp",
                                         "the tag of a 4-byte value (bytes)", "the tag of a 4-byte value (none)"};
  static const char* const kRomFields[] = {"op", "guard", "d", "a", "b", "c", "imm"};
  static const char* const kHeader[] = {"gx", "gy", "bx", "by", "the wave"};
  static const char* const kPortNames[] = {"a", "b", "c", "guard"};
  if (il == kControlLayer) {
    for (int i = 0; i < 5; ++i)
      if (h == kHeaderHeads[i]) return fmt::format("launch header: {}", kHeader[i]);
    if (h < static_cast<int>(std::size(kControl))) return fmt::format("control: {}", kControl[h]);
  }
  if (il == kRomLayer)
    for (int bank = 0; bank < kRomBanks; ++bank)
      for (int f = 0; f < kRomHeadCount; ++f)
        if (kRomHeads[bank][f] == h) return fmt::format("ROM bank {} (blocks {}..{}): field {}", bank, bank * kBankBlocks, (bank + 1) * kBankBlocks - 1, kRomFields[f]);
  if (il == kRegisterLayer)
    for (int port = 0; port < kPorts; ++port)
      for (int lane = 0; lane < kLanes; ++lane)
        if (register_head(port, lane) == h) return fmt::format("register file: read port {} of lane {}", kPortNames[port], lane);
  if (il == kParityLayer && h < kMaxCtas) return fmt::format("the barrier parity of CUDA block slot {}", h);
  if (il == kLaneLayer)
    for (int w = 0; w < kWarps; ++w)
      for (int lane = 0; lane < kLanes; ++lane)
        if (lane_head(w, lane) == h) return fmt::format("lane status: warp {} lane {}", w, lane);
  if (il == kMemoryLayer && h == kMemoryHead) return "global memory: 126 words and the null slot";
  return "unnamed";
}

// The field that holds `dim` at sublayer s, as a reader (alive at s's input), a writer
// (alive after s) or a clear (cleared by s). The placement never gives two fields alive at
// once one dim, so there is at most one.
enum class As { kRead, kWrite, kClear };
const Field* holder(const Layout& l, int dim, int s, As as) {
  const Field* found = nullptr;
  for (const Field& f : l.fields) {
    if (dim < f.offset || dim >= f.offset + f.size) continue;
    const Life& life = f.life;
    bool ok = false;
    switch (as) {
      case As::kRead: ok = (life.born < s && s <= life.cleared) || (life.head && s <= kHeadPatternCleared); break;
      case As::kWrite: ok = (life.born <= s && s < life.cleared) || (life.head && s == kEmbedding); break;
      case As::kClear: ok = life.cleared == s || (life.head && s == kHeadPatternCleared); break;
    }
    if (!ok) continue;
    CHECK(!found && "two fields hold one dim at one sublayer");
    found = &f;
  }
  return found;
}

std::vector<std::string> field_names(const Layout& l, const std::vector<int>& dims, int s, As as) {
  std::set<std::string> seen;
  std::vector<std::string> names;
  for (int d : dims) {
    const Field* f = holder(l, d, s, as);
    if (!f) fmt::print(stderr, "map: dim {} at {} ({}) is held by no field\n", d, sublayer_name(s), static_cast<int>(as));
    CHECK(f && "a weight reads or writes a dim that no field holds there");
    if (seen.insert(f->name).second) names.push_back(f->name);
  }
  return names;
}

ojson ranges_json(std::vector<int> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  ojson out = ojson::array();
  for (size_t i = 0; i < v.size();) {
    size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    out.push_back({v[i], v[j]});
    i = j + 1;
  }
  return out;
}

std::string ranges_text(const ojson& ranges) {
  std::string s;
  for (const ojson& r : ranges) {
    const int a = r[0], b = r[1];
    if (!s.empty()) s += ',';
    s += a == b ? fmt::to_string(a) : fmt::format("{}-{}", a, b);
  }
  return s;
}

ojson code_json(const Code& c) {
  ojson j = {{"kind", c.kind_name()}, {"text", c.describe()}, {"hots", c.hots()}};
  if (c.kind == Code::Kind::kOnes) j["width"] = c.ones;
  else j["radix"] = c.radix;
  return j;
}

}  // namespace

namespace {

ojson layers_json(const MapOffsets& at) {
  const std::vector<int> hots = machine_hots();
  ojson layers = ojson::array();
  for (int il = 0; il < kLayerCount; ++il)
    layers.push_back({{"layer", il + at.layers},
                      {"mixer", kLayers[il].attention ? "attention" : "deltanet"},
                      {"holds", kLayers[il].mixer},
                      {"mlp", kLayers[il].mlp},
                      {"hots", {hots[static_cast<size_t>(mixer(il))], hots[static_cast<size_t>(mlp(il))]}}});
  return layers;
}

ojson fields_json(const Layout& l, const MapOffsets& at) {
  ojson fields = ojson::array();
  for (const Field& f : l.fields)
    fields.push_back({{"name", f.name},
                      {"meaning", f.meaning},
                      {"code", code_json(f.code)},
                      {"dims", {f.offset + at.dims, f.size}},
                      {"born", f.life.born},
                      {"born_at", sublayer_name(f.life.born)},
                      {"cleared", f.life.cleared == kNever ? ojson(nullptr) : ojson(f.life.cleared)},
                      {"cleared_at", f.life.cleared == kNever ? ojson(nullptr) : ojson(sublayer_name(f.life.cleared))},
                      {"head", f.life.head}});
  return fields;
}

// The trail's units grouped by layer, stage, clear or rule, and the fields written.
ojson units_json(const Trail& trail, const Layout& l, const MapOffsets& at) {
  struct Group {
    int layer, stage;
    bool clear;
    std::vector<std::string> writes, reads;
    std::vector<int> units;
  };
  std::vector<Group> groups;
  std::map<std::string, size_t> index;
  for (const Trail::Unit& u : trail.units) {
    const int s = mlp(u.layer);
    std::vector<std::string> writes = field_names(l, u.writes, s, u.clear ? As::kClear : As::kWrite);
    // A clear reads `one` and the dim it clears.
    const std::vector<std::string> reads =
        u.clear ? std::vector<std::string>{"one", writes.at(0)} : field_names(l, u.reads, s, As::kRead);
    std::sort(writes.begin(), writes.end());
    const std::string key = fmt::format("{}|{}|{}|{}", u.layer, u.stage, u.clear, fmt::join(writes, ","));
    auto [it, fresh] = index.emplace(key, groups.size());
    if (fresh) groups.push_back({u.layer, u.stage, u.clear, writes, {}, {}});
    Group& g = groups[it->second];
    for (const std::string& r : reads)
      if (std::find(g.reads.begin(), g.reads.end(), r) == g.reads.end()) g.reads.push_back(r);
    for (int k = 0; k < u.count; ++k) g.units.push_back(u.first + k);
  }
  std::stable_sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) {
    return a.layer != b.layer ? a.layer < b.layer : a.units.front() < b.units.front();
  });
  ojson units = ojson::array();
  for (const Group& g : groups) {
    const bool pattern = g.clear && g.layer == kHeadPatternLayer && l[g.writes.at(0)].life.cleared != kHeadPatternCleared;
    units.push_back({{"layer", g.layer + at.layers},
                     {"stage", kStages[g.stage].name},
                     {"kind", !g.clear ? "rule" : pattern ? "head pattern clear" : "clear"},
                     {"writes", g.writes},
                     {"reads", g.reads},
                     {"count", g.units.size()},
                     {"units", ranges_json(g.units)}});
  }
  return units;
}

ojson heads_json(const Trail& trail, const Layout& l, const MapOffsets& at) {
  ojson heads = ojson::array();
  std::vector<Trail::HeadUse> used = trail.heads;
  std::sort(used.begin(), used.end(), [](const auto& a, const auto& b) { return std::pair(a.layer, a.head) < std::pair(b.layer, b.head); });
  for (const Trail::HeadUse& h : used) {
    ojson stages = ojson::array();
    for (int s : h.stages) stages.push_back(kStages[s].name);
    heads.push_back({{"layer", h.layer + at.layers},
                     {"head", h.head},
                     {"role", head_role(h.layer, h.head)},
                     {"stages", stages},
                     {"reads", field_names(l, h.reads, mixer(h.layer), As::kRead)},
                     {"writes", field_names(l, h.writes, mixer(h.layer), As::kWrite)}});
  }
  return heads;
}

ojson tokens_json(const MapOffsets& at) {
  ojson tokens = ojson::array();
  for (const Family& f : kFamilies)
    tokens.push_back({{"family", f.name},
                      {"first", family_offset(f.kind) + at.tokens},
                      {"count", f.size},
                      {"fields", f.fields},
                      {"meaning", f.meaning}});
  return tokens;
}

}  // namespace

ojson machine_map(const MapOffsets& at) {
  Trail trail;
  const Builder b = build_machine(0, true, &trail);
  const Layout& l = machine_fields();
  const engine::Config& c = b.config;
  ojson j;
  j["format"] = kMapFormat;
  j["construction"] = construction_fingerprint();
  j["offsets"] = {{"dims", at.dims}, {"tokens", at.tokens}, {"layers", at.layers}};
  j["machine"] = {{"hidden_size", c.hidden_size},      {"layers", c.num_hidden_layers},
                  {"intermediate_size", c.intermediate_size}, {"vocab", vocab_size()},
                  {"deltanet_heads", c.linear_num_value_heads}, {"key_head_dim", c.linear_key_head_dim},
                  {"value_head_dim", c.linear_value_head_dim}};
  j["layers"] = layers_json(at);
  j["fields"] = fields_json(l, at);
  j["units"] = units_json(trail, l, at);
  j["heads"] = heads_json(trail, l, at);
  j["tokens"] = tokens_json(at);
  ojson ops = ojson::array();
  for (Op o : computed_ops()) ops.push_back(op_info(o).mnemonic);
  j["computed_ops"] = ops;  // the ops whose records the layers compute (generation_gap's)
  return j;
}

namespace {

const ojson* find_field(const ojson& map, const std::string& name) {
  for (const ojson& f : map["fields"])
    if (f["name"] == name) return &f;
  return nullptr;
}

std::string field_line(const ojson& f) {
  const int first = f["dims"][0], size = f["dims"][1];
  return fmt::format("{:<9} dims {:>4}-{:<4} {:<38} {:>12} -> {:<12} {}", f["name"].get<std::string>(), first,
                     first + size - 1, f["code"]["text"].get<std::string>(), f["born_at"].get<std::string>(),
                     f["cleared_at"].is_null() ? "(kept)" : f["cleared_at"].get<std::string>(),
                     f["meaning"].get<std::string>());
}

std::string join(const ojson& list, const char* sep) {
  std::string s;
  for (const ojson& x : list) {
    if (!s.empty()) s += sep;
    s += x.get<std::string>();
  }
  return s;
}

bool contains(const ojson& list, const std::string& name) {
  for (const ojson& x : list)
    if (x == name) return true;
  return false;
}

}  // namespace

std::string map_text(const ojson& map) {
  std::string s = fmt::format("the machine's map ({}; construction {}): {} fields, {} unit groups, {} heads\n",
                              map["format"].get<std::string>(), map["construction"].get<std::string>(),
                              map["fields"].size(), map["units"].size(), map["heads"].size());
  const ojson& o = map["offsets"];
  if (o["dims"] != 0 || o["tokens"] != 0)
    s += fmt::format("in a merged checkpoint: the machine's dims from {}, its tokens from {}, its layers from {}\n",
                     o["dims"].get<int>(), o["tokens"].get<int>(), o["layers"].get<int>());
  s += "\nlayers:\n";
  for (const ojson& l : map["layers"])
    s += fmt::format("  L{:<2} {:<9} {}\n      mlp: {}\n", l["layer"].get<int>(), l["mixer"].get<std::string>(),
                     l["holds"].get<std::string>(), l["mlp"].get<std::string>());
  s += "\nfields (name, residual dims, code, written first -> cleared, meaning):\n";
  for (const ojson& f : map["fields"]) s += "  " + field_line(f) + "\n";
  s += "\ntokens (family, ids):\n";
  for (const ojson& t : map["tokens"])
    s += fmt::format("  {:<6} {}-{}\n", t["family"].get<std::string>(), t["first"].get<int>(),
                     t["first"].get<int>() + t["count"].get<int>() - 1);
  s += fmt::format("\nops the layers compute ({}; the compiler writes the others in these): {}\n",
                   map["computed_ops"].size(), join(map["computed_ops"], " "));
  s += "\n`qgpu map --field NAME` shows the units and heads that write, read and clear a field; --json has them all\n";
  return s;
}

std::string map_field_text(const ojson& map, const std::string& name) {
  const ojson* f = find_field(map, name);
  if (!f) fail("map: no field '{}': `qgpu map` lists them all", name);
  std::string s = field_line(*f) + "\n";
  auto groups = [&](const char* key, const char* kind, const char* title) {
    std::string out;
    for (const ojson& g : map["units"])
      if (g["kind"] == kind && contains(g[key], name))
        out += fmt::format("  L{}.mlp units {} ({}, stage {}): writes {}; reads {}\n", g["layer"].get<int>(),
                           ranges_text(g["units"]), g["count"].get<int>(), g["stage"].get<std::string>(),
                           join(g["writes"], " "), join(g["reads"], " "));
    if (!out.empty()) s += fmt::format("{}:\n{}", title, out);
  };
  groups("writes", "rule", "written by");
  for (const ojson& h : map["heads"])
    if (contains(h["writes"], name))
      s += fmt::format("written by L{}.mixer head {}: {} (stage {})\n", h["layer"].get<int>(), h["head"].get<int>(),
                       h["role"].get<std::string>(), join(h["stages"], ", "));
  groups("reads", "rule", "read by");
  for (const ojson& h : map["heads"])
    if (contains(h["reads"], name))
      s += fmt::format("read by L{}.mixer head {}: {}\n", h["layer"].get<int>(), h["head"].get<int>(), h["role"].get<std::string>());
  groups("writes", "clear", "cleared by");
  groups("writes", "head pattern clear", "the head pattern in its dims (from the tied embedding), cleared by");
  return s;
}

std::string map_markdown_layers(const ojson& map) {
  std::string s = "| layer | mixer | the mixer holds | heads | the MLP holds | MLP units |\n|---|---|---|---|---|---|\n";
  for (const ojson& l : map["layers"]) {
    const int il = l["layer"];
    int heads = 0, units = 0;
    for (const ojson& h : map["heads"]) heads += h["layer"] == il;
    for (const ojson& g : map["units"]) units += g["layer"] == il ? g["count"].get<int>() : 0;
    s += fmt::format("| L{} | {} | {} | {} | {} | {} |\n", il, l["mixer"].get<std::string>(), l["holds"].get<std::string>(),
                     heads, l["mlp"].get<std::string>(), units);
  }
  return s;
}

std::string map_markdown_fields(const ojson& map) {
  std::string s = "| field | dims | code | written first | cleared | meaning |\n|---|---|---|---|---|---|\n";
  for (const ojson& f : map["fields"]) {
    const int first = f["dims"][0], size = f["dims"][1];
    s += fmt::format("| `{}` | {}-{} | {} | {} | {} | {} |\n", f["name"].get<std::string>(), first, first + size - 1,
                     f["code"]["text"].get<std::string>(), f["born_at"].get<std::string>(),
                     f["cleared_at"].is_null() ? "kept" : f["cleared_at"].get<std::string>(),
                     f["meaning"].get<std::string>());
  }
  return s;
}

ojson read_map(const std::string& dir) {
  const std::string path = (std::filesystem::path(dir) / kMapFile).string();
  std::ifstream in(path);
  if (!in)
    fail("{}: cannot read: the checkpoint has no map. `qgpu compile-model` and `qgpu build` write one; a checkpoint "
         "from an older qgpu needs them run again",
         path);
  ojson j = ojson::parse(in, nullptr, false);
  if (j.is_discarded()) fail("{}: not valid JSON", path);
  if (!j.is_object() || j.value("format", "") != kMapFormat)
    fail("{}: not a map of this qgpu (format '{}', expected '{}'): write it again with `qgpu compile-model` or `qgpu build`",
         path, j.is_object() ? j.value("format", "") : "", kMapFormat);
  return j;
}

namespace {

// A dim -> field index for one sublayer: who may be read there, written, cleared.
struct Owners {
  std::vector<int> read, write, clear;  // per machine dim: field index or -1
};

// check_map's work: the map's fields, unit groups and heads indexed, then every tensor of
// the machine's layers and its token rows scanned against them.
class MapChecker {
 public:
  MapChecker(const ojson& map, const engine::SafetensorsDir& w, size_t limit) : map_(map), w_(w), limit_(limit) {
    d0_ = map["offsets"]["dims"], t0_ = map["offsets"]["tokens"], l0_ = map["offsets"]["layers"];
    G_ = map["machine"]["hidden_size"], layers_ = map["machine"]["layers"], vocab_ = map["machine"]["vocab"];
    dk_ = map["machine"]["key_head_dim"], dv_ = map["machine"]["value_head_dim"], nheads_ = map["machine"]["deltanet_heads"];
    for (const ojson& f : map["fields"]) fields_.push_back(&f);
    index_owners();
    index_units();
    for (const ojson& h : map["heads"]) heads_[{h["layer"].get<int>() - l0_, h["head"].get<int>()}] = &h;
  }

  MapCheck run() {
    for (int il = 0; il < layers_; ++il) {
      check_mlp(il);
      if (is_attention(il)) check_attention(il);
      else check_deltanet(il);
    }
    check_tokens();
    return std::move(r_);
  }

 private:
  void problem(std::string s) {
    if (r_.problems.size() < limit_) r_.problems.push_back(std::move(s));
  }
  const std::string& name(size_t i) const { return (*fields_[i])["name"].get_ref<const std::string&>(); }
  Owners& owners(int s) { return at_[static_cast<size_t>(s + 1)]; }

  // The owners of every dim at every sublayer (the rules the map was made with).
  void index_owners() {
    at_.resize(static_cast<size_t>(2 * layers_ + 1));
    for (int s = kEmbedding; s < 2 * layers_; ++s) {
      Owners& o = owners(s);
      for (auto* v : {&o.read, &o.write, &o.clear}) v->assign(static_cast<size_t>(G_), -1);
      for (size_t i = 0; i < fields_.size(); ++i) {
        const ojson& f = *fields_[i];
        const int born = f["born"], cleared = f["cleared"].is_null() ? kNever : f["cleared"].get<int>();
        const bool head = f["head"];
        const bool roles[] = {(born < s && s <= cleared) || (head && s <= kHeadPatternCleared),
                              (born <= s && s < cleared) || (head && s == kEmbedding),
                              cleared == s || (head && s == kHeadPatternCleared)};
        std::vector<int>* owner[] = {&o.read, &o.write, &o.clear};
        for (int k = 0; k < f["dims"][1].get<int>(); ++k) {
          const int dim = f["dims"][0].get<int>() - d0_ + k;
          if (dim < 0 || dim >= G_) {
            problem(fmt::format("field {}: dim {} is outside the machine's {} dims", name(i), dim + d0_, G_));
            continue;
          }
          for (int role = 0; role < 3; ++role) {
            if (!roles[role]) continue;
            int& slot = (*owner[role])[static_cast<size_t>(dim)];
            if (slot >= 0)
              problem(fmt::format("dim {} at {}: fields {} and {} both {} there", dim + d0_, sublayer_name(s),
                                  name(static_cast<size_t>(slot)), name(i), role == 0 ? "read" : role == 1 ? "written" : "cleared"));
            slot = static_cast<int>(i);
          }
        }
      }
    }
  }

  // Per layer: unit -> its group.
  void index_units() {
    groups_.resize(static_cast<size_t>(layers_));
    for (const ojson& g : map_["units"]) {
      const int il = g["layer"].get<int>() - l0_;
      if (il < 0 || il >= layers_) {
        problem(fmt::format("a unit group names layer {}, not one of the machine's", il + l0_));
        continue;
      }
      auto& v = groups_[static_cast<size_t>(il)];
      for (const ojson& rg : g["units"])
        for (int u = rg[0]; u <= rg[1].get<int>(); ++u) {
          if (static_cast<int>(v.size()) <= u) v.resize(static_cast<size_t>(u) + 1, nullptr);
          if (v[static_cast<size_t>(u)]) problem(fmt::format("L{} unit {} is in two groups", il + l0_, u));
          v[static_cast<size_t>(u)] = &g;
        }
    }
  }

  // Whether the field that holds machine dim `dim` in role `o` is one of `names`.
  bool allowed(const std::vector<int>& o, int dim, const ojson& names) const {
    if (dim < 0 || dim >= G_) return false;
    const int f = o[static_cast<size_t>(dim)];
    return f >= 0 && contains(names, name(static_cast<size_t>(f)));
  }
  std::string field_at(const std::vector<int>& o, int dim) const {
    if (dim < 0 || dim >= G_) return "a base dim";
    const int f = o[static_cast<size_t>(dim)];
    return f < 0 ? "no field" : name(static_cast<size_t>(f));
  }

  // Every nonzero entry of a tensor: fn(row, col).
  template <typename Fn>
  void scan(const std::string& tensor, Fn fn) {
    const engine::TensorView* t = w_.find(tensor);
    if (!t) return problem(fmt::format("{}: missing from the checkpoint", tensor));
    const int64_t rows = t->shape.empty() ? 0 : t->shape[0], cols = rows ? t->numel() / rows : 0;
    const size_t es = engine::dtype_size(t->dtype);
    const auto* bytes = static_cast<const uint8_t*>(t->data);
    for (int64_t i = 0; i < t->numel(); ++i) {
      uint32_t v = 0;
      std::memcpy(&v, bytes + static_cast<size_t>(i) * es, es);
      if ((v & (es == 4 ? 0x7fffffffu : 0x7fffu)) == 0) continue;  // +-0
      ++r_.nonzeros;
      fn(i / cols, i % cols);
    }
  }

  void check_mlp(int il) {
    const std::string p = fmt::format("model.layers.{}.mlp.", il + l0_);
    const auto& groups = groups_[static_cast<size_t>(il)];
    auto group_of = [&](int64_t u) -> const ojson* {
      return u < static_cast<int64_t>(groups.size()) ? groups[static_cast<size_t>(u)] : nullptr;
    };
    const Owners& o = owners(mlp(il));
    for (const char* m : {"gate_proj", "up_proj"})
      scan(p + m + ".weight", [&](int64_t u, int64_t col) {
        const ojson* g = group_of(u);
        if (!g) return problem(fmt::format("L{} {} unit {}: nonzero, but the map gives the unit to no group", il + l0_, m, u));
        const int dim = static_cast<int>(col) - d0_;
        const auto& role = (*g)["kind"] != "rule" ? o.clear : o.read;
        if (!allowed(role, dim, (*g)["reads"]) && !allowed(o.read, dim, (*g)["reads"]))
          problem(fmt::format("L{} {} unit {} ({}: writes {}) reads dim {} ({}), which the map does not list", il + l0_, m,
                              u, (*g)["stage"].get<std::string>(), join((*g)["writes"], " "), col, field_at(o.read, dim)));
      });
    scan(p + "down_proj.weight", [&](int64_t row, int64_t u) {
      const ojson* g = group_of(u);
      if (!g) return problem(fmt::format("L{} down_proj unit {}: nonzero, but the map gives the unit to no group", il + l0_, u));
      const int dim = static_cast<int>(row) - d0_;
      const auto& role = (*g)["kind"] != "rule" ? o.clear : o.write;
      if (!allowed(role, dim, (*g)["writes"]))
        problem(fmt::format("L{} down_proj unit {} ({}) writes dim {} ({}), which the map does not list", il + l0_, u,
                            (*g)["stage"].get<std::string>(), row, field_at(role, dim)));
    });
  }

  void check_attention(int il) {
    for (const char* m : {"q_proj", "k_proj", "v_proj", "o_proj"})
      scan(fmt::format("model.layers.{}.self_attn.{}.weight", il + l0_, m), [&](int64_t row, int64_t col) {
        problem(fmt::format("L{} self_attn.{} [{}, {}] is nonzero: the map has no attention heads", il + l0_, m, row, col));
      });
  }

  void check_deltanet(int il) {
    const std::string p = fmt::format("model.layers.{}.linear_attn.", il + l0_);
    const Owners& o = owners(mixer(il));
    auto use = [&](int h) -> const ojson* {
      auto it = heads_.find({il, h});
      return it == heads_.end() ? nullptr : it->second;
    };
    const int kd = nheads_ * dk_;
    auto reader = [&](const char* tensor, auto head_of) {
      scan(p + tensor + ".weight", [&](int64_t row, int64_t col) {
        const int h = head_of(row);
        const ojson* u = use(h);
        if (!u) return problem(fmt::format("L{} {} row {} (head {}): nonzero, but the map has no such head", il + l0_, tensor, row, h));
        if (!allowed(o.read, static_cast<int>(col) - d0_, (*u)["reads"]))
          problem(fmt::format("L{} head {} ({}): {} reads dim {} ({}), which the map does not list", il + l0_, h,
                              (*u)["role"].get<std::string>(), tensor, col, field_at(o.read, static_cast<int>(col) - d0_)));
      });
    };
    reader("in_proj_qkv", [&](int64_t row) { return static_cast<int>(row < 2 * kd ? (row % kd) / dk_ : (row - 2 * kd) / dv_); });
    reader("in_proj_z", [&](int64_t row) { return static_cast<int>(row / dv_); });
    reader("in_proj_b", [&](int64_t row) { return static_cast<int>(row); });
    reader("in_proj_a", [&](int64_t row) { return static_cast<int>(row); });
    scan(p + "out_proj.weight", [&](int64_t row, int64_t col) {
      const int h = static_cast<int>(col / dv_), dim = static_cast<int>(row) - d0_;
      const ojson* u = use(h);
      if (!u) return problem(fmt::format("L{} out_proj column {} (head {}): nonzero, but the map has no such head", il + l0_, col, h));
      if (!allowed(o.write, dim, (*u)["writes"]))
        problem(fmt::format("L{} head {} ({}) writes dim {} ({}), which the map does not list", il + l0_, h,
                            (*u)["role"].get<std::string>(), row, field_at(o.write, dim)));
    });
  }

  // The machine's tokens write only the embedding's fields and the head pattern's; the
  // base's tokens (in a merge) none of the machine's dims.
  void check_tokens() {
    scan("model.embed_tokens.weight", [&](int64_t token, int64_t col) {
      if (token < t0_ || token >= t0_ + vocab_) {
        if (col >= d0_ && col < d0_ + G_) problem(fmt::format("base token {} writes the machine's dim {}", token, col));
        return;
      }
      if (col < d0_ || col >= d0_ + G_) return problem(fmt::format("machine token {} writes base dim {}", token, col));
      if (owners(kEmbedding).write[static_cast<size_t>(col - d0_)] < 0)
        problem(fmt::format("machine token {} writes dim {}, which no embedding field holds", token, col));
    });
  }

  const ojson& map_;
  const engine::SafetensorsDir& w_;
  size_t limit_;
  int d0_, t0_, l0_, G_, layers_, vocab_, dk_, dv_, nheads_;
  std::vector<const ojson*> fields_;
  std::vector<Owners> at_;
  std::vector<std::vector<const ojson*>> groups_;
  std::map<std::pair<int, int>, const ojson*> heads_;
  MapCheck r_;
};

}  // namespace

MapCheck check_map(const ojson& map, const engine::SafetensorsDir& w, size_t limit) {
  return MapChecker(map, w, limit).run();
}

}  // namespace qgpu::lift
