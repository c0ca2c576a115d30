// The specs of the lens's interventions (`qgpu run --engine model --patch-field,
// --patch-state, --ablate`), parsed into what tools/model_lens.cpp applies: each a clear
// error naming the spec when it is malformed or names what the machine does not have.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace qgpu {

// A field patch: the field's dims after `sublayer` at `position` get `hot` set (the rest 0).
struct FieldPatch {
  std::string spec, field;
  int sublayer;
  std::optional<int64_t> position;  // every position when absent
  std::vector<int> hot;             // machine dims
};
// [Lk.mixer.|Lk.mlp.]FIELD[[GROUP]]=VALUE@POSITION
FieldPatch parse_field_patch(const std::string& text);

// A state patch: before the token at `position` is read, a memory word or a register.
struct StatePatch {
  std::string spec;
  int64_t position = 0;
  bool memory = true;
  int word = 0, warp = 0, lane = 0, code = 0;
  uint32_t value = 0;
};
// mem[WORD]=VALUE@POSITION or reg[WARP,LANE,rN|pN]=VALUE@POSITION
StatePatch parse_state_patch(const std::string& text);

// An ablation: MLP units or DeltaNet heads by layer (from the map), at every position or
// one, and the fields they write (what a swap changes).
struct Ablation {
  std::string spec;
  std::map<int, std::vector<int>> units;   // layer -> MLP units
  std::map<int, std::vector<int>> heads;   // layer -> DeltaNet value heads
  std::vector<std::string> fields;
  std::optional<int64_t> position;
};
// stage:NAME | field:NAME | units:LAYER:FIRST-LAST | heads:LAYER:FIRST-LAST, each optionally @POSITION
Ablation parse_ablation(const std::string& text, const nlohmann::ordered_json& map);

}  // namespace qgpu
