// The host's read-out: machine state decoded from the layers' recurrent state. The
// host never computes a result; it only turns the one-hot nibble codes the model wrote
// into numbers.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "engine/model.h"
#include "engine/state.h"
#include "gpu/interp.h"

namespace qgpu::host {

// Words 0..125 of global memory; nullopt for a word the model never wrote. Throws Error
// naming the slot and nibble when a row is not a valid code (a divergence).
std::vector<std::optional<uint32_t>> read_memory(const engine::Model& m, const engine::State& s);

// The kBlocks ROM blocks as the image wrote them (RomSlot{} for a block never written).
std::array<RomSlot, kBlocks> read_rom(const engine::Model& m, const engine::State& s);

// The step the model holds: the latest `sched` record (before any, the null step: warp 0,
// the last block, no lanes).
Rec read_step(const engine::Model& m, const engine::State& s);

// Register `code` (field code: 1..24 r0..r23, 25..28 p0..p3, a predicate read as 0 or 1) of
// a lane, from the register file's four replicas (one per read port), which must agree;
// nullopt when the slot was never written.
std::optional<uint32_t> read_register(const engine::Model& m, const engine::State& s, int warp, int lane, int code);

// A lane's status as the lane status layer holds it: PC, finished, barrier flag; nullopt
// before the launch's `run` wrote it.
struct LaneStatus {
  int pc = 0;
  bool finished = false;
  int flag = 0;
  friend bool operator==(const LaneStatus&, const LaneStatus&) = default;
};
std::optional<LaneStatus> read_lane(const engine::Model& m, const engine::State& s, int warp, int lane);

}  // namespace qgpu::host
