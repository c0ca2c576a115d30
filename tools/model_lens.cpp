// Looking inside a launch on the model, for `qgpu run` and `qgpu asm --run` with --engine
// model: the machine lens (--lens, --lens-all, --lens-json), the activation dump
// (--dump-activations), and interventions (--patch-field, --ablate) with a diff against
// the clean run. Everything here is a probe on the engine (host/lens.h): the model's
// weights are the construction's, never edited.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/text_file.h"
#include "commands.h"
#include "engine/safetensors.h"
#include "gpu/trace_json.h"
#include "host/launch.h"
#include "host/lens.h"
#include "host/viewer.h"
#include "base/mapped_file.h"
#include "host/readout.h"
#include "launch_progress.h"
#include "lift/code.h"
#include "lift/map.h"
#include "lift/plan.h"

namespace qgpu {

void add_lens_options(CLI::App* cmd, LensArgs& a) {
  cmd->add_flag("--lens{all}", a.positions,
                "With --engine model: print the machine's fields after every sublayer at every position that "
                "generates a record, or (--lens=N,M-K) at these token positions");
  cmd->add_flag("--lens-all", a.all, "--lens: every field alive after each sublayer, not only those it writes");
  cmd->add_option("--lens-fields", a.fields, "--lens: only these fields (e.g. oa,ob,sum,res), after the sublayers that write them")
      ->delimiter(',');
  cmd->add_flag("--lens-json", a.json, "--lens as JSON (with the launch's report), at --lens's positions or every one");
  cmd->add_option("--html", a.html,
                  "Write FILE.html: one self-contained page with the records as a timeline and, for a selected "
                  "record, the fields x sublayers grid, the step, registers and memory (FILE.html?record=N opens at N)");
  cmd->add_option("--dump-activations", a.dump,
                  "Write FILE.safetensors: the residual after every sublayer at the lens's positions, the final "
                  "recurrent state, the map in its metadata");
  cmd->add_option("--dump-mlp", a.dump_mlp, "--dump-activations: also these layers' MLP unit activations (e.g. 11,12)");
  cmd->add_option("--patch-field", a.patch_field,
                  "[Lk.mixer.|Lk.mlp.]FIELD[[GROUP]]=VALUE@POSITION: write another valid code into a field (default: "
                  "after the sublayer that writes it first); prints the diff against the clean run");
  cmd->add_option("--patch-state", a.patch_state,
                  "mem[WORD]=VALUE@POSITION or reg[WARP,LANE,rN|pN]=VALUE@POSITION: write the machine's state before "
                  "the token at POSITION is read; prints the diff against the clean run");
  cmd->add_option("--ablate", a.ablate,
                  "stage:NAME | units:LAYER:FIRST-LAST | field:NAME (the units that write it) [@POSITION]: ablate MLP "
                  "units; prints the diff against the clean run");
  cmd->add_option("--ablate-mode", a.ablate_mode,
                  "zero (the naive control), resample (the units' values at another position of the clean run) or "
                  "swap (the written fields set to another valid code)")
      ->check(CLI::IsMember({"zero", "resample", "swap"}));
}

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

// A field patch: the field's dims after `sublayer` at `position` get `dims` hot (the rest 0).
struct FieldPatch {
  std::string spec, field;
  int sublayer;
  std::optional<int64_t> position;  // every position when absent
  std::vector<int> hot;             // machine dims, absolute
};

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
    fail("{}: {} lives from {} to {}; patch it after a sublayer in between", what, f.name, host::sublayer_name(f.life.born),
         f.life.cleared == lift::kNever ? "the end" : host::sublayer_name(f.life.cleared));
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

// A state patch: before the token at `position` is read, a memory word or a register.
struct StatePatch {
  std::string spec;
  int64_t position = 0;
  bool memory = true;
  int word = 0, warp = 0, lane = 0, code = 0;
  uint32_t value = 0;
};

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
  if (part.size() != 3 || part[2].size() < 2 || (part[2][0] != 'r' && part[2][0] != 'p'))
    fail("{}: expected reg[WARP,LANE,rN] or reg[WARP,LANE,pN]", what);
  p.warp = parse_int(part[0], what);
  p.lane = parse_int(part[1], what);
  const int n = parse_int(part[2].substr(1), what);
  const bool pred = part[2][0] == 'p';
  if (p.warp < 0 || p.warp >= kWarps || p.lane < 0 || p.lane >= kLanes || n < 0 || n >= (pred ? kPreds : kRegs))
    fail("{}: warps 0..{}, lanes 0..{}, r0..r{}, p0..p{}", what, kWarps - 1, kLanes - 1, kRegs - 1, kPreds - 1);
  p.code = pred ? 1 + kRegs + n : 1 + n;
  return p;
}

