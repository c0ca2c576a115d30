// The reference interpreter: the spec every other executor is checked against.
//
// It is written as the model runs: consuming a record changes the machine state
// (apply), and the next record is a function of the state after that (next_record).
// A launch is: apply every prompt token, then repeat r = next_record(s); apply(s, r)
// until the end record. The state after each record is what the divergence finder
// decodes from the layers' recurrent state and compares, field by field.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "gpu/isa.h"
#include "gpu/program.h"
#include "gpu/vocab.h"

namespace qgpu {

struct LaneState {
  int pc = 0;
  bool exited = true;
  uint8_t bar_flag = 0;             // waiting at the barrier iff != its CUDA block's parity
  std::array<uint32_t, kRegs> r{};
  std::array<bool, kPreds> p{};
  uint32_t r_written = 0;           // bit i: r_i written during this wave
  static_assert(kRegs <= 32);
  uint8_t p_written = 0;            // bit i: p_i written during this wave

  friend bool operator==(const LaneState&, const LaneState&) = default;
};

// One ROM block as the image wrote it; a field never written reads as 0 (none).
struct RomSlot {
  std::optional<Op> op;
  int guard = 0, d = 0, a = 0, b = 0, c = 0;  // guard and field codes (isa.h)
  uint32_t imm = 0;

  friend bool operator==(const RomSlot&, const RomSlot&) = default;
};

enum class Phase : uint8_t { kEmpty, kImage, kRunning, kEnded };

struct MachineState {
  Phase phase = Phase::kEmpty;
  Launch launch{0, 0, 0, 0};        // written by the launch header
  std::array<RomSlot, kBlocks> rom{};
  std::array<uint32_t, kMemWords> mem{};
  std::array<bool, kMemWords> mem_written{};
  std::array<std::array<LaneState, kLanes>, kWarps> lane{};
  std::array<uint8_t, kMaxCtas> bar_parity{};
  Tok image_target = Tok::kRomAt;   // where image values go: kRomAt or kMemAt
  int image_at = -1;                // ROM block or memory word, -1 before any address
  Rec step{Tok::kEnd};              // the latest sched record
  int last_warp = kWarps - 1;       // for round-robin scheduling
  int wave = 0;
  std::array<Rec, 4> window{};      // the last four consumed records, newest last (the conv)
  int64_t consumed = 0;             // records consumed so far

  friend bool operator==(const MachineState&, const MachineState&) = default;
};

// Consumes one record: the state changes the model makes at that token's position.
// Throws Error for a record that is malformed where it stands (image order, value bytes).
void apply(MachineState& s, const Rec& r);
// The record the machine emits next; s.phase must be kRunning. Throws Error (a trap)
// for a program that reads an unwritten register or memory word, or leaves memory.
Rec next_record(const MachineState& s);
// How many times apply(), next_record() and schedule() have run in this process (run()
// calls them): the test that the model path never calls the interpreter reads it.
int64_t interpreter_calls();
// Between steps: release a barrier, else run the next warp round-robin (its lanes with the
// smallest PC), else start the next wave, else end. next_record() emits it when the step's
// body is done; the model computes it at every token (the divergence finder compares both).
Rec schedule(const MachineState& s);

// The prompt that loads a program, its arrays and the launch: begin ... run.
std::vector<Rec> encode_image(const Program& p, const Launch& l);
// The instruction held by a ROM block; nullopt for an empty block.
std::optional<Instr> rom_instr(const RomSlot& slot);

struct RunOptions {
  int64_t max_records = 2'000'000;  // generated records before giving up (a hung kernel)
  std::function<void(const Rec&, const MachineState&)> on_record;  // after each record
};

struct Trace {
  std::vector<Rec> prompt;   // the image tokens fed to the machine
  std::vector<Rec> records;  // the generated records, ending with kEnd
  MachineState final;
};

// Runs a launch to its end record.
Trace run(const Program& p, const Launch& l, const RunOptions& options = {});
// Current contents of an array in memory.
std::vector<uint32_t> read_array(const MachineState& s, const Array& a);

// Derived views, shared with the panel and the divergence finder.
int cta_of_warp(const Launch& l, int warp);        // resident CUDA block slot, or -1
bool lane_waiting(const MachineState& s, int warp, int lane);
uint32_t special_value(const MachineState& s, int warp, int lane, Special sp);

}  // namespace qgpu
