// How the machine writes a value into a run of dims: its code. Every residual field and
// every state row the host reads holds one of these, and every reader decodes it here, so
// a code has one definition and one decoder (one argmax).
//
// A code is a sequence of one-hot groups (a "digit" each, radix = the group's width): one
// dim of each group holds 1 (a "hot"), the others 0, so the code's hot count is its group
// count. Three readings of the digits:
// - kDigits: the digits themselves (a one-hot field is one group; a step is warp | block hi
//   | block lo | four lane flags).
// - kNibbles: a 32-bit word as one-hot nibbles, lowest first (8 groups of 16).
// - kBits: a word as dual-rail bits, lowest first: group i is bit i, digit 0 on, 1 off.
// - kOnes: no groups: `ones` dims that a sublayer sets to make up a constant energy (the
//   head pattern's and pred's pads); its hot count varies per token, and the residual's
//   energy books `counted` hots for it and the fields it makes up for together.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace qgpu::lift {

struct Code {
  enum class Kind { kDigits, kNibbles, kBits, kOnes };
  Kind kind = Kind::kDigits;
  std::vector<int> radix;  // one per group, lowest dims first
  int ones = 0;            // kOnes: its width
  int counted = 0;         // kOnes: the hots the energy books for it (code.h's header)

  int size() const;   // dims
  int hots() const;   // hot entries when it holds a value (kOnes: `counted`)
  int groups() const { return static_cast<int>(radix.size()); }
  int offset(int group) const;             // the group's first dim
  int dim(int group, int digit) const;     // the dim of `digit` in `group`, CHECKed
  std::string describe() const;            // "one-hot 17", "8 one-hot nibbles (a word)", ...
  const char* kind_name() const;           // "digits", "nibbles", "bits", "ones" (the map's "kind")
  bool operator==(const Code&) const = default;
};

Code one_hot(int n);                            // one group of n
Code digits(std::initializer_list<int> radix);  // groups of these widths
Code groups(int count, int n);                  // count groups of n each
Code nibbles(int count = 8);                    // a word's nibbles (kNibbles)
Code bits(int count = 32);                      // a word's dual-rail bits (kBits)
Code ones(int n, int counted);                  // an energy pad (kOnes)

// The dims a value sets: one per group (the digits given), a word's nibbles or bits.
std::vector<int> encode(const Code& c, std::span<const int> digit);
std::vector<int> encode_word(const Code& c, uint32_t word);  // kNibbles or kBits

// A code read back from dims. Valid: every group has exactly one entry between half the
// peak and 1.5 times it, and every other entry within a quarter of it of 0 (peak: what a hot entry is
// expected to be; 1 in the residual, a row's largest entry in a head's state). Codes are
// checked, never repaired: an invalid read names the group and entry.
struct Reading {
  std::vector<int> digit;  // per group, -1 where the group is not a valid one-hot
  std::string error;       // empty when valid: "group 3: two hot entries (4 and 9)"
  bool empty = false;      // every entry within a quarter of the peak of 0
  bool valid() const { return error.empty(); }
};
Reading read(const Code& c, std::span<const float> v, float peak = 1.0f);
// The hot entry of one one-hot group: the one argmax every reader of a code uses; -1 with
// `error` set unless exactly one entry is near the peak and the rest near 0.
int hot_entry(std::span<const float> v, float peak, std::string* error);
// The word a kNibbles or kBits reading holds (CHECKs that it is valid).
uint32_t word_of(const Code& c, const Reading& r);
// A reading as text: the word in decimal for kNibbles and kBits, the digit for a one-group
// code, the digits joined by '|' otherwise, "?" for an invalid group, "-" when empty.
std::string text_of(const Code& c, const Reading& r);

}  // namespace qgpu::lift