// An ablation: MLP units of one layer (by the map), at every position or one.
struct Ablation {
  std::string spec;
  std::map<int, std::vector<int>> units;   // layer -> units
  std::vector<std::string> fields;         // what they write (for swap)
  std::optional<int64_t> position;
};

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
  } else {
    fail("{}: expected stage:NAME, field:NAME or units:LAYER:FIRST-LAST, each optionally @POSITION", what);
  }
  for (auto& [il, u] : a.units) {
    std::sort(u.begin(), u.end());
    u.erase(std::unique(u.begin(), u.end()), u.end());
  }
  return a;
}

// The outcome of one launch, kept whether it ended or failed.
struct Outcome {
  host::LaunchResult result;
  std::string error;  // why it stopped early (empty: it reached `end`)
  std::map<std::string, std::string> registers;  // "w0 l1 r3" -> value, read out of the final state
};

Outcome launch_kept(const Program& p, const Launch& l, const engine::Model& m, host::LaunchOptions o) {
  Outcome out;
  auto user = o.on_record;
  o.on_record = [&](const Rec* r, const engine::State& s) {
    if (r && r->kind == Tok::kEnd)  // the final state: every register the lanes wrote
      for (int w = 0; w < kWarps; ++w)
        for (int lane = 0; lane < kLanes; ++lane)
          for (int code = 1; code <= kRegs + kPreds; ++code) {
            const std::string name = fmt::format("w{} l{} {}{}", w, lane, code <= kRegs ? "r" : "p",
                                                 code <= kRegs ? code - 1 : code - 1 - kRegs);
            try {
              if (std::optional<uint32_t> v = host::read_register(m, s, w, lane, code))
                out.registers[name] = fmt::to_string(static_cast<int32_t>(*v));
            } catch (const Error& e) {
              out.registers[name] = "not a code";
            }
          }
    return user ? user(r, s) : true;
  };
  try {
    out.result = host::launch(p, l, m, o);
  } catch (const host::LaunchError& e) {  // what it generated before it failed is kept
    out.error = e.what();
    out.result.prompt = encode_image(p, l);
    out.result.records = e.records;
  }
  return out;
}

std::string words_text(const Array& a, const host::LaunchResult& r) {
  std::vector<uint32_t> words(r.mem.begin() + a.base, r.mem.begin() + a.base + a.size);
  return array_json(a, words).dump();
}

