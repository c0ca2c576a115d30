// The divergence finder (`qgpu run ... --check`): a launch is fed to the compiled model
// token by token (today by teacher forcing: the prompt, then the interpreter's records, as
// the model does not generate yet), and after every token the machine state decoded from
// the layers' recurrent state (the step, every register and predicate) and from the
// residual (the fetch, the operands, the lane control) is compared with the interpreter's.
// The first difference is named: token, record, layer, field, the interpreter's value and
// the model's. This is the one place outside the tests that runs the interpreter next to
// the model.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/forward.h"
#include "gpu/interp.h"

namespace qgpu::host {

struct Divergence {
  int64_t token = 0;   // position in the launch (prompt tokens first)
  std::string record;  // the token there, as text
  int layer = 0;       // where the field lives
  std::string field;   // e.g. "warp 1 lane 2 r4", "fetch op", "lane 3 next PC"
  std::string want, got;
  std::string text() const;  // one line naming all of it
};

struct CheckReport {
  int64_t tokens = 0;        // tokens compared
  int64_t prompt_tokens = 0;
  // Records the model's greedy choice was compared with: every running token's when the
  // model generates this program's ops (lift::generation_gap), else none.
  int64_t emitted = 0;
  std::optional<std::string> gap;  // why the choices were not compared
  std::optional<Divergence> first;
};

// The step and every register and predicate the interpreter has written in this wave,
// decoded from a model state (ours or one read out of llama.cpp), against interpreter
// state st; the first difference, if any.
std::optional<Divergence> compare_state(const engine::Model& m, const engine::State& s, const MachineState& st);

// Feeds a launch (the prompt, then the records) through a fresh state of the compiled
// model m, run with `options` (its trace, if any, still sees everything), applying the same records to the
// interpreter, and compares after every token; stops at the first divergence.
CheckReport check_launch(const engine::Model& m, engine::RuntimeOptions options, std::span<const Rec> prompt,
                         std::span<const Rec> records);

}  // namespace qgpu::host
