// The machine's map: what every residual field, MLP unit and DeltaNet head of the compiled
// layers is for, as data. Made from the plan (plan.h: the fields, their codes, meanings and
// lives) and from a construction that records which stage wrote each unit and head and
// which dims it reads and writes (construct.h's Trail), so it names exactly what the
// weights hold. `qgpu map` prints it; `compile-model` and `build` write it beside the
// weights as qgpu_map.json (in a merge, offset by the base's dims and tokens), and
// check_map() holds a checkpoint's weights against it.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/safetensors.h"

namespace qgpu::lift {

inline constexpr const char* kMapFile = "qgpu_map.json";
inline constexpr const char* kMapFormat = "qgpu-map 1";

// Where the machine sits in a checkpoint: its residual dims from `dims`, its token ids from
// `tokens`, its layers from `layers` (0 for the GPU-only model, and in a merge, whose GPU
// layers come first).
struct MapOffsets {
  int dims = 0;
  int tokens = 0;
  int layers = 0;
};

// The map as JSON (format kMapFormat): fields, unit groups, heads, layers, token ranges,
// the construction's fingerprint. Builds the machine once (about a second).
nlohmann::ordered_json machine_map(const MapOffsets& at = {});

// Views of a map: text for a terminal (every field; or one field with the units and heads
// that write, read and clear it), and the docs' Markdown tables.
std::string map_text(const nlohmann::ordered_json& map);
std::string map_field_text(const nlohmann::ordered_json& map, const std::string& field);  // Error if absent
std::string map_markdown_layers(const nlohmann::ordered_json& map);
std::string map_markdown_fields(const nlohmann::ordered_json& map);

// Reads DIR/qgpu_map.json; one Error naming the file and what to do when it is missing,
// not JSON or not a map.
nlohmann::ordered_json read_map(const std::string& dir);

// Holds a checkpoint's weights against its map: every nonzero entry of every matrix of
// the machine's layers and of its token rows belongs to the unit group or head the map
// names, and reads or writes only the dims of the fields the map gives it; the fields
// alive at one sublayer never share a dim. Returns what disagrees (at most `limit`
// lines; empty when everything agrees) and counts the entries it checked.
struct MapCheck {
  std::vector<std::string> problems;
  int64_t nonzeros = 0;
};
MapCheck check_map(const nlohmann::ordered_json& map, const engine::SafetensorsDir& weights, size_t limit = 20);

}  // namespace qgpu::lift