// The diff of an intervened run against the clean one.
std::string diff_text(const Program& p, const Outcome& clean, const Outcome& run, const std::string& what) {
  std::string s = fmt::format("intervention {}:\n", what);
  const auto& a = clean.result.records;
  const auto& b = run.result.records;
  size_t first = 0;
  while (first < a.size() && first < b.size() && a[first] == b[first]) ++first;
  size_t differ = 0;
  for (size_t i = 0; i < std::max(a.size(), b.size()); ++i) differ += i >= a.size() || i >= b.size() || !(a[i] == b[i]);
  const int64_t prompt = static_cast<int64_t>(clean.result.prompt.size());
  if (first == a.size() && first == b.size()) {
    s += fmt::format("  the records are the clean run's: all {} equal\n", a.size());
  } else {
    s += fmt::format("  first different record: #{} (generated at position {}): clean {}, intervened {}\n", first,
                     prompt + static_cast<int64_t>(first) - 1, first < a.size() ? record_text(a[first]) : "(none: it ended)",
                     first < b.size() ? record_text(b[first]) : "(none: it ended)");
    s += fmt::format("  {} of {} records differ (position by position); clean {} records, intervened {}\n", differ,
                     std::max(a.size(), b.size()), a.size(), b.size());
  }
  if (!run.error.empty()) s += fmt::format("  the intervened run stopped: {}\n", run.error);
  std::string regs;
  std::set<std::string> names;
  for (const auto& [k, v] : clean.registers) names.insert(k);
  for (const auto& [k, v] : run.registers) names.insert(k);
  int differ_regs = 0;
  for (const std::string& k : names) {
    auto x = clean.registers.find(k), y = run.registers.find(k);
    const std::string a1 = x == clean.registers.end() ? "-" : x->second, b1 = y == run.registers.end() ? "-" : y->second;
    if (a1 == b1) continue;
    ++differ_regs;
    regs += fmt::format("    {}: {} | {}\n", k, a1, b1);
  }
  if (run.error.empty())
    s += differ_regs == 0 ? fmt::format("  final registers: the {} written are the clean run's\n", clean.registers.size())
                          : fmt::format("  final registers that differ (clean | intervened):\n{}", regs);
  s += "  final memory (clean | intervened):\n";
  for (const Array& arr : p.arrays) {
    const std::string x = words_text(arr, clean.result), y = run.error.empty() ? words_text(arr, run.result) : "(no final state)";
    s += fmt::format("    {} {} | {}{}\n", arr.name, x, y, x == y ? "" : "   <- differs");
  }
  return s;
}

// Fields a swap sets: each group's digit moved to the next value (another valid code).
void swap_fields(std::span<float> v, int offset, const std::vector<std::string>& fields) {
  for (const std::string& name : fields) {
    const lift::Field& f = lift::machine_fields()[name];
    if (f.code.kind == lift::Code::Kind::kOnes) continue;
    std::span<float> x = v.subspan(static_cast<size_t>(offset + f.offset), static_cast<size_t>(f.size));
    const lift::Reading r = lift::read(f.code, x);
    if (!r.valid()) continue;
    std::vector<int> d = r.digit;
    for (int g = 0; g < f.code.groups(); ++g) d[static_cast<size_t>(g)] = (d[static_cast<size_t>(g)] + 1) % f.code.radix[static_cast<size_t>(g)];
    std::fill(x.begin(), x.end(), 0.0f);
    for (int dim : lift::encode(f.code, d)) x[static_cast<size_t>(dim)] = 1.0f;
  }
}

void write_dump(const std::string& path, const host::Lens& lens, const std::map<int, std::map<int64_t, std::vector<float>>>& mlp,
                const std::vector<std::vector<float>>& state, const engine::Model& m, const host::LaunchResult& r) {
  const auto& snaps = lens.snapshots();
  const int64_t P = static_cast<int64_t>(snaps.size()), S = 1 + 2 * lift::kLayerCount, G = lens.machine_dims();
  std::vector<float> residual(static_cast<size_t>(P * S * G), 0.0f), positions;
  for (int64_t i = 0; i < P; ++i) {
    positions.push_back(static_cast<float>(snaps[static_cast<size_t>(i)].position));
    for (int64_t s = 0; s < S; ++s) {
      const std::vector<float>& x = snaps[static_cast<size_t>(i)].residual[static_cast<size_t>(s)];
      std::copy(x.begin(), x.end(), residual.begin() + (i * S + s) * G);
    }
  }
  std::vector<engine::TensorView> t;
  t.push_back({.name = "residual", .dtype = engine::DType::f32, .shape = {P, S, G}, .data = residual.data()});
  t.push_back({.name = "positions", .dtype = engine::DType::f32, .shape = {P}, .data = positions.data()});
  std::vector<std::vector<float>> mlp_data;
  for (const auto& [il, by_pos] : mlp) {
    std::vector<float>& d = mlp_data.emplace_back();
    for (const host::LensSnapshot& snap : snaps) {
      auto it = by_pos.find(snap.position);
      if (it == by_pos.end()) d.insert(d.end(), static_cast<size_t>(m.config.intermediate_size), 0.0f);
      else d.insert(d.end(), it->second.begin(), it->second.end());
    }
  }
  size_t k = 0;
  std::vector<std::string> names;
  for (const auto& entry : mlp) names.push_back(fmt::format("mlp_act.L{}", entry.first));
  for (k = 0; k < names.size(); ++k)
    t.push_back({.name = names[k], .dtype = engine::DType::f32, .shape = {P, m.config.intermediate_size}, .data = mlp_data[k].data()});
  std::vector<std::string> state_names;
  for (int il = 0; il < lift::kLayerCount; ++il)
    if (!state[static_cast<size_t>(il)].empty()) state_names.push_back(fmt::format("state.L{}", il));
  k = 0;
  for (int il = 0; il < lift::kLayerCount; ++il) {
    if (state[static_cast<size_t>(il)].empty()) continue;
    t.push_back({.name = state_names[k++], .dtype = engine::DType::f32,
                 .shape = {m.config.linear_num_value_heads, m.config.linear_key_head_dim, m.config.linear_value_head_dim},
                 .data = state[static_cast<size_t>(il)].data()});
  }
  std::vector<std::string> sublayers;
  for (int s = -1; s < 2 * lift::kLayerCount; ++s) sublayers.push_back(host::sublayer_name(s));
  std::vector<std::string> tokens;
  for (const Rec& x : r.prompt) tokens.push_back(record_text(x));
  for (const Rec& x : r.records) tokens.push_back(record_text(x));
  const std::map<std::string, std::string> meta = {
      {"qgpu_map", lift::machine_map().dump()},
      {"sublayers", ojson(sublayers).dump()},
      {"tokens", ojson(tokens).dump()},
      {"about", "residual[i][s] is the machine's residual after sublayer s (sublayers: embedding, L0.mixer, L0.mlp, ...) "
                "at token position positions[i]; a field's dims are qgpu_map's fields[].dims (minus offsets.dims); "
                "state.Lk[head][key slot][value] is layer k's DeltaNet state at the end"}};
  engine::write_safetensors(path, t, meta);
}

}  // namespace

