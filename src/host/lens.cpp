#include "host/lens.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "base/error.h"
#include "base/text_file.h"
#include "lift/code.h"
#include "lift/machine_model.h"

namespace qgpu::host {

namespace {

// Sublayer s's index in a snapshot: the embedding first.
size_t row_of(int sublayer) { return static_cast<size_t>(sublayer + 1); }

}  // namespace

Lens::Lens(const engine::Model& m, std::vector<int64_t> positions, int64_t first, int64_t max_positions)
    : offset_(m.config.qgpu ? m.config.qgpu->hidden_offset : 0),
      dims_(lift::machine_config().hidden_size),
      layers_(lift::kLayerCount),
      merged_(m.config.qgpu.has_value()),
      positions_(std::move(positions)),
      first_(first),
      max_positions_(max_positions) {
  std::sort(positions_.begin(), positions_.end());
  if (offset_ + dims_ > m.config.hidden_size)
    fail("the lens needs the machine's {} dims, and this model's residual has {}: is it a qgpu model?", dims_,
         m.config.hidden_size);
}

LensSnapshot* Lens::at(int64_t position) {
  const bool wanted = positions_.empty() ? position >= first_
                                         : std::binary_search(positions_.begin(), positions_.end(), position);
  if (!wanted) return nullptr;
  for (auto it = snapshots_.rbegin(); it != snapshots_.rend(); ++it)
    if (it->position == position) return &*it;
  if (static_cast<int64_t>(snapshots_.size()) >= max_positions_) {
    capped_ = true;
    return nullptr;
  }
  LensSnapshot& s = snapshots_.emplace_back();
  s.position = position;
  s.residual.resize(static_cast<size_t>(1 + 2 * layers_));
  if (merged_) s.base_norm.assign(static_cast<size_t>(1 + 2 * layers_), 0.0);
  return &s;
}

engine::ProbeFn Lens::probe(engine::ProbeFn then) {
  return [this, then](const char* name, int il, int64_t pos, std::span<float> v) {
    const std::string_view n(name);
    int sublayer = -2;
    if (n == "embed") sublayer = -1;
    else if (n == "attn_residual") sublayer = lift::mixer(il);
    else if (n == "layer_out") sublayer = lift::mlp(il);
    if (sublayer > -2 && sublayer < 2 * layers_) {
      if (LensSnapshot* s = at(pos)) {
        const auto first = v.begin() + offset_;
        s->residual[row_of(sublayer)].assign(first, first + dims_);
        if (merged_) {
          double sum = 0;
          for (int i = 0; i < offset_; ++i) sum += double(v[static_cast<size_t>(i)]) * v[static_cast<size_t>(i)];
          s->base_norm[row_of(sublayer)] = std::sqrt(sum);
        }
      }
    }
    if (then) then(name, il, pos, v);
  };
}

std::vector<LensPosition> decode_lens(const std::vector<LensSnapshot>& snapshots, const std::vector<Rec>& tokens,
                                      int64_t prompt, bool all_fields) {
  const lift::Layout& l = lift::machine_fields();
  std::vector<LensPosition> out;
  for (const LensSnapshot& snap : snapshots) {
    LensPosition p;
    p.position = snap.position;
    if (snap.position < static_cast<int64_t>(tokens.size())) p.input = tokens[static_cast<size_t>(snap.position)];
    if (snap.position + 1 < static_cast<int64_t>(tokens.size())) p.output = tokens[static_cast<size_t>(snap.position + 1)];
    if (snap.position + 1 >= prompt && p.output) p.record = snap.position + 1 - prompt;
    for (int s = -1; s < static_cast<int>(snap.residual.size()) - 1; ++s) {
      const std::vector<float>& x = snap.residual[row_of(s)];
      if (x.empty()) continue;  // a sublayer the engine skipped for this token (none today)
      LensRow row;
      row.sublayer = s;
      if (!snap.base_norm.empty()) row.base_norm = snap.base_norm[row_of(s)];
      for (const lift::Field& f : l.fields) {
        // Alive after s: written at or before it, cleared after it. A head field holds the
        // LM head's pattern, not its code, until the pattern's clear.
        const bool alive = f.life.born <= s && s < f.life.cleared && !(f.life.head && s < lift::kHeadPatternCleared);
        if (!alive) continue;
        const lift::Reading r = lift::read(f.code, std::span<const float>(x).subspan(static_cast<size_t>(f.offset), static_cast<size_t>(f.size)));
        // A value that completes nothing leaves wb_word empty; pad holds energy, not a code.
        const bool ok = r.valid() || (r.empty && (f.name == "wb_word" || f.code.kind == lift::Code::Kind::kOnes));
        LensField lf{.name = f.name, .value = lift::text_of(f.code, r), .valid = ok, .error = ok ? "" : r.error};
        if (f.name == "fam" && r.valid() && r.digit[0] < kNumFamilies)  // the token family by name
          lf.value = std::string(kFamilies[static_cast<size_t>(r.digit[0])].name);
        if (!ok) row.invalid.push_back(lf);
        if (all_fields || f.life.born == s) row.fields.push_back(std::move(lf));
      }
      p.rows.push_back(std::move(row));
    }
    out.push_back(std::move(p));
  }
  return out;
}

namespace {

// A long run of equal digits as d*n ("1*112"): the multiplier's and une's groups.
std::string compact(const std::string& value) {
  const std::vector<std::string> d = split(value, '|');
  if (d.size() <= 12) return value;
  std::string out;
  for (size_t i = 0; i < d.size();) {
    size_t j = i;
    while (j < d.size() && d[j] == d[i]) ++j;
    if (!out.empty()) out += '|';
    out += j - i > 2 ? fmt::format("{}*{}", d[i], j - i) : d[i] + (j - i == 2 ? "|" + d[i] : "");
    i = j;
  }
  return out;
}

}  // namespace

std::string lens_text(const std::vector<LensPosition>& positions) {
  std::string s;
  for (const LensPosition& p : positions) {
    s += fmt::format("position {}: {}", p.position, record_text(p.input));
    if (p.output) s += fmt::format(" -> {}", record_text(*p.output));
    if (p.record) s += fmt::format(" (record {})", *p.record);
    s += "\n";
    for (const LensRow& r : p.rows) {
      if (r.fields.empty() && r.invalid.empty()) continue;
      std::string line = fmt::format("  {:<10}", lift::sublayer_name(r.sublayer));
      const size_t indent = line.size();
      size_t width = line.size();
      auto put = [&](const std::string& item) {
        if (width + 1 + item.size() > 110 && width > indent) {
          line += '\n';
          line.append(indent, ' ');
          width = indent;
        }
        line += ' ';
        line += item;
        width += 1 + item.size();
      };
      for (const LensField& f : r.fields) put(fmt::format("{}={}{}", f.name, compact(f.value), f.valid ? "" : "!"));
      if (r.base_norm) put(fmt::format("|base|={:.3g}", *r.base_norm));
      s += line + "\n";
      for (const LensField& f : r.invalid)
        s += fmt::format("{}! {} is not a valid code after {}: {}\n", std::string(indent, ' '), f.name,
                         lift::sublayer_name(r.sublayer), f.error);
    }
  }
  return s;
}

nlohmann::ordered_json lens_json(const std::vector<LensPosition>& positions) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const LensPosition& p : positions) {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const LensRow& r : p.rows) {
      nlohmann::ordered_json fields = nlohmann::ordered_json::object();
      for (const LensField& f : r.fields) fields[f.name] = f.value;
      nlohmann::ordered_json invalid = nlohmann::ordered_json::object();
      for (const LensField& f : r.invalid) invalid[f.name] = f.error;
      nlohmann::ordered_json row = {{"sublayer", lift::sublayer_name(r.sublayer)}, {"fields", fields}, {"invalid", invalid}};
      if (r.base_norm) row["base_norm"] = *r.base_norm;
      rows.push_back(row);
    }
    nlohmann::ordered_json j = {{"position", p.position}, {"input", record_text(p.input)}};
    if (p.output) j["output"] = record_text(*p.output);
    if (p.record) j["record"] = *p.record;
    j["sublayers"] = rows;
    out.push_back(j);
  }
  return out;
}

