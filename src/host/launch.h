// A launch on the compiled model (`qgpu run --engine model`): the host feeds the prompt,
// then decodes greedily, one token per forward pass, until the model emits `end`. It
// turns each token back into a record for display and, at the end, reads memory and the
// ROM out of the model's recurrent state. It never computes a result and never calls the
// interpreter (tests/model_launch_test.cpp proves both).
#pragma once

#include <cstdint>
#include <functional>
#include <span>

#include "engine/forward.h"
#include "gpu/interp.h"

namespace qgpu::host {

struct ModelRun {
  // prompt and records as the model ran them; final holds what the host read out of the
  // state: memory (mem, mem_written) and the ROM. Its other fields are not filled in.
  Trace trace;
  double seconds = 0;  // generation only (after the prompt)
};

// The greedy choice: the token id of the largest logit among the machine's tokens (the
// first on a tie), as the host decodes and the divergence finder compares it.
int32_t greedy(std::span<const float> logits);

// Called after the prompt (record nullptr) and after each generated record has been fed
// back, so s holds the state after it; last with `end`, which is not fed (s is the final
// state). The live panel reads the machine out of s here. Returning false stops the
// launch: generate_launch throws Error("launch stopped ...").
using RecordHook = std::function<bool(const Rec* record, const engine::State& s)>;

// Throws Error when the model emits a token that is not an execution record, or runs
// past max_records without `end` (both are divergences: `--check` names where); the
// message names the record and its token position (the prompt's tokens, then records).
ModelRun generate_launch(const engine::Model& m, engine::RuntimeOptions options, std::span<const Rec> prompt,
                         int64_t max_records, const RecordHook& on_record = {});

}  // namespace qgpu::host
