// The live machine panel: a snapshot of the machine as the model holds it, read out of the
// layers' recurrent state (host/readout.h) at one token of a launch, and its rendering as
// text lines. The host never asks the interpreter: every field here was decoded from the
// state. Rendering is pure (snapshot -> lines), so it is unit-tested; the ncurses front end
// and `--plain` print the same lines.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/model.h"
#include "engine/state.h"
#include "gpu/interp.h"
#include "gpu/program.h"
#include "host/readout.h"

namespace qgpu::chat {

// What the session hands the UI at each token of a launch (see Events::on_launch_token).
struct LaunchFeed {
  const engine::Model& model;
  const engine::State& state;  // after `record` was fed (after the prompt when record is null)
  const Rec* record;           // the record just generated; nullptr right after the prompt
  int64_t records;             // generated so far
  double seconds;              // since the prompt was read; at `end`, LaunchReport::seconds
  const Program& program;
  const Launch& launch;
};

struct PanelSnapshot {
  std::string kernel;
  Launch launch{1, 1, 4, 1};
  int program_blocks = 0;       // blocks of the program (the ROM rows worth showing)
  int64_t records = 0;          // generated so far
  double tokens_per_second = 0;
  bool finished = false;        // the model emitted `end`
  Rec step{Tok::kEnd};          // the scheduler's current step: warp, block, active mask
  std::vector<Rec> recent;      // the last generated records, newest last (at most 8)
  std::array<RomSlot, kBlocks> rom{};
  std::array<std::array<std::optional<host::LaneStatus>, kLanes>, kWarps> lanes{};
  std::array<std::array<std::array<std::optional<uint32_t>, kRegs>, kLanes>, kWarps> regs{};
  std::array<std::array<std::array<std::optional<uint32_t>, kPreds>, kLanes>, kWarps> preds{};
  std::vector<std::optional<uint32_t>> mem = std::vector<std::optional<uint32_t>>(kMemWords);
  std::array<int64_t, kMemWords> mem_changed_at{};  // `records` when the word last changed; -1 never
  // Shown as binary32, not as signed words: a lane's register whose last write was by an
  // instruction the compiler typed .f32 (Instr::float_d; the allocator reuses registers for
  // ints and floats, so it is followed per write: a value record's lanes after the `sched`
  // record of its step), and a word of a float array (Array::is_float). Display only, from
  // the program and the records: the values themselves are read out of the state.
  std::array<std::array<std::array<bool, kRegs>, kLanes>, kWarps> float_regs{};
  std::vector<bool> float_mem = std::vector<bool>(kMemWords);
  Rec typed_step{Tok::kEnd};  // the last `sched` record: whose value records come next
};

// Reads the machine out of feed.state. `previous` (the last snapshot of the same launch, or
// null) carries the ROM (read once after the prompt), the recent records and the memory
// change marks forward.
PanelSnapshot read_snapshot(const LaunchFeed& feed, const PanelSnapshot* previous);
// Follows feed.record into s without reading the state (microseconds): the record count, the
// recent records and which registers hold floats. Every record of a launch must reach the
// snapshot through this or read_snapshot, in order, for the register types to be right.
void note_record(PanelSnapshot& s, const LaunchFeed& feed);

// The panel as lines at most `width` columns wide: header (kernel, records, tokens/s),
// scheduler (warps, the block each runs, active masks), ROM around the current block
// (marked), pipeline (its phases and what each works on at this token), register file
// (lanes x r0..r23 of the running warp, or all warps when there is room), memory (126 words,
// recent writes marked).
std::vector<std::string> render_panel(const PanelSnapshot& s, int width);

}  // namespace qgpu::chat
