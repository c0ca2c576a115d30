// A finished launch as JSON and as readable text: outputs (every array), memory,
// records and counts. Shared by `qgpu asm --run` and later engines' `qgpu run`.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "gpu/interp.h"

namespace qgpu {

// {"kernel", "engine", "launch", "outputs": {array: [int32...]}, "memory": [int32|null],
//  "records": [text...], "record_ids": [...], "tokens", "prompt_tokens", "steps", "waves"}
nlohmann::json trace_json(const Program& p, const Launch& l, const Trace& t, bool with_records);
// A short readable summary; with_records adds one line per record, steps indented.
std::string trace_text(const Program& p, const Launch& l, const Trace& t, bool with_records);

}  // namespace qgpu
