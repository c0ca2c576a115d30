// The residual stream as named fields: each field is a contiguous run of dims. A field
// lives from the sublayer that writes it first to the MLP that clears it (writes minus its
// code after its last reader has run), and fields whose lives do not overlap share dims,
// so the residual is as wide as the most dims alive at once, not the sum of every field
// (the merged checkpoint grows with this width). Weights are written by field name, so
// the construction, the divergence finder and the panel all speak of "img_addr[5]", never
// of dim 312; a field's code (code.h) says what its dims hold.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "lift/code.h"

namespace qgpu::lift {

// Sublayers, in the order the residual passes them: the embedding, then 2 il the mixer of
// layer il and 2 il + 1 its MLP (Net::hots' numbering after the embedding's).
inline constexpr int kEmbedding = -1;
inline constexpr int kNever = 1 << 20;
constexpr int mixer(int il) { return 2 * il; }
constexpr int mlp(int il) { return 2 * il + 1; }
// The tied embedding, which is also the LM head, writes a token's head pattern into the
// head fields' dims (Life::head); this layer's MLP clears it.
inline constexpr int kHeadPatternLayer = 0;
// A sublayer as the map, the lens and the docs write it: "embedding", "L3.mixer", "L3.mlp".
std::string sublayer_name(int sublayer);
inline constexpr int kHeadPatternCleared = mlp(kHeadPatternLayer);

struct Life {
  int born = kEmbedding;  // the sublayer that writes the field first
  int cleared = kNever;   // the MLP that clears it, at or after its last reader
  int hots = 0;           // the hot entries it holds there (its code's; the residual's energy drops by them)
  // Read by the LM head: the tied embedding, which is also the head, writes the head's
  // pattern for a token into these dims too, and kHeadPatternLayer's MLP clears it, so
  // the field also holds its dims from the embedding to that clear.
  bool head = false;
};

struct Field {
  std::string name;
  int offset = 0;
  int size = 0;  // code.size()
  Life life;
  Code code;
  std::string meaning;
  int dim(int i) const;                  // offset + i, CHECKed in range
  int dim(int group, int digit) const;   // the dim of a digit of its code
};

struct Layout {
  std::vector<Field> fields;
  int used = 0;     // the width: the end of the highest field
  bool shared = true;  // false: every field gets dims of its own (the lifetime test's layout)
  std::unordered_map<std::string, size_t> index;  // name -> position in fields (add keeps it)

  // A field; place() gives it dims. Its life's hots are its code's.
  void add(const std::string& name, Code code, Life life, std::string meaning);
  // Gives every field the lowest dims that no field alive at the same time holds (first
  // fit in a few orders, the longest-lived fields first; the narrowest result is kept).
  void place();
  const Field& operator[](const std::string& name) const;  // CHECKs that it exists
  // The dims of the fields alive after sublayer s (born at or before it and cleared after
  // it; a head field from the embedding to L0's MLP too): no placement is narrower than
  // the most of these.
  int alive(int sublayer) const;
};

// Whether two fields are ever alive at the same sublayer: a field cleared by an MLP may
// share dims with one that MLP or a later sublayer writes first (a head field is alive
// from the embedding to L0's MLP as well).
bool overlap(const Life& a, const Life& b);

}  // namespace qgpu::lift