namespace {

// Row `slot` of head h of layer il, writable; the layer's recurrent_plain is cleared (its
// rows may now hold anything).
std::span<float> state_row(const engine::Model& m, engine::State& s, int il, int h, int slot) {
  s.layers[static_cast<size_t>(il)].recurrent_plain.clear();
  const size_t dv = static_cast<size_t>(m.config.linear_value_head_dim);
  return s.recurrent(m.config, il, h).subspan(static_cast<size_t>(slot) * dv, dv);
}

// Writes `code`'s dims of `value` into row `slot` at the peak of the head's null slot row
// (written by `begin` with the word 0, in the same code): the row's other channels (pads)
// are the null slot's too.
void write_row(const engine::Model& m, engine::State& s, int il, int h, int slot, const lift::Code& code, uint32_t value,
               const std::string& what) {
  std::span<const float> null = state_row(m, s, il, h, lift::kNullSlot);
  const float peak = *std::max_element(null.begin(), null.end());
  if (!(peak > 0)) fail("{}: the machine has no state yet (write it at a position after `begin`)", what);
  std::vector<float> row(null.begin(), null.end());
  std::fill_n(row.begin(), code.size(), 0.0f);
  for (int d : lift::encode_word(code, value)) row[static_cast<size_t>(d)] = peak;
  std::span<float> to = state_row(m, s, il, h, slot);
  std::copy(row.begin(), row.end(), to.begin());
}

}  // namespace

