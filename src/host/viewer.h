// The residual-stream viewer: one self-contained HTML page (inline CSS and JS, the data
// embedded as JSON; nothing fetched from the network) that shows a launch's records as a
// timeline and, for the selected record, the machine lens's fields x sublayers grid (each
// field's value after every sublayer where it is alive, its birth and clear marked, invalid
// codes highlighted), a heat map of how many fields each sublayer changes, the step and the
// register-read fields decoded, and the launch's outputs and memory.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace qgpu::host {

// report: what `qgpu run ... --engine model --lens-json --lens-all --trace` prints (the
// launch's report with "records", "outputs", "memory" and "lens"), plus "map":
// lift::machine_map(). Returns the page; `?record=N` in its URL preselects record N (the
// arrow keys move the selection) and `&field=NAME` marks a field's row and scrolls its
// birth cell into view. Error when the report has no "lens" array or no "map".
std::string viewer_html(const nlohmann::ordered_json& report);

}  // namespace qgpu::host
