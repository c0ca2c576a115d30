// A launch on the compiled model (`qgpu run --engine model`, `qgpu check`, the chat):
// host::launch() takes a program and its launch dims, checks that the model can generate
// its records (generation_gap), feeds the program image as the prompt, then decodes
// greedily, one token per forward pass, until the model emits `end`. It turns each token
// back into a record and, at the end, reads memory and the ROM out of the model's
// recurrent state into a LaunchResult, every field filled. The runtime options every
// launch shares (one thread, zero rows skipped) are chosen here, once. The host never
// computes a result and never calls the interpreter (tests/model_launch_test.cpp proves
// both). generate_launch() is the step under launch(), for tests that choose their own
// RuntimeOptions or prompt.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/error.h"
#include "engine/forward.h"
#include "gpu/interp.h"

namespace qgpu::host {

// What a launch on the model leaves: the tokens as the model ran them and what the host
// read out of its final state. Registers are not read out, so there is no field for them.
struct LaunchResult {
  std::vector<Rec> prompt;                    // the program image as fed
  std::vector<Rec> records;                   // the generated records, ending with `end`
  std::array<uint32_t, kMemWords> mem{};      // memory; 0 where not written
  std::array<bool, kMemWords> mem_written{};  // the words the image or a store wrote
  std::array<RomSlot, kBlocks> rom{};         // the ROM as the image wrote it
  double seconds = 0;                         // generation only (after the prompt)
};

// The launch as a Trace, for what reads one (trace_text, trace_json, read_array, a chat
// tool's result): final holds r's memory and ROM, its other fields the empty machine's.
Trace launch_trace(const LaunchResult& r);

// generate_launch's result: launch_trace() of the LaunchResult, and its seconds.
struct ModelRun {
  Trace trace;
  double seconds = 0;  // generation only (after the prompt)
};

// The greedy choice: the token id of the largest logit among the machine's tokens (the
// first on a tie), as the host decodes and the divergence finder compares it.
int32_t greedy(std::span<const float> logits);

// Called after the prompt (record nullptr) and after each generated record has been fed
// back, so s holds the state after it; last with `end`, which is not fed (s is the final
// state). The live panel reads the machine out of s here. Returning false stops the
// launch: launch() throws LaunchError("launch stopped ...").
using RecordHook = std::function<bool(const Rec* record, const engine::State& s)>;

// What a caller of launch() chooses; the rest of the RuntimeOptions is the host's.
struct LaunchOptions {
  engine::Rounding rounding = engine::Rounding::llama_cpp;
  int64_t max_records = RunOptions{}.max_records;  // generated records before giving up
  // Where max_records came from, for the error at the cap (the tools derive it from the
  // interpreter's count: tools/launch_progress.h); empty: "--max-records N".
  std::string max_records_why;
  int threads = 1;  // the model is mostly zeros (skip_zero_rows): one thread a launch
  RecordHook on_record;  // may be empty
  engine::ProbeFn probe;  // sees, and may change, the residual at every token (host/lens.h); may be empty
  // Called before the token at `position` (a generated record's, fed back) is forwarded,
  // with the state it will see: an intervention on the machine's state (a memory word, a
  // register). Whoever writes a recurrent row clears that layer's recurrent_plain. May be empty.
  std::function<void(int64_t position, engine::State& s)> edit_state;
};

// The runtime options of a launch on the model: o's rounding and threads, zero rows skipped
// (the GPU's weights are mostly zeros; in a merged checkpoint the base's are skipped too).
// launch() runs with these, and the divergence finder's callers pass them to check_launch.
engine::RuntimeOptions runtime_options(const LaunchOptions& o);

// Why the model cannot generate the records of p under l (an op it has no layers for, a
// launch shape it does not schedule), or nullopt when it can: for callers that word the
// refusal their own way before launching.
std::optional<std::string> generation_gap(const Program& p, const Launch& l);

// Throws Error when generation_gap() names a gap: the message names the kernel and the gap
// and says to use --engine interp or --check. launch() calls it first; a caller may too,
// to refuse before it loads a model.
void require_generation(const Program& p, const Launch& l);

// What launch() and generate_launch() throw once tokens were generated: the model emitted
// a token that is not a record, ran past max_records without `end`, or a hook stopped it.
// records holds what it generated before the failure (the bad token not among them), so a
// caller can show it.
struct LaunchError : Error {
  enum class Kind { not_a_record, past_max_records, stopped };
  LaunchError(const std::string& message, Kind k, std::vector<Rec> generated)
      : Error(message), kind(k), records(std::move(generated)) {}
  Kind kind;
  std::vector<Rec> records;
};

// Runs p under l on m. Throws Error, before any token, as require_generation() does, and
// LaunchError as generate_launch() does when the model diverges.
LaunchResult launch(const Program& p, const Launch& l, const engine::Model& m, const LaunchOptions& o = {});

// The step under launch(): generates from a prompt with the caller's runtime options.
// Throws LaunchError when the model emits a token that is not an execution record, or runs
// past max_records without `end` (both are divergences: `--check` names where); the
// message names the record and its token position (the prompt's tokens, then records).
ModelRun generate_launch(const engine::Model& m, engine::RuntimeOptions options, std::span<const Rec> prompt,
                         int64_t max_records, const RecordHook& on_record = {});

}  // namespace qgpu::host
