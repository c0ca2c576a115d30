// A finished launch as JSON and as readable text: outputs (every array), memory,
// records and counts. Shared by `qgpu asm --run` and later executors' `qgpu run`.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gpu/interp.h"

namespace qgpu {

struct ReportOptions {
  std::string engine = "interp";
  std::string dtype;                 // empty: not reported (the interpreter has none)
  std::vector<std::string> outputs;  // arrays reported as outputs; empty: every array
  bool with_records = true;
};

// {"kernel", "engine", ["dtype"], "launch", "outputs": {array: [element...]}, "memory":
//  [int32|null], "tokens", "prompt_tokens", "steps", "waves", "blocks", "records": [text...],
//  "record_ids": [...], "prompt_ids": [...]}
nlohmann::json trace_json(const Program& p, const Launch& l, const Trace& t, const ReportOptions& o);
// An array's elements as --json writes them: a float array's as f32_json (numbers that read
// back to the same float, or "inf", "-inf", "nan"), the others as their C type reads them
// (array_elements: int and 8/16-bit data signed or unsigned, unsigned 0..2^32 - 1).
nlohmann::json array_json(const Array& a, const std::vector<uint32_t>& words);
// A short readable summary and every array's contents; with_records puts one line per
// record before them, steps indented (the results stay last, in view).
std::string trace_text(const Program& p, const Launch& l, const Trace& t, bool with_records);

}  // namespace qgpu
