// A launch on the model as the tools run it (`qgpu run --engine model`, `qgpu asm --run
// --engine model`, `qgpu check`): host::launch() under a record cap derived from the
// interpreter, with progress on stderr, and the records generated before a failure kept.
// The chat has its own panel and does not use this.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "gpu/interp.h"
#include "host/launch.h"

namespace qgpu {

// The cap a launch on the model runs under when the user gives no --max-records: the
// interpreter runs the same program and launch first (it is fast) and the model may
// generate max(4 x its records + 1000, 10,000). A kernel the interpreter does not finish
// (a trap, or past its own 2,000,000-record cap) gets the fixed budget, 10,000 records: the
// model could not finish it either (past a trap its records mean nothing; past 2,000,000
// it would run for hours), so it runs long enough to show what it does. A broken model
// that never emits `end` thus stops after seconds on a small kernel (10,000 records of the
// GPU-only model: about 5 s on a 2-core VM).
constexpr int64_t kCapFactor = 4, kCapSlack = 1000, kCapFloor = 10'000, kCapFallback = 10'000;

struct RecordCap {
  int64_t records = 0;
  std::string why;   // host::LaunchOptions::max_records_why: what the error at the cap says
  std::string hint;  // how to raise it, appended to that error; empty where there is no option
};

// The cap derived from the interpreter's record count for the launch.
RecordCap derived_cap(int64_t interpreter_records);
// given (--max-records N) when there is one, else the interpreter's run of p under l
// decides (derived_cap, or the fixed budget when it traps or does not end).
RecordCap record_cap(const Program& p, const Launch& l, std::optional<int64_t> given);

// Progress of a launch on stderr, rewritten in place on one line (`\r`) and cleared when
// the launch ends: records so far, records/s and the current step (the last `sched`
// record). Shown when stderr is a terminal, or QGPU_PROGRESS=1 forces it (QGPU_PROGRESS=0
// turns it off), once the launch has run QGPU_PROGRESS_AFTER_MS milliseconds (default
// 2000), redrawn at most every 100 ms.
class LaunchProgress {
 public:
  LaunchProgress();
  ~LaunchProgress() { clear(); }
  LaunchProgress(const LaunchProgress&) = delete;
  LaunchProgress& operator=(const LaunchProgress&) = delete;
  // The on_record hook that counts and draws; this must outlive the launch.
  host::RecordHook hook();
  void clear();  // erases the line, if one is shown

 private:
  void draw(std::chrono::steady_clock::time_point now);
  bool enabled_ = false;
  std::chrono::milliseconds after_{2000};
  std::chrono::steady_clock::time_point start_, generating_, drawn_;
  int64_t records_ = 0;
  std::optional<Rec> step_;
  size_t width_ = 0;  // of the line shown; 0: none
};

// How a failed launch's records are printed to stdout before its error: all of them
// (--trace) or the count and the last 10; json: as one JSON object.
struct PartialOutput {
  bool all = false, json = false;
  std::string kernel;
};

// host::launch(p, l, m, o) under cap with a LaunchProgress. When the model fails after
// generating (a token that is not a record, the cap), prints the records it generated to
// stdout as show says (nothing when show is null), then throws Error with the host's
// message and, at the cap, cap.hint.
host::LaunchResult launch_with_progress(const Program& p, const Launch& l, const engine::Model& m,
                                        host::LaunchOptions o, const RecordCap& cap, const PartialOutput* show);

}  // namespace qgpu