void write_memory_word(const engine::Model& m, engine::State& s, int word, uint32_t value) {
  if (word < 0 || word >= kMemWords) fail("memory word {}: the machine has words 0..{}", word, kMemWords - 1);
  write_row(m, s, lift::kMemoryLayer, lift::kMemoryHead, word, lift::machine_fields()["mr"].code, value,
            fmt::format("mem[{}]", word));
}

std::optional<int> register_code(std::string_view s) {
  if (s.size() < 2 || s.size() > 3 || (s[0] != 'r' && s[0] != 'p') || (s.size() == 3 && s[1] == '0')) return std::nullopt;
  int n = 0;
  for (char c : s.substr(1)) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    n = n * 10 + (c - '0');
  }
  if (s[0] == 'r') return n < kRegs ? std::optional<int>(1 + n) : std::nullopt;
  return n < kPreds ? std::optional<int>(1 + kRegs + n) : std::nullopt;
}

void write_register(const engine::Model& m, engine::State& s, int warp, int lane, int code, uint32_t value) {
  if (warp < 0 || warp >= kWarps || lane < 0 || lane >= kLanes || code < 1 || code > kRegs + kPreds)
    fail("reg[{},{},{}]: warps 0..{}, lanes 0..{}, r0..r{} and p0..p{}", warp, lane, code, kWarps - 1, kLanes - 1,
         kRegs - 1, kPreds - 1);
  for (int port = 0; port < lift::kPorts; ++port)  // ports a, b, c: dual-rail bits; the guard port: nibbles
    write_row(m, s, lift::kRegisterLayer, lift::register_head(port, lane), lift::register_slot(warp, code),
              port == 3 ? lift::machine_fields()["mr"].code : lift::machine_fields()["ra0"].code, value,
              fmt::format("reg[{},{}]", warp, lane));
}

std::vector<int64_t> parse_positions(const std::string& text, const std::string& what) {
  std::vector<int64_t> out;
  size_t i = 0;
  auto bad = [&] {
    fail("{} '{}': expected token positions as N, N,M or N-M (the lens prints each position; `--lens` alone "
         "takes every generated record)",
         what, text);
  };
  auto number = [&]() -> int64_t {
    size_t j = i;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
    if (j == i || j - i > 12) bad();
    const int64_t v = std::stoll(text.substr(i, j - i));
    i = j;
    return v;
  };
  while (i < text.size()) {
    const int64_t a = number();
    int64_t b = a;
    if (i < text.size() && text[i] == '-') {
      ++i;
      b = number();
      if (b < a || b - a > 100000) bad();
    }
    for (int64_t v = a; v <= b; ++v) out.push_back(v);
    if (i < text.size()) {
      if (text[i] != ',') bad();
      ++i;
      if (i == text.size()) bad();
    }
  }
  if (out.empty()) bad();
  return out;
}

}  // namespace qgpu::host
