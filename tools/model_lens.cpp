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
#include "lens_specs.h"
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
                  "stage:NAME | field:NAME (the MLP rules that write it) | units:LAYER:FIRST-LAST | "
                  "heads:LAYER:FIRST-LAST (DeltaNet heads) [@POSITION]; prints the diff against the clean run");
  cmd->add_option("--ablate-mode", a.ablate_mode,
                  "zero (the naive control), resample (the units' values at another position of the clean run) or "
                  "swap (the written fields set to another valid code)")
      ->check(CLI::IsMember({"zero", "resample", "swap"}));
}

namespace {

using ojson = nlohmann::ordered_json;

// The outcome of one launch, kept whether it ended or failed.
struct Outcome {
  host::LaunchResult result;
  std::string error;  // why it stopped early (empty: it reached `end`)
  std::map<std::string, std::string> registers;  // "w0 l1 r3" -> value, read out of the final state
};

Outcome launch_kept(const Program& p, const Launch& l, const engine::Model& m, host::LaunchOptions o) {
  Outcome out;
  std::vector<Rec> generated;
  auto user = o.on_record;
  o.on_record = [&](const Rec* r, const engine::State& s) {
    if (r) generated.push_back(*r);
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
  } catch (const Error& e) {  // an intervened state the read-out cannot decode (memory, say)
    out.error = e.what();
    out.result.prompt = encode_image(p, l);
    out.result.records = std::move(generated);
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
  for (int s = -1; s < 2 * lift::kLayerCount; ++s) sublayers.push_back(lift::sublayer_name(s));
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

namespace {

// What --patch-field, --patch-state and --ablate ask for, parsed before any run.
struct Interventions {
  std::vector<FieldPatch> fields;
  std::vector<Ablation> ablations;
  std::vector<StatePatch> states;
  std::string mode;  // the ablations'
  std::string what;  // as the diff names them
  bool any() const { return !fields.empty() || !ablations.empty() || !states.empty(); }
};

Interventions parse_interventions(const LensArgs& o, int64_t prompt) {
  Interventions iv{.mode = o.ablate_mode};
  for (const std::string& s : o.patch_field) iv.fields.push_back(parse_field_patch(s));
  const ojson map = o.ablate.empty() ? ojson() : lift::machine_map();
  for (const std::string& s : o.ablate) iv.ablations.push_back(parse_ablation(s, map));
  for (const std::string& s : o.patch_state) {
    iv.states.push_back(parse_state_patch(s));
    if (iv.states.back().position < prompt)
      fail("--patch-state {}: positions before {} are the prompt, read as one batch; patch at {} or later", s, prompt, prompt);
  }
  auto name = [&](const char* option, const std::string& spec, const std::string& tail = "") {
    iv.what += fmt::format("{}{} {}{}", iv.what.empty() ? "" : ", ", option, spec, tail);
  };
  for (const std::string& s : o.patch_field) name("--patch-field", s);
  for (const std::string& s : o.patch_state) name("--patch-state", s);
  for (const std::string& s : o.ablate) name("--ablate", s, " (" + o.ablate_mode + ")");
  return iv;
}

// One `run_lens`: the clean run (when it intervenes), the observed run with the lens and the
// interventions as probes, and what they print and write.
class LensRun {
 public:
  LensRun(const ModelArgs& a, const Program& p, const Launch& l, std::optional<int64_t> max_records)
      : a_(a), o_(a.lens), p_(p), l_(l), P_(static_cast<int64_t>(encode_image(p, l).size())),
        iv_(parse_interventions(a.lens, P_)),  // a bad spec fails before gigabytes are read
        named_(load_named_model(a.model, a.dtype)), m_(named_.model),
        offset_(m_.config.qgpu ? m_.config.qgpu->hidden_offset : 0),
        // The page holds every alive field at every position it shows: 1,000 positions are
        // about 35 MB; the lens alone keeps up to 4,096.
        lens_(m_, o_.positions.empty() || o_.positions == "all" ? std::vector<int64_t>{} : host::parse_positions(o_.positions, "--lens"),
              P_ - 1, o_.html.empty() ? 4096 : 1000) {
    // The runs get the cap `qgpu run --engine model` would (derived from the interpreter's
    // records): an intervention that breaks the model stops in seconds.
    const RecordCap cap = record_cap(p, l, max_records);
    base_ = {.rounding = rounding_option(a.rounding), .max_records = cap.records, .max_records_why = cap.why};
    for (const std::string& f : o_.fields)
      if (!lift::machine_fields().index.count(f)) fail("--lens-fields: no field '{}' (`qgpu map` lists them)", f);
    if (!o_.dump_mlp.empty())
      for (int64_t il : host::parse_positions(o_.dump_mlp, "--dump-mlp")) {
        if (il >= lift::kLayerCount) fail("--dump-mlp {}: the machine's layers are 0..{}", il, lift::kLayerCount - 1);
        mlp_layers_.insert(static_cast<int>(il));
      }
  }

  void run(ReportOptions report) {
    report.dtype = engine::dtype_name(m_.dtype);
    if (iv_.any()) run_clean();
    run_observed();
    if (!o_.dump.empty()) write_dump(o_.dump, lens_, mlp_, state_, m_, run_.result);
    if (!o_.html.empty()) write_html(report);
    print(report);
  }

 private:
  bool observe() const { return o_.lens() || o_.json || !o_.dump.empty() || !o_.html.empty(); }

  // The reference of the diff, and the source of resampled activations.
  void run_clean() {
    host::LaunchOptions c = base_;
    if (iv_.mode == "resample")
      c.probe = [&](const char* name, int il, int64_t pos, std::span<float> v) {
        const std::string_view n(name);
        if (n != "mlp_act" && n != "mixer_heads") return;
        std::vector<float> keep;
        for (int d : ablated_dims(n, il)) keep.push_back(v[static_cast<size_t>(d)]);
        if (!keep.empty()) (n == "mlp_act" ? clean_units_ : clean_heads_)[il][pos] = std::move(keep);
      };
    clean_ = launch_kept(p_, l_, m_, c);
    if (!clean_->error.empty()) fail("the clean run failed before any intervention: {}", clean_->error);
  }

  // A probe: the field patches and ablations, and the MLP activations the dump keeps.
  void intervene(const char* name, int il, int64_t pos, std::span<float> v) {
    const std::string_view n(name);
    const int sublayer = n == "embed" ? -1 : n == "attn_residual" ? lift::mixer(il) : n == "layer_out" ? lift::mlp(il) : -2;
    for (const FieldPatch& f : iv_.fields)
      if (sublayer == f.sublayer && (!f.position || *f.position == pos)) {
        const lift::Field& field = lift::machine_fields()[f.field];
        std::fill_n(v.begin() + offset_ + field.offset, field.size, 0.0f);
        for (int d : f.hot) v[static_cast<size_t>(offset_ + d)] = 1.0f;
      }
    for (const Ablation& ab : iv_.ablations) {
      if (ab.position && *ab.position != pos) continue;
      const std::vector<int> dims = ablation_dims(ab, n, il);  // MLP units or head channels
      if (!dims.empty() && iv_.mode == "zero")
        for (int d : dims) v[static_cast<size_t>(d)] = 0.0f;
      else if (!dims.empty() && iv_.mode == "resample")
        resample(n == "mlp_act" ? clean_units_[il] : clean_heads_[il], dims, v);
      else if (iv_.mode == "swap" && ((n == "layer_out" && ab.units.count(il)) || (n == "attn_residual" && ab.heads.count(il))))
        swap_fields(v, offset_, ab.fields);
    }
    if (n == "mlp_act" && mlp_layers_.count(il)) mlp_[il][pos].assign(v.begin(), v.end());
  }

  // The entries of a probe's values an ablation owns: its MLP units at "mlp_act", its heads'
  // dv channels each at "mixer_heads".
  std::vector<int> ablation_dims(const Ablation& ab, std::string_view n, int il) const {
    std::vector<int> d;
    if (n == "mlp_act")
      if (auto it = ab.units.find(il); it != ab.units.end()) d = it->second;
    if (n == "mixer_heads")
      if (auto it = ab.heads.find(il); it != ab.heads.end())
        for (int h : it->second)
          for (int j = 0; j < m_.config.linear_value_head_dim; ++j) d.push_back(h * m_.config.linear_value_head_dim + j);
    return d;
  }
  std::vector<int> ablated_dims(std::string_view n, int il) const {
    std::vector<int> d;
    for (const Ablation& ab : iv_.ablations)
      for (int x : ablation_dims(ab, n, il)) d.push_back(x);
    return d;
  }

  // The entries' values at another generated position of the clean run (a fixed seed picks it).
  void resample(const std::map<int64_t, std::vector<float>>& by_pos, const std::vector<int>& dims, std::span<float> v) {
    if (by_pos.empty()) return;
    const int64_t records = std::max<int64_t>(1, static_cast<int64_t>(clean_->result.records.size()));
    auto src = by_pos.lower_bound(P_ - 1 + static_cast<int64_t>(rng_() % static_cast<uint64_t>(records)));
    if (src == by_pos.end()) src = by_pos.begin();
    for (size_t k = 0; k < dims.size() && k < src->second.size(); ++k) v[static_cast<size_t>(dims[k])] = src->second[k];
  }

  void run_observed() {
    host::LaunchOptions o = base_;
    auto probe = [this](const char* name, int il, int64_t pos, std::span<float> v) { intervene(name, il, pos, v); };
    o.probe = observe() ? lens_.probe(probe) : engine::ProbeFn(probe);
    if (!iv_.states.empty())
      o.edit_state = [this](int64_t position, engine::State& s) {
        for (const StatePatch& sp : iv_.states)
          if (sp.position == position) {
            if (sp.memory) host::write_memory_word(m_, s, sp.word, sp.value);
            else host::write_register(m_, s, sp.warp, sp.lane, sp.code, sp.value);
          }
      };
    state_.resize(static_cast<size_t>(lift::kLayerCount));
    if (!o_.dump.empty())  // the final DeltaNet state
      o.on_record = [this](const Rec* r, const engine::State& s) {
        if (r && r->kind == Tok::kEnd)
          for (int il = 0; il < lift::kLayerCount; ++il)
            if (m_.config.is_linear(il))
              for (int h = 0; h < m_.config.linear_num_value_heads; ++h) {
                std::span<const float> S = s.recurrent(m_.config, il, h);
                state_[static_cast<size_t>(il)].insert(state_[static_cast<size_t>(il)].end(), S.begin(), S.end());
              }
        return true;
      };
    run_ = launch_kept(p_, l_, m_, o);
    if (!run_.error.empty() && !iv_.any()) fail("{}", run_.error);  // with an intervention, the diff reports it
    tokens_ = run_.result.prompt;
    tokens_.insert(tokens_.end(), run_.result.records.begin(), run_.result.records.end());
  }

  std::vector<host::LensPosition> decoded(bool all) const {
    std::vector<host::LensPosition> d = host::decode_lens(lens_.snapshots(), tokens_, P_, all);
    if (!o_.fields.empty())
      for (host::LensPosition& lp : d)
        for (host::LensRow& row : lp.rows)
          std::erase_if(row.fields, [&](const host::LensField& f) {
            return std::find(o_.fields.begin(), o_.fields.end(), f.name) == o_.fields.end();
          });
    return d;
  }

  // The launch's report (a failed run: its kernel, error and records).
  ojson report_json(const ReportOptions& report) const {
    if (run_.error.empty()) return trace_json(p_, l_, host::launch_trace(run_.result), report);
    ojson records = ojson::array();
    for (const Rec& x : run_.result.records) records.push_back(record_text(x));
    return {{"kernel", p_.kernel}, {"error", run_.error}, {"records", records}};
  }

  // Every alive field at every position, every record: the page's grid and timeline.
  void write_html(ReportOptions report) const {
    report.with_records = true;
    ojson page = report_json(report);
    page["model"] = named_.name;
    page["lens"] = host::lens_json(host::decode_lens(lens_.snapshots(), tokens_, P_, true));
    page["map"] = lift::machine_map();
    const std::string html = host::viewer_html(page);
    write_file_atomic(o_.html, [&](std::ostream& os) { os << html; });
  }

  void print(const ReportOptions& report) const {
    const std::vector<host::LensPosition> lens = observe() ? decoded(o_.all) : std::vector<host::LensPosition>{};
    if (a_.json || o_.json) {
      ojson j = report_json(report);
      j["model"] = named_.name;
      if (observe()) j["lens"] = host::lens_json(lens);
      if (lens_.capped()) j["lens_capped"] = true;
      if (iv_.any()) j["intervention"] = iv_.what, j["diff"] = diff_text(p_, *clean_, run_, iv_.what);
      if (!o_.dump.empty()) j["activations"] = o_.dump;
      if (!o_.html.empty()) j["html"] = o_.html;
      return fmt::print("{}\n", j.dump());
    }
    if (run_.error.empty()) fmt::print("{}", trace_text(p_, l_, host::launch_trace(run_.result), report.with_records));
    if (o_.lens()) fmt::print("{}", host::lens_text(lens));
    if (lens_.capped())
      fmt::print("lens: kept the first {} positions; give --lens POSITIONS for others\n", lens_.snapshots().size());
    if (!o_.html.empty())
      fmt::print("wrote {}: the records and the lens at {} positions (open it in a browser; {}?record=N opens at record N)\n",
                 o_.html, lens_.snapshots().size(), o_.html);
    if (!o_.dump.empty())
      fmt::print("wrote {}: the residual after every sublayer at {} positions{}, the final DeltaNet state, the map\n",
                 o_.dump, lens_.snapshots().size(), mlp_.empty() ? "" : ", MLP activations");
    if (iv_.any()) fmt::print("{}", diff_text(p_, *clean_, run_, iv_.what));
  }

  const ModelArgs& a_;
  const LensArgs& o_;
  const Program& p_;
  const Launch& l_;
  int64_t P_;
  Interventions iv_;
  NamedModel named_;
  const engine::Model& m_;
  int offset_;
  host::Lens lens_;
  host::LaunchOptions base_;
  std::set<int> mlp_layers_;
  std::optional<Outcome> clean_;
  Outcome run_;
  std::vector<Rec> tokens_;
  std::map<int, std::map<int64_t, std::vector<float>>> clean_units_, clean_heads_, mlp_;  // layer -> position -> values
  std::vector<std::vector<float>> state_;
  std::mt19937_64 rng_{7};
};

}  // namespace

void run_lens(const ModelArgs& a, const Program& p, const Launch& l, ReportOptions report,
              std::optional<int64_t> max_records) {
  host::require_generation(p, l);  // before a checkpoint of gigabytes is read for nothing
  report.engine = "model";
  LensRun(a, p, l, max_records).run(report);
}

}  // namespace qgpu
