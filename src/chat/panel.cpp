// The live machine panel. read_snapshot decodes the state (host/readout.h); render_panel
// turns a snapshot into text, section by section, each line cut to the width.
#include "chat/panel.h"

#include <fmt/format.h>

#include <algorithm>

#include "gpu/f32.h"
#include "gpu/isa.h"
#include "lift/machine_model.h"

namespace qgpu::chat {

namespace {

constexpr int kRecent = 8;          // records kept in PanelSnapshot::recent
constexpr int kRecentWrite = 32;    // a memory word changed in this many records is marked `*`
constexpr int kRomWindow = 7;       // ROM rows around the current block
constexpr int kAllWarpsWidth = 130; // from this width the register file shows every warp

// ---- Reading.

void read_lanes(const LaunchFeed& f, PanelSnapshot& s) {
  for (int w = 0; w < kWarps; ++w)
    for (int l = 0; l < kLanes; ++l) {
      s.lanes[w][l] = host::read_lane(f.model, f.state, w, l);
      for (int r = 0; r < kRegs; ++r) s.regs[w][l][r] = host::read_register(f.model, f.state, w, l, 1 + r);
      for (int p = 0; p < kPreds; ++p) s.preds[w][l][p] = host::read_register(f.model, f.state, w, l, 1 + kRegs + p);
    }
}

void read_mem(const LaunchFeed& f, const PanelSnapshot* previous, PanelSnapshot& s) {
  s.mem = host::read_memory(f.model, f.state);
  if (!previous) {
    s.mem_changed_at.fill(-1);  // the image's words are not writes of the launch
    return;
  }
  s.mem_changed_at = previous->mem_changed_at;
  for (int a = 0; a < kMemWords; ++a)
    if (s.mem[a] != previous->mem[a]) s.mem_changed_at[a] = s.records;
}

// The words of the float arrays.
void read_types(const Program& p, PanelSnapshot& s) {
  for (const Array& a : p.arrays)
    for (int i = a.base; a.is_float && i < a.base + a.size && i < kMemWords; ++i) s.float_mem[i] = true;
}

// A value record writes its tag's lanes' register d of the last `sched` step's instruction:
// that register now holds a float exactly when the compiler typed the instruction .f32.
void follow_record(PanelSnapshot& s, const Rec& r, const Program& p) {
  if (r.kind == Tok::kSched) s.typed_step = r;
  if ((r.kind != Tok::kSmall && r.kind != Tok::kHead) || r.x == kTagData || s.typed_step.kind != Tok::kSched) return;
  const int w = s.typed_step.x, block = s.typed_step.y;
  if (w < 0 || w >= kWarps || block < 0 || block >= static_cast<int>(p.code.size())) return;
  const Instr& in = p.code[static_cast<size_t>(block)];
  if (in.d.kind != OperandKind::kReg || in.d.index >= kRegs) return;
  for (int l = 0; l < kLanes; ++l)
    if (r.x >> l & 1) s.float_regs[w][l][in.d.index] = in.float_d;
}

// ---- Rendering helpers.

std::string fit(std::string line, int width) {
  if (width <= 0) return "";
  if (static_cast<int>(line.size()) > width) line.resize(static_cast<size_t>(width));
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

std::string rule(const std::string& title, int width) {
  std::string line = "-- " + title + " ";
  if (static_cast<int>(line.size()) < width) line.append(static_cast<size_t>(width) - line.size(), '-');
  return fit(line, width);
}

std::string signed_text(uint32_t v) { return std::to_string(static_cast<int32_t>(v)); }

std::string value_text(uint32_t v, bool is_float) { return is_float ? format_f32(v) : signed_text(v); }

std::string reg_text(const PanelSnapshot& s, int w, int l, int r) {
  const auto& v = s.regs[w][l][r];
  return v ? value_text(*v, s.float_regs[w][l][r]) : std::string("-");
}

bool has_step(const PanelSnapshot& s) { return s.step.kind == Tok::kSched && s.step.z != 0; }

std::optional<Instr> instr_at(const PanelSnapshot& s, int block) {
  if (block < 0 || block >= kBlocks) return std::nullopt;
  return rom_instr(s.rom[block]);
}

std::string instr_at_text(const PanelSnapshot& s, int block) {
  std::optional<Instr> in = instr_at(s, block);
  return in ? instr_text(*in) : "(empty)";
}

std::string operand_text(const Operand& o) {
  switch (o.kind) {
    case OperandKind::kReg: return fmt::format("r{}", o.index);
    case OperandKind::kPred: return fmt::format("p{}", o.index);
    case OperandKind::kSpecial: return std::string(kSpecials[o.index].name);
    case OperandKind::kImm: return "imm";
    case OperandKind::kNone: break;
  }
  return "";
}

std::string lane_cell(const std::optional<host::LaneStatus>& st) {
  if (!st) return "-";
  if (st->finished) return "done";
  return fmt::format("b{}{}", st->pc, st->flag ? "'" : "");
}

// ---- Sections.

std::vector<std::string> header(const PanelSnapshot& s, int width) {
  std::string line = fmt::format("qgpu {}  grid {}x{} block {}x{}  records {}  {:.0f} tokens/s  {}", s.kernel,
                                 s.launch.grid_x, s.launch.grid_y, s.launch.block_x, s.launch.block_y, s.records,
                                 s.tokens_per_second, s.finished ? "finished" : "running");
  return {fit(line, width)};
}

std::string recent_line(const PanelSnapshot& s, int width) {
  std::string tail;
  for (auto it = s.recent.rbegin(); it != s.recent.rend(); ++it) {
    std::string next = record_text(*it) + (tail.empty() ? "" : "  ") + tail;
    if (static_cast<int>(next.size()) + 8 > width) break;
    tail = next;
  }
  return fit(" recent " + tail, width);
}

std::vector<std::string> scheduler(const PanelSnapshot& s, int width) {
  std::vector<std::string> out{rule("scheduler", width)};
  out.push_back(fit(has_step(s) ? fmt::format(" step: warp {} runs block {} with lanes {}", s.step.x, s.step.y,
                                              mask_text(s.step.z))
                                : std::string(" step: none yet"),
                    width));
  for (int w = 0; w < kWarps; ++w) {
    const bool running = has_step(s) && s.step.x == w && !s.finished;
    std::string line = fmt::format(" {}w{} ", running ? '>' : ' ', w);
    int done = 0;
    for (int l = 0; l < kLanes; ++l) {
      line += fmt::format(" {:<6}", lane_cell(s.lanes[w][l]));
      done += s.lanes[w][l] && s.lanes[w][l]->finished;
    }
    if (running) line += fmt::format(" active {}", mask_text(s.step.z));
    else if (done == kLanes) line += " finished";
    out.push_back(fit(line, width));
  }
  out.push_back(fit(" (lane: bN its PC, ' barrier flag set, done finished, - not started)", width));
  out.push_back(recent_line(s, width));
  return out;
}

std::vector<std::string> rom_section(const PanelSnapshot& s, int width) {
  std::vector<std::string> out{rule(fmt::format("program ROM ({} blocks)", s.program_blocks), width)};
  const int n = std::max(1, s.program_blocks);
  const int current = has_step(s) ? s.step.y : -1;
  int first = std::clamp(current - kRomWindow / 2, 0, std::max(0, n - kRomWindow));
  for (int b = first; b < std::min(n, first + kRomWindow); ++b)
    out.push_back(fit(fmt::format(" {} b{:<3} {}", b == current ? '>' : ' ', b, instr_at_text(s, b)), width));
  return out;
}

// What the record just consumed writes (the write-back half of L0..L3 in this pass).
std::string writeback_text(const PanelSnapshot& s) {
  if (s.recent.empty()) return "the prompt: ROM, memory, launch header, lane status";
  const Rec& r = s.recent.back();
  const std::optional<Instr> in = instr_at(s, s.step.y);
  const std::string d = in ? operand_text(in->d) : "d";
  switch (r.kind) {
    case Tok::kSched: return fmt::format("step; PCs of w{} lanes {}", r.x, mask_text(r.z));
    case Tok::kSmall: return fmt::format("{} of lanes {}", d, mask_text(r.x));
    case Tok::kTail: {
      const size_t n = s.recent.size();
      const bool head = n >= 4 && s.recent[n - 4].kind == Tok::kHead;
      return fmt::format("{} of lanes {} (4-byte value)", d, head ? mask_text(s.recent[n - 4].x) : "(tagged)");
    }
    case Tok::kHead:
    case Tok::kMid1:
    case Tok::kMid2: return "a value byte into the conv window";
    case Tok::kPred: return fmt::format("{} of lanes {}", d, mask_text(r.x));
    case Tok::kSt: return fmt::format("memory word {} (lane {}'s value)", r.y, r.x);
    case Tok::kBar: return fmt::format("barrier parity of CUDA block slot {}", r.x);
    case Tok::kWave: return fmt::format("lane status for wave {}", r.x);
    case Tok::kBr: return "nothing (lanes jumped at sched)";
    case Tok::kEnd: return "nothing (`end` is not fed back)";
    default: return "nothing";
  }
}

// The step's source operands with each active lane's register values.
std::string read_text(const PanelSnapshot& s, const Instr& in) {
  std::string text = fmt::format("w{} lanes {}:", s.step.x, mask_text(s.step.z));
  for (const Operand* o : {&in.a, &in.b, &in.c})
    if (o->kind != OperandKind::kNone) text += " " + operand_text(*o);
  if (in.guard.pred >= 0) text += fmt::format(" p{}(guard)", in.guard.pred);
  if (text.back() == ':') text += " no operands";
  for (int l = 0; l < kLanes; ++l) {
    if (!(s.step.z >> l & 1)) continue;
    std::string vals;
    for (const Operand* o : {&in.a, &in.b, &in.c}) {
      if (o->kind != OperandKind::kReg) continue;
      vals += (vals.empty() ? "" : ",") + reg_text(s, s.step.x, l, o->index);
    }
    if (!vals.empty()) text += fmt::format("  l{}={}", l, vals);
  }
  return text;
}

std::vector<std::string> pipeline(const PanelSnapshot& s, int width) {
  std::vector<std::string> out{rule(fmt::format("pipeline: the pass that consumed record #{}", s.records), width)};
  const std::optional<Instr> in = has_step(s) ? instr_at(s, s.step.y) : std::nullopt;
  const std::string op = in ? std::string(op_info(in->op).mnemonic) : "-";
  auto row = [&](const char* phase, const std::string& layers, const std::string& what) {
    out.push_back(fit(fmt::format(" {:<11}{:<10}{}", phase, layers, what), width));
  };
  // The layers of the construction (src/lift/machine_model.h), first in a merged checkpoint too.
  using namespace lift;
  row("write-back", fmt::format("L{}-L{},L{}", kControlLayer, kLaneLayer, kMemoryLayer), writeback_text(s));
  row("fetch", fmt::format("L{}-L{}", kControlLayer, kRomLayer),
      has_step(s) ? fmt::format("ROM b{}: {}", s.step.y, instr_at_text(s, s.step.y)) : std::string("no step yet"));
  row("read", fmt::format("L{}-L{}", kRegisterLayer, kOperandLayer), in ? read_text(s, *in) : std::string("-"));
  row("execute", fmt::format("L{}-L{}", kSchedLayer, kSchedLast),
      in ? fmt::format("{} for the next lane (lanes L{}-L{}, mul L{}-L{}, ALU L{}-L{}); scheduler too", op,
                       kLaneOpsLayer, kLaneOpsLayer + 1, kMulLayer, kMulLayer + 2, kAluLayer, kAluLayer + 2)
         : std::string("scheduler"));
  row("emit", fmt::format("L{}+head", kEmitLayer),
      s.finished ? std::string("end") : fmt::format("record #{} (body of {} or the next step)", s.records + 1, op));
  return out;
}

// The warps the register file shows: the running one, or every warp with a written register
// when the panel is wide.
std::vector<int> register_warps(const PanelSnapshot& s, int width) {
  std::vector<int> warps;
  const int running = has_step(s) ? s.step.x : 0;
  for (int w = 0; w < kWarps; ++w) {
    bool any = false;
    for (int l = 0; l < kLanes; ++l)
      for (int r = 0; r < kRegs; ++r) any = any || s.regs[w][l][r].has_value();
    if (w == running || (width >= kAllWarpsWidth && any)) warps.push_back(w);
  }
  return warps;
}

std::string pred_cell(const PanelSnapshot& s, int w, int l) {
  std::string text;
  for (int p = 0; p < kPreds; ++p) text += s.preds[w][l][p] ? static_cast<char>('0' + *s.preds[w][l][p]) : '-';
  return text;
}

std::vector<std::string> registers(const PanelSnapshot& s, int width) {
  std::vector<std::string> out{rule("register file (signed, or a float when written by a .f32 op; - never written)", width)};
  const std::vector<int> warps = register_warps(s, width);
  int cell = 3;  // one width for every column: "r23"
  std::vector<int> shown, written;
  for (int r = 0; r < kRegs; ++r) {
    bool any = false;
    for (int w : warps)
      for (int l = 0; l < kLanes; ++l)
        if (s.regs[w][l][r]) {
          cell = std::max(cell, static_cast<int>(reg_text(s, w, l, r).size()));
          any = true;
        }
    if (any) written.push_back(r);
  }
  if (14 + kRegs * (cell + 1) <= width) {  // "  w0 l0   p0-3" then the cells
    for (int r = 0; r < kRegs; ++r) shown.push_back(r);
  } else {
    shown = written;
  }
  std::string head = "  lane    p0-3";
  for (int r : shown) head += fmt::format(" {:>{}}", fmt::format("r{}", r), cell);
  out.push_back(fit(head, width));
  for (int w : warps)
    for (int l = 0; l < kLanes; ++l) {
      std::string line = fmt::format("  w{} l{}   {}", w, l, pred_cell(s, w, l));
      for (int r : shown)
        line += fmt::format(" {:>{}}", reg_text(s, w, l, r), cell);
      out.push_back(fit(line, width));
    }
  return out;
}

std::string mem_cell(const PanelSnapshot& s, int a) {
  if (!s.mem[a]) return ".";
  const bool recent = s.mem_changed_at[a] >= 0 && s.records - s.mem_changed_at[a] < kRecentWrite;
  return value_text(*s.mem[a], s.float_mem[a]) + (recent ? "*" : "");
}

std::vector<std::string> memory(const PanelSnapshot& s, int width) {
  std::vector<std::string> out{rule(fmt::format("memory (words; . unwritten, * written in the last {} records)",
                                                kRecentWrite), width)};
  int cell = 1;
  for (int a = 0; a < kMemWords; ++a) cell = std::max(cell, static_cast<int>(mem_cell(s, a).size()));
  int per = 1;
  for (int n : {16, 12, 8, 6, 4, 2})
    if (5 + n * (cell + 1) <= width) { per = n; break; }
  int hidden = 0;
  for (int first = 0; first < kMemWords; first += per) {
    const int last = std::min(kMemWords, first + per);
    if (std::none_of(s.mem.begin() + first, s.mem.begin() + last, [](const auto& v) { return v.has_value(); })) {
      hidden += last - first;
      continue;
    }
    std::string line = fmt::format("{:>4}:", first);
    for (int a = first; a < last; ++a) line += fmt::format(" {:>{}}", mem_cell(s, a), cell);
    out.push_back(fit(line, width));
  }
  if (hidden > 0) out.push_back(fit(fmt::format(" ({} unwritten words in rows not shown)", hidden), width));
  return out;
}

}  // namespace

PanelSnapshot read_snapshot(const LaunchFeed& feed, const PanelSnapshot* previous) {
  PanelSnapshot s;
  s.kernel = feed.program.kernel;
  s.launch = feed.launch;
  s.program_blocks = static_cast<int>(feed.program.code.size());
  s.records = feed.records;
  s.tokens_per_second = feed.seconds > 0 ? static_cast<double>(feed.records) / feed.seconds : 0;
  s.finished = feed.record && feed.record->kind == Tok::kEnd;
  s.step = host::read_step(feed.model, feed.state);
  if (previous) {
    s.recent = previous->recent;
    s.float_regs = previous->float_regs;
    s.typed_step = previous->typed_step;
  }
  note_record(s, feed);
  s.rom = previous ? previous->rom : host::read_rom(feed.model, feed.state);  // the image wrote it; runs never do
  read_lanes(feed, s);
  read_mem(feed, previous, s);
  read_types(feed.program, s);
  return s;
}

void note_record(PanelSnapshot& s, const LaunchFeed& feed) {
  s.records = feed.records;
  if (!feed.record) return;
  s.recent.push_back(*feed.record);
  if (static_cast<int>(s.recent.size()) > kRecent) s.recent.erase(s.recent.begin(), s.recent.end() - kRecent);
  follow_record(s, *feed.record, feed.program);
}

std::vector<std::string> render_panel(const PanelSnapshot& s, int width) {
  std::vector<std::string> out = header(s, width);
  for (auto section : {scheduler, rom_section, pipeline, registers, memory}) {
    std::vector<std::string> lines = section(s, width);
    out.insert(out.end(), lines.begin(), lines.end());
  }
  return out;
}

}  // namespace qgpu::chat
