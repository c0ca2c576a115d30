// The machine compiled into Qwen3.5 layers: the weights, built stage by stage (stages.h)
// on the residual fields and layers of the plan (plan.h), the GPU-only model's config and
// tokenizer, and what the weights use. The model holds the machine's state, generates the
// records of the ops generation_gap() accepts (host/launch.h), and for any program its
// state is checked by teacher forcing (host/check.h). `qgpu map` prints the plan as the
// model's map; docs/design.md §3 has the exactness argument.
#pragma once

#include <span>
#include <optional>
#include <string>
#include <vector>

#include "engine/config.h"
#include "engine/tensor.h"
#include "gpu/program.h"
#include "lift/builder.h"
#include "lift/layout.h"
#include "lift/plan.h"

namespace qgpu::lift {

// The config of the GPU-only model: Qwen3.5-2B's head shapes (16 DeltaNet heads of 128,
// attention 8 x 256 with 2 KV heads, intermediate 6144) on a narrow residual.
engine::Config machine_config();
// All weights of the machine. norm_width: the residual width its RMSNorms average over
// when it is merged into a base (the base's dims are +0 at the machine's tokens); every
// norm weight and every weight after a norm follow from it, so the machine is as exact
// there as alone. 0: its own hidden size.
// shared = false: on machine_layout(false)'s residual (hidden size its width), the same
// machine field by field.
// trail: recorded into (the map's provenance, construct.h) when given.
struct Trail;
Builder build_machine(int norm_width = 0, bool shared = true, Trail* trail = nullptr);
// A tokenizer.json naming every machine token (WordLevel; the host feeds ids).
std::string machine_tokenizer_json();
// Writes the GPU-only model as a HF directory.
void write_machine_model(const std::string& dir, engine::DType dtype);
// What the weights use, counted from them: residual dims (used, and alive after each
// sublayer), DeltaNet heads per layer, the widest MLP, nonzero parameters (one line per
// item, for `qgpu compile-model`).
std::string machine_summary(const Builder& b);
// The counts behind it, as numbers (the docs' figures are checked against them).
struct MachineCounts {
  int64_t parameters = 0;  // every element of every tensor, dense
  int64_t nonzero = 0;
  std::vector<int64_t> layer_nonzero;  // per layer (the embedding, final norm and head apart)
};
MachineCounts machine_counts(const Builder& b);
// The ops whose records the layers compute (the emit stage's table; `qgpu map` lists them).
std::vector<Op> computed_ops();
// Why the compiled model cannot generate records for a program with this ROM and launch yet
// (the first block whose op or operand the ALU does not have, named with the ops it has;
// %ctaid needs a grid at most 16 wide or one row tall), or nullopt when it can. The model
// holds and checks every program's state whatever the ops.
std::optional<std::string> generation_gap(std::span<const Instr> code, const Launch& launch);
// The codes the multiplier's layers (stage_mul.cpp) write for lane nl's operands a, b, c
// of mul.lo (mad: mad.lo), group by group, for the divergence finder: after `layer`, group
// g of `field` (size dims each) holds values[g].
struct MulCodes {
  int layer;
  std::string field;
  int size;
  std::vector<int> values;
};
std::vector<MulCodes> multiplier_codes(uint32_t a, uint32_t b, uint32_t c, bool mad);
// A hash of the sources the weights depend on (generated at build time): a cached model
// built by another construction has another fingerprint.
const char* construction_fingerprint();

}  // namespace qgpu::lift