void run_lens(const ModelArgs& a, const Program& p, const Launch& l, ReportOptions report,
              std::optional<int64_t> max_records) {
  const LensArgs& o = a.lens;
  host::require_generation(p, l);
  NamedModel named = load_named_model(a.model, a.dtype);
  const engine::Model& m = named.model;
  const int offset = m.config.qgpu ? m.config.qgpu->hidden_offset : 0;
  const std::vector<Rec> prompt = encode_image(p, l);
  const int64_t P = static_cast<int64_t>(prompt.size());
  // The clean and the intervened run get the cap `qgpu run --engine model` would (derived
  // from the interpreter's records): an intervention that breaks the model stops in seconds.
  const RecordCap cap = record_cap(p, l, max_records);
  const host::LaunchOptions base{.rounding = rounding_option(a.rounding), .max_records = cap.records, .max_records_why = cap.why};
  std::vector<FieldPatch> patches;
  for (const std::string& s : o.patch_field) patches.push_back(parse_field_patch(s));
  const ojson map = o.ablate.empty() ? ojson() : lift::machine_map();
  std::vector<Ablation> ablations;
  for (const std::string& s : o.ablate) ablations.push_back(parse_ablation(s, map));
  std::vector<StatePatch> state_patches;
  for (const std::string& s : o.patch_state) state_patches.push_back(parse_state_patch(s));
  for (const StatePatch& sp : state_patches)
    if (sp.position < P) fail("--patch-state {}: positions before {} are the prompt, read as one batch; patch at {} or later", sp.spec, P, P);
  const bool intervene = !patches.empty() || !ablations.empty() || !state_patches.empty();

  // The clean run: the reference of the diff, and the source of resampled activations.
  std::optional<Outcome> clean;
  std::map<int, std::map<int64_t, std::vector<float>>> clean_units;  // layer -> position -> the ablated units' values
  if (intervene) {
    host::LaunchOptions c = base;
    if (o.ablate_mode == "resample")
      c.probe = [&](const char* name, int il, int64_t pos, std::span<float> v) {
        if (std::string_view(name) != "mlp_act") return;
        std::vector<float> keep;
        for (const Ablation& ab : ablations)
          if (auto it = ab.units.find(il); it != ab.units.end())
            for (int u : it->second) keep.push_back(v[static_cast<size_t>(u)]);
        if (!keep.empty()) clean_units[il][pos] = std::move(keep);
      };
    clean = launch_kept(p, l, m, c);
    if (!clean->error.empty()) fail("the clean run failed before any intervention: {}", clean->error);
  }

  // The observed run: the lens, the dump's MLP activations and final state, the interventions.
  std::vector<int64_t> positions;
  if (!o.positions.empty() && o.positions != "all") positions = host::parse_positions(o.positions, "--lens");
  const bool observe = o.lens() || o.json || !o.dump.empty() || !o.html.empty();
  // The page holds every alive field at every position it shows: 1,000 positions are about
  // 35 MB; the lens alone keeps up to 4,096.
  host::Lens lens(m, positions, P - 1, o.html.empty() ? 4096 : 1000);
  std::set<int> mlp_layers;
  if (!o.dump_mlp.empty())
    for (int64_t il : host::parse_positions(o.dump_mlp, "--dump-mlp")) {
      if (il >= lift::kLayerCount) fail("--dump-mlp {}: the machine's layers are 0..{}", il, lift::kLayerCount - 1);
      mlp_layers.insert(static_cast<int>(il));
    }
  std::map<int, std::map<int64_t, std::vector<float>>> mlp;
  std::mt19937_64 rng(7);
  const int64_t clean_records = clean ? static_cast<int64_t>(clean->result.records.size()) : 0;
  std::vector<std::string> applied;
  auto intervention = [&](const char* name, int il, int64_t pos, std::span<float> v) {
    const std::string_view n(name);
    const int sublayer = n == "embed" ? -1 : n == "attn_residual" ? lift::mixer(il) : n == "layer_out" ? lift::mlp(il) : -2;
    for (const FieldPatch& f : patches)
      if (sublayer == f.sublayer && (!f.position || *f.position == pos)) {
        const lift::Field& field = lift::machine_fields()[f.field];
        std::fill_n(v.begin() + offset + field.offset, field.size, 0.0f);
        for (int d : f.hot) v[static_cast<size_t>(offset + d)] = 1.0f;
      }
    for (const Ablation& ab : ablations) {
      if (ab.position && *ab.position != pos) continue;
      auto it = ab.units.find(il);
      if (it == ab.units.end()) continue;
      if (n == "mlp_act" && o.ablate_mode != "swap") {
        const std::vector<int>& units = it->second;
        if (o.ablate_mode == "zero") {
          for (int u : units) v[static_cast<size_t>(u)] = 0.0f;
        } else {  // resample: the same units at another generated position of the clean run
          auto& by_pos = clean_units[il];
          if (by_pos.empty()) continue;
          const int64_t other = P - 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(std::max<int64_t>(1, clean_records)));
          auto src = by_pos.lower_bound(other);
          if (src == by_pos.end()) src = by_pos.begin();
          for (size_t k = 0; k < units.size() && k < src->second.size(); ++k) v[static_cast<size_t>(units[k])] = src->second[k];
        }
      } else if (n == "layer_out" && o.ablate_mode == "swap") {
        swap_fields(v, offset, ab.fields);
      }
    }
    if (n == "mlp_act" && mlp_layers.count(il) && (!observe || true)) mlp[il][pos].assign(v.begin(), v.end());
  };
  host::LaunchOptions run_options = base;
  run_options.probe = observe ? lens.probe(intervention) : engine::ProbeFn(intervention);
  if (!state_patches.empty())
    run_options.edit_state = [&](int64_t position, engine::State& s) {
      for (const StatePatch& sp : state_patches)
        if (sp.position == position) {
          if (sp.memory) host::write_memory_word(m, s, sp.word, sp.value);
          else host::write_register(m, s, sp.warp, sp.lane, sp.code, sp.value);
        }
    };
  std::vector<std::vector<float>> state(static_cast<size_t>(lift::kLayerCount));
  if (!o.dump.empty())
    run_options.on_record = [&](const Rec* r, const engine::State& s) {
      if (r && r->kind == Tok::kEnd)
        for (int il = 0; il < lift::kLayerCount; ++il)
          if (m.config.is_linear(il)) {
            std::vector<float>& d = state[static_cast<size_t>(il)];
            d.clear();
            for (int h = 0; h < m.config.linear_num_value_heads; ++h) {
              std::span<const float> S = s.recurrent(m.config, il, h);
              d.insert(d.end(), S.begin(), S.end());
            }
          }
      return true;
    };
  const Outcome run = launch_kept(p, l, m, run_options);
  if (run.error.empty() || intervene) {
    // Reported below; a failed run without interventions is the plain error.
  } else {
    fail("{}", run.error);
  }
  std::vector<Rec> tokens = run.result.prompt;
  tokens.insert(tokens.end(), run.result.records.begin(), run.result.records.end());
  for (const std::string& f : o.fields)
    if (!lift::machine_fields().index.count(f)) fail("--lens-fields: no field '{}' (`qgpu map` lists them)", f);
  std::vector<host::LensPosition> decoded = observe ? host::decode_lens(lens.snapshots(), tokens, P, o.all) : std::vector<host::LensPosition>{};
  if (!o.fields.empty())
    for (host::LensPosition& lp : decoded)
      for (host::LensRow& row : lp.rows)
        std::erase_if(row.fields, [&](const host::LensField& f) { return std::find(o.fields.begin(), o.fields.end(), f.name) == o.fields.end(); });
  if (!o.dump.empty()) write_dump(o.dump, lens, mlp, state, m, run.result);
  if (!o.html.empty()) {  // every alive field, every record: the page's grid and timeline
    ReportOptions all = report;
    all.engine = "model";
    all.dtype = engine::dtype_name(m.dtype);
    all.with_records = true;
    ojson page = run.error.empty() ? ojson(trace_json(p, l, host::launch_trace(run.result), all)) : ojson::object();
    if (!run.error.empty()) {
      page["kernel"] = p.kernel;
      page["error"] = run.error;
      ojson records = ojson::array();
      for (const Rec& x : run.result.records) records.push_back(record_text(x));
      page["records"] = records;
    }
    page["model"] = named.name;
    page["lens"] = host::lens_json(host::decode_lens(lens.snapshots(), tokens, P, true));
    page["map"] = lift::machine_map();
    const std::string html = host::viewer_html(page);
    write_file_atomic(o.html, [&](std::ostream& os) { os << html; });
  }

  report.engine = "model";
  report.dtype = engine::dtype_name(m.dtype);
  std::string what;
  for (const std::string& s : o.patch_field) what += (what.empty() ? "--patch-field " : ", --patch-field ") + s;
  for (const std::string& s : o.patch_state) what += (what.empty() ? "--patch-state " : ", --patch-state ") + s;
  for (const std::string& s : o.ablate) what += (what.empty() ? "--ablate " : ", --ablate ") + s + " (" + o.ablate_mode + ")";
  if (a.json || o.json) {
    ojson j = run.error.empty() ? ojson(trace_json(p, l, host::launch_trace(run.result), report)) : ojson::object();
    j["model"] = named.name;
    if (observe) j["lens"] = host::lens_json(decoded);
    if (lens.capped()) j["lens_capped"] = true;
    if (intervene) {
      j["intervention"] = what;
      j["diff"] = diff_text(p, *clean, run, what);
      if (!run.error.empty()) j["error"] = run.error;
    }
    if (!o.dump.empty()) j["activations"] = o.dump;
    if (!o.html.empty()) j["html"] = o.html;
    return fmt::print("{}\n", j.dump());
  }
  if (run.error.empty()) fmt::print("{}", trace_text(p, l, host::launch_trace(run.result), report.with_records));
  if (o.lens()) fmt::print("{}", host::lens_text(decoded));
  if (lens.capped())
    fmt::print("lens: kept the first {} positions; give --lens POSITIONS for others\n", lens.snapshots().size());
  if (!o.html.empty())
    fmt::print("wrote {}: the records and the lens at {} positions (open it in a browser; {}?record=N opens at record N)\n",
               o.html, lens.snapshots().size(), o.html);
  if (!o.dump.empty())
    fmt::print("wrote {}: the residual after every sublayer at {} positions{}, the final DeltaNet state, the map\n", o.dump,
               lens.snapshots().size(), mlp.empty() ? "" : ", MLP activations");
  if (intervene) fmt::print("{}", diff_text(p, *clean, run, what));
}

}  // namespace qgpu
