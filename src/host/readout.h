// The host's read-out: machine memory decoded from the memory heads' recurrent state. The
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

// The 128 ROM blocks as the image wrote them (RomSlot{} for a block never written).
std::array<RomSlot, kBlocks> read_rom(const engine::Model& m, const engine::State& s);

}  // namespace qgpu::host
