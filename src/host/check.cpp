// Every comparison returns the first field that differs, or nothing. Residual fields are
// decoded by name from lift::machine_layout() through their codes (lift/code.h); a field
// that is not a valid code is a divergence too ("not a code").
#include "host/check.h"

#include <bit>
#include <cmath>
#include <functional>

#include "base/error.h"
#include "host/launch.h"
#include "host/readout.h"
#include "lift/code.h"
#include "lift/machine_model.h"

namespace qgpu::host {
namespace {

using engine::Model;
using engine::State;
using Found = std::optional<Divergence>;

std::string code_text(std::optional<int64_t> v) { return v ? fmt::to_string(*v) : "not a code"; }

Found differ(int layer, std::string field, std::optional<int64_t> want, std::optional<int64_t> got) {
  if (want == got) return std::nullopt;
  return Divergence{.layer = layer, .field = std::move(field), .want = code_text(want), .got = code_text(got)};
}

// A residual field's code (lift/code.h, its one decoder): the hot entry of a one-group
// field, or of group g; the word of a nibble or dual-rail bit field; nullopt when the
// dims are not a valid code.
std::optional<int64_t> hot(std::span<const float> x, const lift::Field& f) {
  CHECK(f.code.groups() == 1);
  const lift::Reading r = lift::read(f.code, x.subspan(static_cast<size_t>(f.offset), static_cast<size_t>(f.size)));
  return r.valid() ? std::optional<int64_t>(r.digit[0]) : std::nullopt;
}

std::optional<int64_t> group(std::span<const float> x, const lift::Field& f, int g) {
  std::string why;
  const int d = lift::hot_entry(x.subspan(static_cast<size_t>(f.offset + f.code.offset(g)), static_cast<size_t>(f.code.radix[static_cast<size_t>(g)])),
                                1.0f, &why);
  return d >= 0 ? std::optional<int64_t>(d) : std::nullopt;
}

std::optional<int64_t> word(std::span<const float> x, const lift::Field& f) {
  const lift::Reading r = lift::read(f.code, x.subspan(static_cast<size_t>(f.offset), static_cast<size_t>(f.size)));
  return r.valid() ? std::optional<int64_t>(lift::word_of(f.code, r)) : std::nullopt;
}

// A one-hot value below `n` (a field whose entry n means "none"), else nullopt.
std::optional<int64_t> below(std::optional<int64_t> v, int n) { return v && *v < n ? v : std::nullopt; }

Rec held_step(const MachineState& s) {
  return s.step.kind == Tok::kSched ? s.step : Rec{Tok::kSched, 0, lift::kNullBlock, 0};
}

// A register or predicate of the step's lane as the interpreter has it: nullopt when it is
// not written in this wave (the model still holds an older valid word: nothing to compare).
std::optional<uint32_t> lane_value(const LaneState& ls, int code) {
  if (code <= kRegs) return (ls.r_written >> (code - 1) & 1) ? std::optional<uint32_t>(ls.r[code - 1]) : std::nullopt;
  int pi = code - 1 - kRegs;
  return (ls.p_written >> pi & 1) ? std::optional<uint32_t>(ls.p[pi]) : std::nullopt;
}

std::string status_text(const LaneStatus& v) {
  return fmt::format("PC {}{}, barrier flag {}", v.pc, v.finished ? " finished" : "", v.flag);
}

// Every lane's PC, finished flag and barrier flag (after `run`). A finished lane's PC is
// no part of the machine (nothing reads it until the next wave sets it to 0): the
// interpreter leaves it one past the `exit`, which after the last block is kBlocks, and
// the model's 8-bit PC holds that as 0.
Found compare_lanes(const Model& m, const State& s, const MachineState& st) {
  for (int w = 0; w < kWarps; ++w)
    for (int lane = 0; lane < kLanes; ++lane) {
      const LaneState& ls = st.lane[w][lane];
      LaneStatus want{.pc = ls.pc, .finished = ls.exited, .flag = ls.bar_flag};
      std::string field = fmt::format("warp {} lane {} status", w, lane);
      std::optional<LaneStatus> got;
      try {
        got = read_lane(m, s, w, lane);
      } catch (const Error& e) {
        return Divergence{.layer = lift::kLaneLayer, .field = field, .want = status_text(want), .got = e.what()};
      }
      if (got && got->finished && want.finished) got->pc = want.pc;
      if (!got || !(*got == want))
        return Divergence{.layer = lift::kLaneLayer, .field = field, .want = status_text(want),
                          .got = got ? status_text(*got) : "never written"};
    }
  return std::nullopt;
}

}  // namespace

Found compare_state(const Model& m, const State& s, const MachineState& st) {
  Rec want = held_step(st), got;
  try {
    got = read_step(m, s);
  } catch (const Error& e) {
    return Divergence{.layer = lift::kControlLayer, .field = "step", .want = record_text(want), .got = e.what()};
  }
  if (!(got == want))
    return Divergence{.layer = lift::kControlLayer, .field = "step", .want = record_text(want), .got = record_text(got)};
  for (int w = 0; w < kWarps; ++w)
    for (int lane = 0; lane < kLanes; ++lane)
      for (int code = 1; code <= kRegs + kPreds; ++code) {
        std::optional<uint32_t> v = lane_value(st.lane[w][lane], code);
        if (!v) continue;
        std::string field = fmt::format("warp {} lane {} {}{}", w, lane, code <= kRegs ? "r" : "p",
                                        code <= kRegs ? code - 1 : code - 1 - kRegs);
        std::optional<uint32_t> r;
        try {
          r = read_register(m, s, w, lane, code);
        } catch (const Error& e) {
          return Divergence{.layer = lift::kRegisterLayer, .field = field, .want = fmt::to_string(*v), .got = e.what()};
        }
        if (Found d = differ(lift::kRegisterLayer, field, *v, r ? std::optional<int64_t>(*r) : std::nullopt)) return d;
      }
  return st.phase == Phase::kRunning || st.phase == Phase::kEnded ? compare_lanes(m, s, st) : std::nullopt;
}

namespace {

// The residual after L1: every ROM field of the step's block.
Found compare_fetch(const lift::Layout& l, const MachineState& st, std::span<const float> x) {
  const RomSlot& slot = st.rom[held_step(st).y];
  const int L = lift::kRomLayer;
  if (Found d = differ(L, "fetch op", slot.op ? static_cast<int>(*slot.op) + 1 : 0, hot(x, l["f_op"]))) return d;
  const std::pair<const char*, int> codes[] = {
      {"f_guard", slot.guard}, {"f_d", slot.d}, {"f_a", slot.a}, {"f_b", slot.b}, {"f_c", slot.c}};
  for (auto [field, want] : codes)
    if (Found d = differ(L, fmt::format("fetch {}", field + 2), want, hot(x, l[field]))) return d;
  return differ(L, "fetch imm", slot.imm, word(x, l["f_imm"]));
}

// L2's lane control for one lane (skipped when its guard predicate is not written).
Found compare_control(const lift::Layout& l, const MachineState& st, std::span<const float> x, int lane) {
  Rec step = held_step(st);
  const RomSlot& slot = st.rom[step.y];
  const std::string s = std::to_string(lane);
  const int L = lift::kRegisterLayer;
  bool in = step.z >> lane & 1;
  std::optional<uint32_t> p = slot.guard == 0 ? 1u : lane_value(st.lane[step.x][lane], kRegs + 1 + (slot.guard - 1) % 4);
  if (!p) return std::nullopt;
  bool eff = in && ((*p != 0) != (slot.guard >= 5));
  if (Found d = differ(L, "lane " + s + " effective (0 yes, 1 no)", eff ? 0 : 1, hot(x, l["eff" + s]))) return d;
  if (st.window[3].kind != Tok::kSched) {  // only a consumed sched moves lanes
    if (Found d = differ(L, "lane " + s + " next PC / 16 (none)", lift::kBlockHi, hot(x, l["npc_hi" + s]))) return d;
    if (Found d = differ(L, "lane " + s + " next PC % 16 (none)", lift::kBlockLo, hot(x, l["npc_lo" + s]))) return d;
    return differ(L, "lane " + s + " exit/arrive (none)", 3, hot(x, l["act" + s]));
  }
  int target = eff && slot.op == Op::kBra ? static_cast<int>(slot.imm) : (step.y + 1) % kBlocks;
  int act = !eff ? 0 : slot.op == Op::kExit ? 1 : slot.op == Op::kBar ? 2 : 0;
  if (Found d = differ(L, "lane " + s + " next PC / 16", in ? target / lift::kBlockLo : lift::kBlockHi, hot(x, l["npc_hi" + s])))
    return d;
  if (Found d = differ(L, "lane " + s + " next PC % 16", in ? target % lift::kBlockLo : lift::kBlockLo, hot(x, l["npc_lo" + s])))
    return d;
  return differ(L, "lane " + s + " exit/arrive", act, hot(x, l["act" + s]));
}

// The residual after L2: the operands and guard of every lane (the null slot's 0 unless
// the lane is in the step's mask and the field is a register or predicate), then the lane
// control.
Found compare_operands(const lift::Layout& l, const MachineState& st, std::span<const float> x) {
  Rec step = held_step(st);
  const RomSlot& slot = st.rom[step.y];
  const int L = lift::kRegisterLayer;
  const std::pair<const char*, int> ports[3] = {{"ra", slot.a}, {"rb", slot.b}, {"rc", slot.c}};
  for (int lane = 0; lane < kLanes; ++lane) {
    bool in = step.z >> lane & 1;
    auto want = [&](int code) -> std::optional<uint32_t> {
      if (!in || code < 1 || code > kRegs + kPreds) return 0u;
      return lane_value(st.lane[step.x][lane], code);
    };
    for (auto [port, code] : ports) {
      std::optional<int64_t> got = word(x, l[port + std::to_string(lane)]);
      std::optional<uint32_t> w = want(code);
      std::string field = fmt::format("lane {} operand {}", lane, port + 1);
      if (!got || (w && *w != *got)) return differ(L, field, w ? std::optional<int64_t>(*w) : std::nullopt, got);
    }
    std::optional<int64_t> g = hot(x, l["rg" + std::to_string(lane)]);
    std::optional<uint32_t> w = want(slot.guard >= 1 ? kRegs + 1 + (slot.guard - 1) % 4 : 0);
    if (!g || (w && *w != *g)) return differ(L, fmt::format("lane {} guard", lane), w ? std::optional<int64_t>(*w) : std::nullopt, g);
    if (Found d = compare_control(l, st, x, lane)) return d;
  }
  return std::nullopt;
}

// The residuals after the scheduler's first and last layers: every lane's runnable state,
// then the record the scheduler emits next (while running).
Found compare_scheduler(const lift::Layout& l, const MachineState& st, std::span<const float> lanes,
                        std::span<const float> x) {
  const char* state_text[3] = {"runnable", "waiting", "finished"};
  auto text = [&](std::optional<int64_t> v) { return v ? std::string(state_text[*v]) : std::string("not a code"); };
  for (int w = 0; w < kWarps; ++w)
    for (int lane = 0; lane < kLanes; ++lane) {
      int want = st.lane[w][lane].exited ? 2 : lane_waiting(st, w, lane) ? 1 : 0;
      std::optional<int64_t> got = hot(lanes, l["rs" + std::to_string(w) + std::to_string(lane)]);
      if (got != want)
        return Divergence{.layer = lift::kSchedLayer, .field = fmt::format("warp {} lane {} runnable", w, lane),
                          .want = state_text[want], .got = text(got)};
    }
  const int L = lift::kSchedLast;
  Rec want = schedule(st);
  auto got = [&]() -> std::optional<Rec> {
    std::optional<int64_t> fam = hot(x, l["sfam"]);
    if (!fam) return std::nullopt;
    if (*fam == lift::kSchedBar) {
      std::optional<int64_t> c = below(hot(x, l["bar"]), kMaxCtas), p = below(hot(x, l["barq"]), 2);
      if (!c || !p) return std::nullopt;
      return Rec{Tok::kBar, static_cast<int>(*c), static_cast<int>(*p)};
    }
    if (*fam == lift::kSchedSched) {
      std::optional<int64_t> w = below(hot(x, l["nw"]), kWarps), hi = hot(x, l["mhi"]), lo = hot(x, l["mlo"]);
      if (!w || !hi || !lo) return std::nullopt;
      int mask = 0;
      for (int lane = 0; lane < kLanes; ++lane) {
        std::optional<int64_t> in = hot(x, l["smk" + std::to_string(lane)]);
        if (!in) return std::nullopt;
        if (*in == 0) mask |= 1 << lane;
      }
      return Rec{Tok::kSched, static_cast<int>(*w), static_cast<int>(lift::kBlockLo * *hi + *lo), mask};
    }
    if (*fam == lift::kSchedWave) {
      std::optional<int64_t> hi = hot(x, l["nk_hi"]), lo = hot(x, l["nk_lo"]);
      if (!hi || !lo) return std::nullopt;
      return Rec{Tok::kWave, static_cast<int>(16 * *hi + *lo)};
    }
    return Rec{Tok::kEnd};
  }();
  if (got && *got == want) return std::nullopt;
  return Divergence{.layer = L, .field = "the scheduler's next record", .want = record_text(want),
                    .got = got ? record_text(*got) : "not a code"};
}

// The residual after the operand layer: the lane of the record the interpreter emits next
// (a value's or a store's, a pred's first lane; none for other records) and that lane's
// operands a, b, c.
// %ctaid is compared on grids at most 16 wide or one row tall (lift::generation_gap's).
Found compare_next_lane(const lift::Layout& l, const MachineState& st, std::span<const float> x) {
  const int L = lift::kOperandLayer;
  Rec next = next_record(st);
  int lane = kLanes;
  auto tag_lane = [](int tag) { return std::countr_zero(static_cast<unsigned>(tag)); };
  switch (next.kind) {
    case Tok::kSmall: case Tok::kHead: lane = tag_lane(next.x); break;
    case Tok::kMid1: lane = tag_lane(st.window[3].x); break;
    case Tok::kMid2: lane = tag_lane(st.window[2].x); break;
    case Tok::kTail: lane = tag_lane(st.window[1].x); break;
    case Tok::kSt: lane = next.x; break;
    case Tok::kPred: lane = tag_lane(next.x); break;  // the first effective lane
    default: break;
  }
  auto lane_text = [](std::optional<int64_t> v) {
    return !v ? std::string("not a code") : *v == kLanes ? std::string("none") : fmt::format("lane {}", *v);
  };
  std::optional<int64_t> got = hot(x, l["nl"]);
  if (got != lane)
    return Divergence{.layer = L, .field = fmt::format("the lane of the next record ({})", record_text(next)),
                      .want = lane_text(lane), .got = lane_text(got)};
  const RomSlot& slot = st.rom[held_step(st).y];
  const std::pair<const char*, int> ports[3] = {{"oa", slot.a}, {"ob", slot.b}, {"oc", slot.c}};
  for (auto [port, code] : ports) {
    std::optional<uint32_t> want = 0u;
    if (lane < kLanes) {
      if (code == kImmCode) want = slot.imm;
      else if (code >= 1 && code <= kRegs + kPreds) want = lane_value(st.lane[held_step(st).x][lane], code);
      else if (code >= kSpecialCode && code < kImmCode) {
        Special sp = static_cast<Special>(code - kSpecialCode);
        if ((sp == Special::kCtaidX || sp == Special::kCtaidY) && st.launch.grid_y > 1 && st.launch.grid_x > 16)
          continue;
        want = special_value(st, held_step(st).x, lane, sp);
      }
    }
    std::optional<int64_t> w = word(x, l[port]);
    if (!w || (want && *want != *w))
      return differ(L, fmt::format("operand {} of the next record's lane", port + 1),
                    want ? std::optional<int64_t>(*want) : std::nullopt, w);
  }
  return std::nullopt;
}

// The multiplier's layers for mul.lo and mad.lo: each code L6-L8 write, from lane nl's
// operands as the operand layer has them (compare_next_lane checked those).
Found compare_multiplier(const lift::Layout& l, const MachineState& st, std::span<const float> operands,
                         std::span<const std::vector<float>> after) {
  const RomSlot& slot = st.rom[held_step(st).y];
  if (slot.op != Op::kMulLo && slot.op != Op::kMadLo) return std::nullopt;
  std::optional<int64_t> lane = hot(operands, l["nl"]), a = word(operands, l["oa"]), b = word(operands, l["ob"]),
                         c = word(operands, l["oc"]);
  if (!lane || *lane == kLanes || !a || !b || !c) return std::nullopt;
  const bool mad = slot.op == Op::kMadLo;
  for (const lift::MulCodes& codes : lift::multiplier_codes(static_cast<uint32_t>(*a), static_cast<uint32_t>(*b),
                                                           static_cast<uint32_t>(*c), mad)) {
    std::span<const float> x = after[static_cast<size_t>(codes.layer - lift::kMulLayer)];
    for (size_t g = 0; g < codes.values.size(); ++g) {
      std::optional<int64_t> got = group(x, l[codes.field], static_cast<int>(g));
      if (got != codes.values[g])
        return differ(codes.layer, fmt::format("{} group {} ({} * {}{})", codes.field, g, *a, *b, mad ? fmt::format(" + {}", *c) : ""),
                      codes.values[g], got);
    }
  }
  return std::nullopt;
}

// After `st lane @mA`: word A as the store wrote it.
Found compare_store(const Model& m, const State& s, const MachineState& st, const Rec& r) {
  const std::string field = fmt::format("memory word {} (st lane {})", r.y, r.x);
  std::vector<std::optional<uint32_t>> mem;
  try {
    mem = read_memory(m, s);
  } catch (const Error& e) {
    return Divergence{.layer = lift::kMemoryLayer, .field = field, .want = fmt::to_string(st.mem[r.y]), .got = e.what()};
  }
  return differ(lift::kMemoryLayer, field, st.mem[r.y], mem[r.y] ? std::optional<int64_t>(*mem[r.y]) : std::nullopt);
}

// After a token that completes an atomic's old word: every written word, the update
// included (the model writes it at this token, stage_atomic.cpp).
Found compare_atomic(const Model& m, const State& s, const MachineState& st, const Rec& r) {
  std::vector<std::optional<uint32_t>> mem;
  try {
    mem = read_memory(m, s);
  } catch (const Error& e) {
    return Divergence{.layer = lift::kMemoryLayer, .field = "memory after an atomic", .want = "valid codes", .got = e.what()};
  }
  for (int a = 0; a < kMemWords; ++a) {
    std::optional<int64_t> want = st.mem_written[a] ? std::optional<int64_t>(st.mem[a]) : std::nullopt;
    if (Found d = differ(lift::kMemoryLayer, fmt::format("memory word {} (atomic, tag {})", a, r.kind == Tok::kSmall ? r.x : st.window[0].x),
                         want, mem[a] ? std::optional<int64_t>(*mem[a]) : std::nullopt))
      return d;
  }
  return std::nullopt;
}

// After the prompt: memory and ROM as the image wrote them.
Found compare_image(const Model& m, const State& s, const MachineState& st) {
  std::vector<std::optional<uint32_t>> mem;
  std::array<RomSlot, kBlocks> rom;
  try {
    mem = read_memory(m, s);
    rom = read_rom(m, s);
  } catch (const Error& e) {  // a row that is not a valid code; the message names it
    return Divergence{.layer = lift::kMemoryLayer, .field = "memory and ROM", .want = "valid codes", .got = e.what()};
  }
  for (int a = 0; a < kMemWords; ++a) {
    std::optional<int64_t> want = st.mem_written[a] ? std::optional<int64_t>(st.mem[a]) : std::nullopt;
    if (Found d = differ(lift::kMemoryLayer, fmt::format("memory word {}", a), want, mem[a] ? std::optional<int64_t>(*mem[a]) : std::nullopt))
      return d;
  }
  for (int b = 0; b < kBlocks; ++b)
    if (!(rom[b] == st.rom[b])) {
      std::optional<Instr> want = rom_instr(st.rom[b]), got = rom_instr(rom[b]);
      return Divergence{.layer = lift::kRomLayer, .field = fmt::format("ROM block {}", b),
                        .want = want ? instr_text(*want) : "empty", .got = got ? instr_text(*got) : "empty"};
    }
  return std::nullopt;
}

// The model's greedy choice after a running token: the interpreter's next record.
Found compare_emitted(const MachineState& st, std::span<const float> logits) {
  const int32_t best = greedy(logits);
  Rec want = next_record(st), got = decode_token(best);
  if (got == want) return std::nullopt;
  return Divergence{.layer = lift::kEmitLayer, .field = "the emitted record (greedy)", .want = record_text(want),
                    .got = fmt::format("{} (logit {}, the interpreter's {})", record_text(got), logits[best], logits[token_id(want)])};
}

}  // namespace

std::string Divergence::text() const {
  return fmt::format("token {} ({}): layer {} {}: the interpreter has {}, the model {}", token, record, layer, field, want, got);
}

CheckReport check_launch(const Model& m, engine::RuntimeOptions options, std::span<const Rec> prompt,
                         std::span<const Rec> records) {
  const lift::Layout l = lift::machine_layout();
  options.gpu_sequence = true;  // a launch's own sequence: a merged checkpoint's base is skipped
  std::vector<float> after1, after2, lanes, operands, sched;
  std::vector<std::vector<float>> mul(3);
  engine::ProbeFn user = options.probe;
  // In a merged checkpoint the GPU's residual dims and tokens sit after the base's.
  const int dims_at = m.config.qgpu ? m.config.qgpu->hidden_offset : 0;
  const int tokens_at = m.config.qgpu ? m.config.qgpu->token_offset : 0;
  options.probe = [&](const char* name, int il, int64_t pos, std::span<float> v) {
    if (user) user(name, il, pos, v);
    if (std::string_view(name) != "layer_out") return;
    v = v.subspan(static_cast<size_t>(dims_at));
    if (il == lift::kRomLayer) after1.assign(v.begin(), v.end());
    if (il == lift::kRegisterLayer) after2.assign(v.begin(), v.end());
    if (il == lift::kSchedLayer) lanes.assign(v.begin(), v.end());
    if (il == lift::kOperandLayer) operands.assign(v.begin(), v.end());
    if (il == lift::kSchedLast) sched.assign(v.begin(), v.end());
    if (il >= lift::kMulLayer && il < lift::kMulLayer + 3) mul[static_cast<size_t>(il - lift::kMulLayer)].assign(v.begin(), v.end());
  };
  engine::Runtime rt(m, options);
  State s = engine::make_state(m.config);
  MachineState st;
  CheckReport report{.prompt_tokens = static_cast<int64_t>(prompt.size())};
  std::vector<float> logits;
  for (size_t i = 0; i < prompt.size() + records.size(); ++i) {
    const Rec& r = i < prompt.size() ? prompt[i] : records[i - prompt.size()];
    apply(st, r);
    int32_t id = token_id(r) + tokens_at;
    rt.forward(s, std::span(&id, 1), logits);
    Found d = compare_state(m, s, st);
    if (!d) d = compare_fetch(l, st, after1);
    if (!d) d = compare_operands(l, st, after2);
    if (!d && st.phase == Phase::kRunning) d = compare_scheduler(l, st, lanes, sched);
    if (!d && st.phase == Phase::kRunning) d = compare_next_lane(l, st, operands);
    if (!d && st.phase == Phase::kRunning) d = compare_multiplier(l, st, operands, mul);
    if (!d && i + 1 == prompt.size()) d = compare_image(m, s, st);
    if (!d && r.kind == Tok::kSt) d = compare_store(m, s, st, r);
    if (!d && st.phase == Phase::kRunning && (r.kind == Tok::kSmall || r.kind == Tok::kTail)) {
      const std::optional<Op> op = st.rom[held_step(st).y].op;
      if (op && op_info(*op).effect == Effect::kAtomic) d = compare_atomic(m, s, st, r);
    }
    if (i + 1 == prompt.size()) {
      std::vector<Instr> code;
      for (const RomSlot& slot : st.rom)
        if (std::optional<Instr> in = rom_instr(slot)) code.push_back(*in);
      report.gap = lift::generation_gap(code, st.launch);
    }
    if (!d && st.phase == Phase::kRunning && i + 1 >= prompt.size() && !report.gap) {
      d = compare_emitted(st, std::span<const float>(logits).subspan(static_cast<size_t>(tokens_at)));
      ++report.emitted;
    }
    report.tokens = static_cast<int64_t>(i) + 1;
    if (d) {
      d->token = static_cast<int64_t>(i);
      d->record = record_text(r);
      report.first = d;
      break;
    }
  }
  return report;
}

}  // namespace qgpu::host
