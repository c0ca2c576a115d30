// The reference interpreter. Two halves mirror one forward pass of the model:
//   apply()       what consuming a record writes (registers, memory, PCs, ROM, ...);
//   next_record() what the machine emits next, computed only from the state, the
//                 current step (the latest sched) and the last four records (the conv
//                 window), exactly the information the layers have.
// SIMT: every lane has its own PC; the scheduler runs the lanes of a warp whose PC is
// the smallest (min-PC), so diverged lanes reconverge where their paths meet, without a
// stack. Warps are picked round-robin. Barriers use a parity bit per CUDA block.
#include "gpu/interp.h"

#include <fmt/format.h>

#include <atomic>
#include <bit>

#include "base/error.h"
#include "gpu/alu.h"

namespace qgpu {

namespace {
std::atomic<int64_t> g_calls{0};  // interpreter_calls()
}  // namespace

int64_t interpreter_calls() { return g_calls.load(); }

namespace {

bool has(int mask, int lane) { return mask >> lane & 1; }

// ---- Reading the state.

[[noreturn]] void trap(const MachineState& s, int w, int j, const std::string& what) {
  int pc = s.step.y;
  std::optional<Instr> in = rom_instr(s.rom[pc]);
  fail("trap: warp {} lane {} at block {} ({}): {}", w, j, pc, in ? instr_text(*in) : "empty",
       what);
}

// The instruction of the current step. A slot the image filled badly (operands that do
// not fit the op) is a trap here, before any lane reads or writes through it.
Instr step_instr(const MachineState& s) {
  std::optional<Instr> in = rom_instr(s.rom[s.step.y]);
  if (!in) fail("trap: warp {} reached block {}, which holds no instruction", s.step.x, s.step.y);
  std::vector<std::string> problems = check_instr(*in, kBlocks);
  if (!problems.empty())
    fail("trap: warp {} reached block {}, which holds a malformed '{}': {}", s.step.x, s.step.y,
         op_info(in->op).mnemonic, problems.front());
  return *in;
}

uint32_t read_operand(const MachineState& s, int w, int j, Operand o, uint32_t imm) {
  const LaneState& l = s.lane[w][j];
  switch (o.kind) {
    case OperandKind::kNone: return 0;
    case OperandKind::kImm: return imm;
    case OperandKind::kSpecial: return special_value(s, w, j, static_cast<Special>(o.index));
    case OperandKind::kReg:
      if (!(l.r_written >> o.index & 1)) trap(s, w, j, fmt::format("reads r{} before any write", o.index));
      return l.r[o.index];
    case OperandKind::kPred:
      if (!(l.p_written >> o.index & 1)) trap(s, w, j, fmt::format("reads p{} before any write", o.index));
      return l.p[o.index];
  }
  CHECK(false);
}

bool guard_passes(const MachineState& s, int w, int j, Guard g) {
  if (g.pred < 0) return true;
  return (read_operand(s, w, j, pred(g.pred), 0) != 0) != g.negate;
}

// Lanes of the current step whose guard passes.
int effective_mask(const MachineState& s, const Instr& in) {
  int e = 0;
  for (int j = 0; j < kLanes; ++j)
    if (has(s.step.z, j) && guard_passes(s, s.step.x, j, in.guard)) e |= 1 << j;
  return e;
}

// The word a memory op of lane j touches. Addresses are bytes, as in PTX (base + offset,
// wrapping at 32 bits); memory is words, so an address must be a multiple of 4.
int address(const MachineState& s, int w, int j, const Instr& in) {
  uint32_t byte = read_operand(s, w, j, in.a, 0) + static_cast<uint32_t>(in.imm);
  if (byte >= 4u * kMemWords)
    trap(s, w, j, fmt::format("byte address {} is outside global memory (0..{}, {} words)",
                              static_cast<int32_t>(byte), 4 * kMemWords - 1, kMemWords));
  if (byte % 4 != 0) trap(s, w, j, fmt::format("byte address {} is not a multiple of 4", byte));
  return static_cast<int>(byte / 4);
}

uint32_t load(const MachineState& s, int w, int j, int addr) {
  if (!s.mem_written[addr]) trap(s, w, j, fmt::format("reads memory word {} before any write", addr));
  return s.mem[addr];
}

// The source operands lane j reads in the current step (a, b, c; for memory forms a is
// the base, without the offset). Every lane in the step's mask reads them, whatever its
// guard: the layers read all four lanes at once, so an unwritten one is a trap for all.
std::array<uint32_t, 3> lane_operands(const MachineState& s, const Instr& in, int j) {
  int w = s.step.x;
  bool memory = op_info(in.op).form == Form::kLoad || op_info(in.op).form == Form::kStore ||
                op_info(in.op).effect == Effect::kAtomic;
  uint32_t imm = static_cast<uint32_t>(in.imm);
  return {read_operand(s, w, j, in.a, memory ? 0 : imm), read_operand(s, w, j, in.b, imm),
          read_operand(s, w, j, in.c, imm)};
}

// The value lane j produces in the current step (kValue ops and the old word of atomics).
uint32_t lane_result(const MachineState& s, const Instr& in, int j) {
  int w = s.step.x;
  if (in.op == Op::kLd || op_info(in.op).effect == Effect::kAtomic)
    return load(s, w, j, address(s, w, j, in));
  auto [a, b, c] = lane_operands(s, in, j);
  return alu(in.op, a, b, c);
}

// True when every lane of `lanes` reads the same operand values: then they all get the
// same result and one value record (tagged with all of them) serves.
bool uniform_operands(const MachineState& s, const Instr& in, int lanes) {
  int first = -1;
  for (int j = 0; j < kLanes; ++j) {
    if (!has(lanes, j)) continue;
    if (first < 0) first = j;
    else if (lane_operands(s, in, j) != lane_operands(s, in, first)) return false;
  }
  return true;
}

bool lane_pred_result(const MachineState& s, const Instr& in, int j) {
  auto [a, b, c] = lane_operands(s, in, j);
  if (op_info(in.op).form == Form::kPAB) return compare(in.op, a, b);
  return pred_logic(in.op, a != 0, b != 0);
}

int first_lane(int mask, int after) {
  for (int j = after + 1; j < kLanes; ++j)
    if (has(mask, j)) return j;
  return -1;
}

bool runnable(const MachineState& s, int w, int j) {
  return !s.lane[w][j].exited && !lane_waiting(s, w, j);
}

// ---- Writing the state.

void write_reg(MachineState& s, int w, int j, Operand d, uint32_t v) {
  CHECK(d.kind == OperandKind::kReg);
  s.lane[w][j].r[d.index] = v;
  s.lane[w][j].r_written |= 1u << d.index;
}

void start_wave(MachineState& s, int wave) {
  const Launch& l = s.launch;
  int blocks = l.grid_x * l.grid_y;
  for (int w = 0; w < kWarps; ++w) {
    int cta = cta_of_warp(l, w);
    for (int j = 0; j < kLanes; ++j) {
      LaneState& lane = s.lane[w][j];
      int tid = (w % warps_per_cta(l)) * kLanes + j;
      bool live = cta >= 0 && wave * ctas_per_wave(l) + cta < blocks && tid < block_threads(l);
      lane.pc = 0;
      lane.exited = !live;
      lane.bar_flag = cta >= 0 ? s.bar_parity[cta] : 0;
      lane.r_written = 0;  // registers keep their bits; reading them is a trap
      lane.p_written = 0;
    }
  }
  s.wave = wave;
  s.last_warp = kWarps - 1;
}

// The control part of a step, done when its sched record is consumed: every lane in the
// mask leaves the block; effective lanes branch, finish or arrive at the barrier.
void apply_sched(MachineState& s, const Rec& r) {
  s.step = r;
  s.last_warp = r.x;
  Instr in = step_instr(s);
  Effect effect = op_info(in.op).effect;
  for (int j = 0; j < kLanes; ++j) {
    if (!has(r.z, j)) continue;
    LaneState& lane = s.lane[r.x][j];
    bool eff = guard_passes(s, r.x, j, in.guard);
    lane.pc = r.y + 1;
    if (eff && effect == Effect::kBranch) lane.pc = in.imm;
    if (eff && effect == Effect::kExit) lane.exited = true;
    if (eff && effect == Effect::kBarrier) {
      int cta = cta_of_warp(s.launch, r.x);
      lane.bar_flag = 1 - s.bar_parity[cta];
    }
  }
}

// A complete value arrived while running: register writes, or an atomic's update.
void apply_run_value(MachineState& s, int tag, uint32_t v) {
  if (tag == kTagData) fail("record {}: an image value ('=' tag) after 'run'", s.consumed);
  Instr in = step_instr(s);
  int w = s.step.x;
  if (op_info(in.op).effect == Effect::kAtomic) {
    if (!std::has_single_bit(static_cast<unsigned>(tag)))
      fail("record {}: an atomic's old value must name a single lane", s.consumed);
    int j = std::countr_zero(static_cast<unsigned>(tag));
    int addr = address(s, w, j, in);
    auto [a, b, c] = lane_operands(s, in, j);
    s.mem[addr] = atomic_update(in.op, v, b, c);
    s.mem_written[addr] = true;
    write_reg(s, w, j, in.d, v);
    return;
  }
  if (op_info(in.op).effect != Effect::kValue)
    fail("record {}: a value record in a step of '{}'", s.consumed, op_info(in.op).mnemonic);
  for (int j = 0; j < kLanes; ++j)
    if (has(tag, j)) write_reg(s, w, j, in.d, v);
}

void apply_image_value(MachineState& s, int tag, uint32_t v) {
  if (tag != kTagData) fail("record {}: image values need the '=' tag", s.consumed);
  if (s.image_at < 0) fail("record {}: an image value before any '@b' or '@m' address", s.consumed);
  if (s.image_target == Tok::kRomAt) {
    s.rom[s.image_at].imm = v;
    return;
  }
  s.mem[s.image_at] = v;
  s.mem_written[s.image_at] = true;
}

// Value tokens: a kSmall, or kHead kMid1 kMid2 kTail assembled from the conv window.
void apply_value_token(MachineState& s, const Rec& r) {
  const std::array<Rec, 4>& win = s.window;  // already shifted: win[3] == r
  Tok want = r.kind == Tok::kMid1 ? Tok::kHead : r.kind == Tok::kMid2 ? Tok::kMid1
           : r.kind == Tok::kTail ? Tok::kMid2 : Tok::kCount;
  if (want != Tok::kCount && win[2].kind != want)
    fail("record {}: '{}' must follow '{}'", s.consumed, record_text(r), family(want).name);
  if (r.kind == Tok::kHead || r.kind == Tok::kMid1 || r.kind == Tok::kMid2) return;
  int tag = r.kind == Tok::kSmall ? r.x : win[0].x;
  uint32_t v = r.kind == Tok::kSmall
                   ? static_cast<uint32_t>(r.y)
                   : static_cast<uint32_t>(win[0].y) | static_cast<uint32_t>(win[1].x) << 8 |
                         static_cast<uint32_t>(win[2].x) << 16 | static_cast<uint32_t>(r.x) << 24;
  if (s.phase == Phase::kImage) return apply_image_value(s, tag, v);
  if (s.phase == Phase::kRunning) return apply_run_value(s, tag, v);
  fail("record {}: a value outside a launch", s.consumed);
}

void apply_image_field(MachineState& s, const Rec& r) {
  if (s.image_target != Tok::kRomAt || s.image_at < 0)
    fail("record {}: '{}' must follow an '@b' block address", s.consumed, record_text(r));
  RomSlot& slot = s.rom[s.image_at];
  switch (r.kind) {
    case Tok::kOp: slot.op = static_cast<Op>(r.x); break;
    case Tok::kGuard: slot.guard = r.x; break;
    case Tok::kFieldD: slot.d = r.x; break;
    case Tok::kFieldA: slot.a = r.x; break;
    case Tok::kFieldB: slot.b = r.x; break;
    case Tok::kFieldC: slot.c = r.x; break;
    default: CHECK(false);
  }
}

void apply_header(MachineState& s, const Rec& r) {
  switch (r.kind) {
    case Tok::kGridX: s.launch.grid_x = r.x; break;
    case Tok::kGridY: s.launch.grid_y = r.x; break;
    case Tok::kBlockX: s.launch.block_x = r.x; break;
    case Tok::kBlockY: s.launch.block_y = r.x; break;
    default: CHECK(false);
  }
}

void apply_run(MachineState& s) {
  const Launch& l = s.launch;
  if (l.grid_x == 0 || l.grid_y == 0 || l.block_x == 0 || l.block_y == 0)
    fail("record {}: 'run' before the launch header (gx, gy, bx, by)", s.consumed);
  std::vector<std::string> problems = check_launch(l);
  if (!problems.empty()) fail("record {}: {}", s.consumed, problems.front());
  s.phase = Phase::kRunning;
  start_wave(s, 0);
}

// A pred or st record belongs to a step of that effect; returns the step's instruction.
Instr step_instr_for(const MachineState& s, const Rec& r, Effect effect) {
  Instr in = step_instr(s);
  if (op_info(in.op).effect != effect)
    fail("record {}: '{}' in a step of '{}'", s.consumed, record_text(r), op_info(in.op).mnemonic);
  return in;
}

// After 'h', 'm1' or 'm2' only the value's next byte may come ('begin' starts afresh).
void require_whole_value(const MachineState& s, const Rec& r) {
  const Rec& last = s.window[3];
  Tok next = last.kind == Tok::kHead ? Tok::kMid1 : last.kind == Tok::kMid1 ? Tok::kMid2
           : last.kind == Tok::kMid2 ? Tok::kTail : Tok::kCount;
  bool byte = r.kind == Tok::kMid1 || r.kind == Tok::kMid2 || r.kind == Tok::kTail;
  if (next == Tok::kCount || byte || r.kind == Tok::kBegin) return;
  fail("record {}: '{}' cannot follow '{}': the value needs '{}' next", s.consumed, record_text(r),
       record_text(last), family(next).name);
}

void require_phase(const MachineState& s, const Rec& r, Phase want) {
  if (s.phase == want) return;
  const char* where = r.kind == Tok::kRun          ? "ends a prompt that 'begin' started"
                      : want == Phase::kImage       ? "belongs between 'begin' and 'run'"
                                                    : "belongs after 'run'";
  fail("record {}: '{}' {}", s.consumed, record_text(r), where);
}

Phase phase_of(Tok t) {
  switch (t) {
    case Tok::kGridX: case Tok::kGridY: case Tok::kBlockX: case Tok::kBlockY: case Tok::kRomAt:
    case Tok::kOp: case Tok::kGuard: case Tok::kFieldD: case Tok::kFieldA: case Tok::kFieldB:
    case Tok::kFieldC: case Tok::kMemAt: case Tok::kRun:
      return Phase::kImage;
    case Tok::kEnd: case Tok::kSched: case Tok::kPred: case Tok::kBr: case Tok::kSt:
    case Tok::kBar: case Tok::kWave:
      return Phase::kRunning;
    default: return Phase::kEmpty;  // begin and values: checked where they are applied
  }
}

// ---- Choosing the next record.

// Next token of a value step (register results, loads, atomics' old values). Lanes go
// in ascending order, one value each; when all effective lanes read equal operands (and
// the op is not atomic) a single value tagged with all of them serves.
std::optional<Rec> next_value_token(const MachineState& s, const Instr& in, int eff) {
  const Rec& last = s.window[3];
  if (last.kind == Tok::kHead || last.kind == Tok::kMid1 || last.kind == Tok::kMid2) {
    int back = last.kind == Tok::kHead ? 0 : last.kind == Tok::kMid1 ? 1 : 2;
    int tag = s.window[3 - back].x;
    uint32_t v = lane_result(s, in, first_lane(tag, -1));
    return value_records(tag, v)[back + 1];
  }
  int after = -1;
  if (last.kind == Tok::kSmall || last.kind == Tok::kTail) {
    int tag = last.kind == Tok::kSmall ? last.x : s.window[0].x;
    if (!std::has_single_bit(static_cast<unsigned>(tag))) return std::nullopt;
    after = std::countr_zero(static_cast<unsigned>(tag));
  }
  int j = first_lane(eff, after);
  if (j < 0) return std::nullopt;
  bool atomic = op_info(in.op).effect == Effect::kAtomic;
  bool uniform = after < 0 && !atomic && uniform_operands(s, in, eff);
  return value_records(uniform ? eff : 1 << j, lane_result(s, in, j))[0];
}

std::optional<Rec> next_body_record(const MachineState& s) {
  const Rec& last = s.window[3];
  switch (last.kind) {
    case Tok::kSched: case Tok::kSmall: case Tok::kHead: case Tok::kMid1: case Tok::kMid2:
    case Tok::kTail: case Tok::kSt:
      break;
    default: return std::nullopt;
  }
  Instr in = step_instr(s);
  int eff = effective_mask(s, in);
  int w = s.step.x;
  if (last.kind == Tok::kSched)  // every lane in the mask reads its operands (a trap if unwritten)
    for (int j = 0; j < kLanes; ++j)
      if (has(s.step.z, j)) lane_operands(s, in, j);
  switch (op_info(in.op).effect) {
    case Effect::kValue: case Effect::kAtomic: return next_value_token(s, in, eff);
    case Effect::kPred: {
      if (last.kind != Tok::kSched || eff == 0) return std::nullopt;
      int bits = 0;
      for (int j = 0; j < kLanes; ++j)
        if (has(eff, j) && lane_pred_result(s, in, j)) bits |= 1 << j;
      return Rec{Tok::kPred, eff, bits};
    }
    case Effect::kBranch:
      if (last.kind != Tok::kSched) return std::nullopt;
      return Rec{Tok::kBr, eff};
    case Effect::kStore: {
      int j = first_lane(eff, last.kind == Tok::kSt ? last.x : -1);
      if (j < 0) return std::nullopt;
      return Rec{Tok::kSt, j, address(s, w, j, in)};
    }
    case Effect::kBarrier: case Effect::kExit: return std::nullopt;
  }
  CHECK(false);
}

// True when every unfinished lane of the CUDA block in slot cta waits at the barrier.
bool cta_released(const MachineState& s, int cta) {
  bool any = false;
  for (int w = 0; w < kWarps; ++w) {
    if (cta_of_warp(s.launch, w) != cta) continue;
    for (int j = 0; j < kLanes; ++j) {
      if (s.lane[w][j].exited) continue;
      if (!lane_waiting(s, w, j)) return false;
      any = true;
    }
  }
  return any;
}

}  // namespace

Rec schedule(const MachineState& s) {
  ++g_calls;
  for (int cta = 0; cta < ctas_per_wave(s.launch); ++cta)
    if (cta_released(s, cta)) return {Tok::kBar, cta, 1 - s.bar_parity[cta]};
  for (int k = 1; k <= kWarps; ++k) {
    int w = (s.last_warp + k) % kWarps;
    int pc = kBlocks, mask = 0;
    for (int j = 0; j < kLanes; ++j) {
      if (!runnable(s, w, j)) continue;
      int lpc = s.lane[w][j].pc;
      if (lpc < pc) pc = lpc, mask = 0;
      if (lpc == pc) mask |= 1 << j;
    }
    if (mask != 0) return {Tok::kSched, w, pc, mask};
  }
  if (s.wave + 1 < wave_count(s.launch)) return {Tok::kWave, s.wave + 1};
  return {Tok::kEnd};
}

// ---- Public.

int cta_of_warp(const Launch& l, int warp) {
  int cta = warp / warps_per_cta(l);
  return cta < ctas_per_wave(l) ? cta : -1;
}

bool lane_waiting(const MachineState& s, int warp, int lane) {
  int cta = cta_of_warp(s.launch, warp);
  return cta >= 0 && s.lane[warp][lane].bar_flag != s.bar_parity[cta];
}

uint32_t special_value(const MachineState& s, int warp, int lane, Special sp) {
  const Launch& l = s.launch;
  int tid = (warp % warps_per_cta(l)) * kLanes + lane;
  int cta = warp / warps_per_cta(l) + s.wave * ctas_per_wave(l);
  switch (sp) {
    case Special::kTidX: return tid % l.block_x;
    case Special::kTidY: return tid / l.block_x;
    case Special::kNtidX: return l.block_x;
    case Special::kNtidY: return l.block_y;
    case Special::kCtaidX: return cta % l.grid_x;
    case Special::kCtaidY: return cta / l.grid_x;
    case Special::kNctaidX: return l.grid_x;
    case Special::kNctaidY: return l.grid_y;
    case Special::kLaneid: return lane;
    case Special::kWarpid: return warp;
    case Special::kCtaslot: return warp / warps_per_cta(l);
    case Special::kCount: break;
  }
  CHECK(false);
}

void apply(MachineState& s, const Rec& r) {
  ++g_calls;
  if (!valid_record(r)) fail("record {}: fields out of range for '{}'", s.consumed, family(r.kind).name);
  Phase want = phase_of(r.kind);
  if (want != Phase::kEmpty) require_phase(s, r, want);
  require_whole_value(s, r);
  if (r.kind == Tok::kBegin) s = MachineState{.phase = Phase::kImage};
  for (int i = 0; i < 3; ++i) s.window[i] = s.window[i + 1];
  s.window[3] = r;
  switch (r.kind) {
    case Tok::kBegin: break;
    case Tok::kRun: apply_run(s); break;
    case Tok::kEnd: s.phase = Phase::kEnded; break;
    case Tok::kGridX: case Tok::kGridY: case Tok::kBlockX: case Tok::kBlockY: apply_header(s, r); break;
    case Tok::kRomAt: case Tok::kMemAt: s.image_target = r.kind, s.image_at = r.x; break;
    case Tok::kOp: case Tok::kGuard: case Tok::kFieldD: case Tok::kFieldA: case Tok::kFieldB:
    case Tok::kFieldC: apply_image_field(s, r); break;
    case Tok::kSmall: case Tok::kHead: case Tok::kMid1: case Tok::kMid2: case Tok::kTail:
      apply_value_token(s, r);
      break;
    case Tok::kSched: apply_sched(s, r); break;
    case Tok::kPred: {  // x: the lanes written (the effective mask), y: their results
      Instr in = step_instr_for(s, r, Effect::kPred);
      for (int j = 0; j < kLanes; ++j) {
        if (!has(r.x, j)) continue;
        s.lane[s.step.x][j].p[in.d.index] = has(r.y, j);
        s.lane[s.step.x][j].p_written |= 1 << in.d.index;
      }
      break;
    }
    case Tok::kBr: break;  // branches took effect at their sched record
    case Tok::kSt: {
      Instr in = step_instr_for(s, r, Effect::kStore);
      s.mem[r.y] = read_operand(s, s.step.x, r.x, in.b, in.imm);
      s.mem_written[r.y] = true;
      break;
    }
    case Tok::kBar: s.bar_parity[r.x] = static_cast<uint8_t>(r.y); break;
    case Tok::kWave: start_wave(s, r.x); break;
    case Tok::kCount: CHECK(false);
  }
  ++s.consumed;
}

Rec next_record(const MachineState& s) {
  ++g_calls;
  CHECK(s.phase == Phase::kRunning);
  if (std::optional<Rec> r = next_body_record(s)) return *r;
  return schedule(s);
}

Trace run(const Program& p, const Launch& l, const RunOptions& options) {
  std::vector<std::string> problems = check_program(p);
  for (const std::string& m : check_launch(l)) problems.push_back(m);
  if (!problems.empty()) fail("{}", problems.front());
  Trace t;
  t.prompt = encode_image(p, l);
  MachineState s;
  for (const Rec& r : t.prompt) apply(s, r);
  while (s.phase == Phase::kRunning) {
    if (static_cast<int64_t>(t.records.size()) >= options.max_records)
      fail("the launch did not end within {} records: the kernel may loop forever "
           "(raise the limit if it is just long)", options.max_records);
    Rec r = next_record(s);
    apply(s, r);
    t.records.push_back(r);
    if (options.on_record) options.on_record(r, s);
  }
  t.final = s;
  return t;
}

std::vector<uint32_t> read_array(const MachineState& s, const Array& a) {
  return std::vector<uint32_t>(s.mem.begin() + a.base, s.mem.begin() + a.base + a.size);
}

}  // namespace qgpu
