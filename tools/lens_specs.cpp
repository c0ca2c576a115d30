#include "lens_specs.h"

#include <fmt/format.h>

#include <algorithm>

#include "base/error.h"
#include "base/text_file.h"
#include "host/lens.h"
#include "lift/code.h"
#include "lift/plan.h"

namespace qgpu {

namespace {

using ojson = nlohmann::ordered_json;

// "@N" at the end of a spec: the position (or none).
std::optional<int64_t> split_position(std::string& spec, const std::string& what) {
  const size_t at = spec.rfind('@');
  if (at == std::string::npos) return std::nullopt;
  const std::string pos = spec.substr(at + 1);
  spec = spec.substr(0, at);
  std::vector<int64_t> p = host::parse_positions(pos, what);
  if (p.size() != 1) fail("{}: one position after '@', not '{}'", what, pos);
  return p[0];
}

int parse_int(const std::string& s, const std::string& what) {
  size_t used = 0;
  int64_t v = 0;
  try {
    v = std::stoll(s, &used, 0);
  } catch (...) {
    used = 0;
  }
  if (s.empty() || used != s.size() || v < INT32_MIN || v > UINT32_MAX) fail("{}: '{}' is not a number", what, s);
  return static_cast<int>(static_cast<int64_t>(static_cast<uint32_t>(v)));
}

}  // namespace

FieldPatch parse_field_patch(const std::string& text) {
  const std::string what = "--patch-field " + text;
  FieldPatch p{.spec = text};
  std::string s = text;
  p.position = split_position(s, what);
  if (!p.position) fail("{}: give the token position after '@' (the lens prints them)", what);
  const size_t eq = s.find('=');
  if (eq == std::string::npos) fail("{}: expected FIELD=VALUE@POSITION", what);
  std::string name = s.substr(0, eq), value = s.substr(eq + 1);
  std::optional<int> sublayer;
  if (name.size() > 1 && name[0] == 'L') {  // Lk.mixer.FIELD or Lk.mlp.FIELD or Lk.FIELD (the MLP)
    const size_t dot = name.find('.');
    if (dot == std::string::npos) fail("{}: expected Lk.mlp.FIELD or Lk.mixer.FIELD", what);
    const int il = parse_int(name.substr(1, dot - 1), what);
    if (il < 0 || il >= lift::kLayerCount) fail("{}: the machine's layers are L0..L{}", what, lift::kLayerCount - 1);
    std::string rest = name.substr(dot + 1);
    bool is_mixer = false;
    if (rest.starts_with("mixer.")) is_mixer = true, rest = rest.substr(6);
    else if (rest.starts_with("mlp.")) rest = rest.substr(4);
    sublayer = is_mixer ? lift::mixer(il) : lift::mlp(il);
    name = rest;
  }
  std::optional<int> group;
  if (const size_t br = name.find('['); br != std::string::npos) {
    if (name.back() != ']') fail("{}: expected FIELD[GROUP]", what);
    group = parse_int(name.substr(br + 1, name.size() - br - 2), what);
    name = name.substr(0, br);
  }
  const auto it = lift::machine_fields().index.find(name);
  if (it == lift::machine_fields().index.end()) fail("{}: no field '{}' (`qgpu map` lists them)", what, name);
  const lift::Field& f = lift::machine_fields().fields[it->second];
  p.field = f.name;
  p.sublayer = sublayer.value_or(f.life.born);
  if (!(f.life.born <= p.sublayer && p.sublayer < f.life.cleared))
    fail("{}: {} lives from {} to {}; patch it after a sublayer in between", what, f.name, lift::sublayer_name(f.life.born),
         f.life.cleared == lift::kNever ? "the end" : lift::sublayer_name(f.life.cleared));
  if (f.code.kind == lift::Code::Kind::kOnes) fail("{}: {} is an energy pad, not a code", what, f.name);
  std::vector<int> digit;
  const bool word = f.code.kind == lift::Code::Kind::kNibbles || f.code.kind == lift::Code::Kind::kBits;
  if (group) {
    if (*group < 0 || *group >= f.code.groups()) fail("{}: {} has groups 0..{}", what, f.name, f.code.groups() - 1);
    p.hot = {f.offset + f.code.dim(*group, std::clamp(parse_int(value, what), 0, f.code.radix[static_cast<size_t>(*group)] - 1))};
    if (parse_int(value, what) < 0 || parse_int(value, what) >= f.code.radix[static_cast<size_t>(*group)])
      fail("{}: group {} of {} is one-hot over {}", what, *group, f.name, f.code.radix[static_cast<size_t>(*group)]);
    return p;
  }
  if (word) {
    for (int d : lift::encode_word(f.code, static_cast<uint32_t>(parse_int(value, what)))) p.hot.push_back(f.offset + d);
    return p;
  }
  for (const std::string& d : split(value, '|')) digit.push_back(parse_int(d, what));
  if (static_cast<int>(digit.size()) != f.code.groups())
    fail("{}: {} is {}: give {} digit{} joined by '|'", what, f.name, f.code.describe(), f.code.groups(),
         f.code.groups() == 1 ? "" : "s");
  for (int g = 0; g < f.code.groups(); ++g)
    if (digit[static_cast<size_t>(g)] < 0 || digit[static_cast<size_t>(g)] >= f.code.radix[static_cast<size_t>(g)])
      fail("{}: digit {} of {} must be below {}", what, g, f.name, f.code.radix[static_cast<size_t>(g)]);
  for (int d : lift::encode(f.code, digit)) p.hot.push_back(f.offset + d);
  return p;
}

StatePatch parse_state_patch(const std::string& text) {
  const std::string what = "--patch-state " + text;
  StatePatch p{.spec = text};
  std::string s = text;
  const std::optional<int64_t> pos = split_position(s, what);
  if (!pos) fail("{}: give the token position after '@' (the state is written before that token is read)", what);
  p.position = *pos;
  const size_t open = s.find('['), close = s.find(']'), eq = s.find('=');
  if (open == std::string::npos || close == std::string::npos || eq != close + 1)
    fail("{}: expected mem[WORD]=VALUE@POSITION or reg[WARP,LANE,rN]=VALUE@POSITION", what);
  const std::string kind = s.substr(0, open), inside = s.substr(open + 1, close - open - 1);
  p.value = static_cast<uint32_t>(parse_int(s.substr(eq + 1), what));
  if (kind == "mem") {
    p.word = parse_int(inside, what);
    if (p.word < 0 || p.word >= kMemWords) fail("{}: memory words are 0..{}", what, kMemWords - 1);
    return p;
  }
  if (kind != "reg") fail("{}: expected mem[...] or reg[...]", what);
  p.memory = false;
  const std::vector<std::string> part = split(inside, ',');
  if (part.size() != 3) fail("{}: expected reg[WARP,LANE,rN] or reg[WARP,LANE,pN]", what);
  p.warp = parse_int(part[0], what);
  p.lane = parse_int(part[1], what);
  const std::optional<int> code = host::register_code(part[2]);
  if (p.warp < 0 || p.warp >= kWarps || p.lane < 0 || p.lane >= kLanes || !code)
    fail("{}: warps 0..{}, lanes 0..{}, r0..r{}, p0..p{}", what, kWarps - 1, kLanes - 1, kRegs - 1, kPreds - 1);
  p.code = *code;
  return p;
}

Ablation parse_ablation(const std::string& text, const ojson& map) {
  const std::string what = "--ablate " + text;
  Ablation a{.spec = text};
  std::string s = text;
  a.position = split_position(s, what);
  auto add_group = [&](const ojson& g) {
    std::vector<int>& u = a.units[g["layer"].get<int>()];
    for (const ojson& r : g["units"])
      for (int k = r[0]; k <= r[1].get<int>(); ++k) u.push_back(k);
    for (const ojson& f : g["writes"])
      if (std::find(a.fields.begin(), a.fields.end(), f.get<std::string>()) == a.fields.end()) a.fields.push_back(f);
  };
  if (s.starts_with("stage:")) {
    const std::string name = s.substr(6);
    for (const ojson& g : map["units"])
      if (g["stage"] == name && g["kind"] == "rule") add_group(g);
    if (a.units.empty()) {
      std::string stages;
      for (const lift::StagePlan& st : lift::kStages) stages += fmt::format("{}{}", stages.empty() ? "" : ", ", st.name);
      fail("{}: no MLP rules of a stage '{}' (stages: {})", what, name, stages);
    }
  } else if (s.starts_with("field:")) {
    const std::string name = s.substr(6);
    for (const ojson& g : map["units"])
      if (g["kind"] == "rule" && std::find(g["writes"].begin(), g["writes"].end(), name) != g["writes"].end()) add_group(g);
    if (a.units.empty()) fail("{}: no MLP rules write a field '{}' (`qgpu map --field {}`)", what, name, name);
  } else if (s.starts_with("units:")) {
    const std::string rest = s.substr(6);
    const size_t colon = rest.find(':');
    if (colon == std::string::npos || rest.empty() || rest[0] != 'L') fail("{}: expected units:LAYER:FIRST-LAST, e.g. units:L11:0-63", what);
    const int il = parse_int(rest.substr(1, colon - 1), what);
    if (il < 0 || il >= lift::kLayerCount) fail("{}: the machine's layers are L0..L{}", what, lift::kLayerCount - 1);
    for (int64_t u : host::parse_positions(rest.substr(colon + 1), what)) a.units[il].push_back(static_cast<int>(u));
    for (const ojson& g : map["units"])
      if (g["layer"] == il)
        for (const ojson& r : g["units"])
          for (int u : a.units[il])
            if (u >= r[0].get<int>() && u <= r[1].get<int>())
              for (const ojson& f : g["writes"])
                if (std::find(a.fields.begin(), a.fields.end(), f.get<std::string>()) == a.fields.end()) a.fields.push_back(f);
  } else if (s.starts_with("heads:")) {
    const std::string rest = s.substr(6);
    const size_t colon = rest.find(':');
    if (colon == std::string::npos || rest.empty() || rest[0] != 'L') fail("{}: expected heads:LAYER:FIRST-LAST, e.g. heads:L2:0", what);
    const int il = parse_int(rest.substr(1, colon - 1), what);
    for (int64_t h : host::parse_positions(rest.substr(colon + 1), what)) {
      const ojson* use = nullptr;
      for (const ojson& x : map["heads"])
        if (x["layer"] == il && x["head"] == h) use = &x;
      if (!use) fail("{}: the map has no DeltaNet head {} in L{} (`qgpu map --json` lists the heads)", what, h, il);
      a.heads[il].push_back(static_cast<int>(h));
      for (const ojson& f : (*use)["writes"])
        if (std::find(a.fields.begin(), a.fields.end(), f.get<std::string>()) == a.fields.end()) a.fields.push_back(f);
    }
  } else {
    fail("{}: expected stage:NAME, field:NAME, units:LAYER:FIRST-LAST or heads:LAYER:FIRST-LAST, each optionally "
         "@POSITION", what);
  }
  for (auto& [il, u] : a.units) {
    std::sort(u.begin(), u.end());
    u.erase(std::unique(u.begin(), u.end()), u.end());
  }
  return a;
}

}  // namespace qgpu
