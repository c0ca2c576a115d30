// The machine lens: a launch's residual stream after every sublayer, at chosen token
// positions, decoded into the machine's fields through their codes (lift/plan.h,
// lift/code.h), with every field whose dims are not a valid code flagged. A Lens is an
// engine probe (engine::ProbeFn) given to host::launch through LaunchOptions::probe: it
// copies the machine's dims at the positions asked for, and decodes them afterwards. On a
// merged checkpoint the machine's dims sit after the base's, whose part is kept as a norm.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/forward.h"
#include "engine/model.h"
#include "gpu/vocab.h"

namespace qgpu::host {

// One position's residual: after the embedding (sublayer -1), then after every mixer
// (2 il) and MLP (2 il + 1), the machine's dims only.
struct LensSnapshot {
  int64_t position = 0;
  std::vector<std::vector<float>> residual;  // [1 + 2 layers][machine dims]
  std::vector<double> base_norm;             // per sublayer: the base's dims' L2 norm (merged; else empty)
};

class Lens {
 public:
  // positions: token positions to keep (empty: every position from `first` on, at most
  // max_positions of them). first: the first position worth keeping by default (the last
  // prompt token's, which generates the first record).
  Lens(const engine::Model& m, std::vector<int64_t> positions, int64_t first, int64_t max_positions = 4096);
  // The probe to launch with (it also calls `then`, if given, after copying).
  engine::ProbeFn probe(engine::ProbeFn then = {});
  const std::vector<LensSnapshot>& snapshots() const { return snapshots_; }
  bool capped() const { return capped_; }  // positions past max_positions were not kept
  int machine_dims() const { return dims_; }

 private:
  LensSnapshot* at(int64_t position);
  int offset_, dims_, layers_;
  bool merged_;
  std::vector<int64_t> positions_;
  int64_t first_, max_positions_;
  bool capped_ = false;
  std::vector<LensSnapshot> snapshots_;
};

// One field as the lens reads it at one sublayer.
struct LensField {
  std::string name;
  std::string value;  // lift::text_of: a word, digits joined by '|', "-" empty, "?" invalid groups
  bool valid = true;
  std::string error;  // why not valid
};
struct LensRow {
  int sublayer = -1;                  // -1 the embedding, 2 il the mixer, 2 il + 1 the MLP
  std::vector<LensField> fields;      // the fields this sublayer writes first (all alive with all_fields)
  std::vector<LensField> invalid;     // every field alive after it that is not a valid code
  std::optional<double> base_norm;
};
struct LensPosition {
  int64_t position = 0;
  Rec input;                          // the token at the position (what the forward pass consumes)
  std::optional<Rec> output;          // the token it generated (absent after `end`)
  std::optional<int64_t> record;      // which record that is (0 the first generated)
  std::vector<LensRow> rows;
};

// The snapshots decoded: tokens[] is the launch's sequence (prompt, then records), prompt
// its length. all_fields: every field alive after each sublayer, not only those it writes.
std::vector<LensPosition> decode_lens(const std::vector<LensSnapshot>& snapshots, const std::vector<Rec>& tokens,
                                      int64_t prompt, bool all_fields);
std::string lens_text(const std::vector<LensPosition>& positions);
nlohmann::ordered_json lens_json(const std::vector<LensPosition>& positions);

// Interventions on the machine's state, for LaunchOptions::edit_state: a memory word, or a
// register (code: 1 + N for rN, 1 + kRegs + N for pN; every read port's replica), written
// as the code the head holds, at the scale of the head's written rows. Error when the head
// holds no written row to take the scale from (before `begin`).
void write_memory_word(const engine::Model& m, engine::State& s, int word, uint32_t value);
void write_register(const engine::Model& m, engine::State& s, int warp, int lane, int code, uint32_t value);
// A register's name as write_register's code: "rN" -> 1 + N, "pN" -> 1 + kRegs + N;
// nullopt for anything else (another letter, a number out of range, "r05").
std::optional<int> register_code(std::string_view name);

// Parses "5", "3,7,10-12" into token positions; Error naming `what` on anything else.
std::vector<int64_t> parse_positions(const std::string& text, const std::string& what);

}  // namespace qgpu::host
