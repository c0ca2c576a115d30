// Reporting a launch. Values are printed as signed 32-bit integers, as CUDA ints; the
// elements of an array as its C type reads them (unsigned ones unsigned, 8/16-bit data
// unpacked: array_elements) and of float arrays as floats (gpu/f32.h).
#include "gpu/trace_json.h"

#include <fmt/format.h>

#include <algorithm>

#include "gpu/f32.h"

namespace qgpu {
namespace {

int64_t count_steps(const Trace& t) {
  return std::count_if(t.records.begin(), t.records.end(),
                       [](const Rec& r) { return r.kind == Tok::kSched; });
}

}  // namespace

nlohmann::json array_json(const Array& a, const std::vector<uint32_t>& v) {
  if (!a.is_float) return array_elements(a, v);
  nlohmann::json out = nlohmann::json::array();
  for (uint32_t x : v) out.push_back(f32_json(x));
  return out;
}

nlohmann::json trace_json(const Program& p, const Launch& l, const Trace& t, const ReportOptions& o) {
  nlohmann::json j;
  j["kernel"] = p.kernel;
  j["engine"] = o.engine;
  if (!o.dtype.empty()) j["dtype"] = o.dtype;
  j["launch"] = {{"grid", {l.grid_x, l.grid_y}}, {"block", {l.block_x, l.block_y}}};
  nlohmann::json outputs = nlohmann::json::object();
  for (const Array& a : p.arrays)
    if (o.outputs.empty() || std::find(o.outputs.begin(), o.outputs.end(), a.name) != o.outputs.end())
      outputs[a.name] = array_json(a, read_array(t.final, a));
  j["outputs"] = outputs;
  nlohmann::json mem = nlohmann::json::array();
  for (int i = 0; i < kMemWords; ++i)
    mem.push_back(t.final.mem_written[i] ? nlohmann::json(static_cast<int32_t>(t.final.mem[i]))
                                         : nlohmann::json(nullptr));
  j["memory"] = mem;
  j["tokens"] = t.records.size();
  j["prompt_tokens"] = t.prompt.size();
  j["steps"] = count_steps(t);
  j["waves"] = wave_count(l);
  j["blocks"] = p.code.size();
  if (o.with_records) {
    nlohmann::json texts = nlohmann::json::array(), ids = nlohmann::json::array();
    for (const Rec& r : t.records) texts.push_back(record_text(r)), ids.push_back(token_id(r));
    j["records"] = texts;
    j["record_ids"] = ids;
    nlohmann::json prompt = nlohmann::json::array();
    for (const Rec& r : t.prompt) prompt.push_back(token_id(r));
    j["prompt_ids"] = prompt;
  }
  return j;
}

namespace {

// One line per record, steps indented under their sched; a float value gets its float.
std::string records_text(const Program& p, const Trace& t) {
  std::string s;
  bool float_step = false;  // the step's d is a float (the compiler's type): values get a note
  uint32_t bytes = 0;       // a 4-byte value in flight
  for (const Rec& r : t.records) {
    bool top = r.kind == Tok::kSched || r.kind == Tok::kBar || r.kind == Tok::kWave ||
               r.kind == Tok::kEnd;
    std::string note;
    if (r.kind == Tok::kSched) {
      std::optional<Instr> in = rom_instr(t.final.rom[r.y]);
      note = in ? "   ; " + instr_text(*in) : "";
      float_step = r.y < static_cast<int>(p.code.size()) && p.code[r.y].float_d;
    }
    if (r.kind == Tok::kHead) bytes = static_cast<uint32_t>(r.y);
    if (r.kind == Tok::kMid1) bytes |= static_cast<uint32_t>(r.x) << 8;
    if (r.kind == Tok::kMid2) bytes |= static_cast<uint32_t>(r.x) << 16;
    if (float_step && r.kind == Tok::kTail) note = "   ; " + format_f32(bytes | static_cast<uint32_t>(r.x) << 24);
    if (float_step && r.kind == Tok::kSmall) note = "   ; " + format_f32(static_cast<uint32_t>(r.y));
    s += fmt::format("{}{}{}\n", top ? "  " : "      ", record_text(r), note);
  }
  return s;
}

}  // namespace

std::string trace_text(const Program& p, const Launch& l, const Trace& t, bool with_records) {
  std::string s = with_records ? records_text(p, t) : "";
  s += fmt::format("{}: grid {}x{}, block {}x{}, {} wave{}; {} records ({} steps), {} prompt tokens\n", p.kernel,
                   l.grid_x, l.grid_y, l.block_x, l.block_y, wave_count(l), wave_count(l) == 1 ? "" : "s",
                   t.records.size(), count_steps(t), t.prompt.size());
  for (const Array& a : p.arrays) {
    std::vector<uint32_t> v = read_array(t.final, a);
    s += fmt::format("  {} =", a.name);
    if (!a.is_float)
      for (int64_t x : array_elements(a, v)) s += fmt::format(" {}", x);
    else
      for (uint32_t x : v) s += fmt::format(" {}", format_f32(x));
    s += "\n";
  }
  return s;
}

}  // namespace qgpu
