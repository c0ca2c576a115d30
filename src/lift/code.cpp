#include "lift/code.h"

#include <cmath>

#include <fmt/format.h>

#include "base/error.h"

namespace qgpu::lift {

int Code::size() const {
  if (kind == Kind::kOnes) return ones;
  int n = 0;
  for (int r : radix) n += r;
  return n;
}

int Code::hots() const { return kind == Kind::kOnes ? counted : groups(); }

int Code::offset(int group) const {
  CHECK(group >= 0 && group < groups());
  int at = 0;
  for (int g = 0; g < group; ++g) at += radix[static_cast<size_t>(g)];
  return at;
}

int Code::dim(int group, int digit) const {
  CHECK(digit >= 0 && digit < radix[static_cast<size_t>(group)]);
  return offset(group) + digit;
}

const char* Code::kind_name() const {
  switch (kind) {
    case Kind::kDigits: return "digits";
    case Kind::kNibbles: return "nibbles";
    case Kind::kBits: return "bits";
    case Kind::kOnes: return "ones";
  }
  return "?";
}

std::string Code::describe() const {
  switch (kind) {
    case Kind::kOnes: return fmt::format("{} pad ones", ones);
    case Kind::kNibbles: return fmt::format("{} one-hot nibbles (a word)", groups());
    case Kind::kBits: return fmt::format("{} dual-rail bits (a word; 0 on, 1 off)", groups());
    case Kind::kDigits: break;
  }
  if (groups() == 1) return fmt::format("one-hot {}", radix[0]);
  bool same = true;
  for (int r : radix) same &= r == radix[0];
  if (same) return fmt::format("{} one-hot groups of {}", groups(), radix[0]);
  return fmt::format("one-hot digits {}", fmt::join(radix, "|"));
}

Code one_hot(int n) { return digits({n}); }
Code digits(std::initializer_list<int> radix) {
  for (int r : radix) CHECK(r >= 1);
  return {.kind = Code::Kind::kDigits, .radix = radix};
}
Code groups(int count, int n) {
  CHECK(count >= 1 && n >= 1);
  return {.kind = Code::Kind::kDigits, .radix = std::vector<int>(static_cast<size_t>(count), n)};
}
Code nibbles(int count) { return {.kind = Code::Kind::kNibbles, .radix = std::vector<int>(static_cast<size_t>(count), 16)}; }
Code bits(int count) { return {.kind = Code::Kind::kBits, .radix = std::vector<int>(static_cast<size_t>(count), 2)}; }
Code ones(int n, int counted) {
  CHECK(n >= 1 && counted >= 0);
  return {.kind = Code::Kind::kOnes, .ones = n, .counted = counted};
}

std::vector<int> encode(const Code& c, std::span<const int> digit) {
  CHECK(static_cast<int>(digit.size()) == c.groups());
  std::vector<int> d;
  for (int g = 0; g < c.groups(); ++g) d.push_back(c.dim(g, digit[static_cast<size_t>(g)]));
  return d;
}

std::vector<int> encode_word(const Code& c, uint32_t word) {
  CHECK(c.kind == Code::Kind::kNibbles || c.kind == Code::Kind::kBits);
  std::vector<int> digit;
  for (int g = 0; g < c.groups(); ++g)
    digit.push_back(c.kind == Code::Kind::kNibbles ? static_cast<int>(word >> (4 * g) & 0xf) : (word >> g & 1) ? 0 : 1);
  return encode(c, digit);
}

int hot_entry(std::span<const float> v, float peak, std::string* error) {
  int hot = -1;
  for (size_t i = 0; i < v.size(); ++i) {
    const bool on = v[i] > 0.5f * peak && v[i] < 1.5f * peak, off = std::fabs(v[i]) < 0.25f * peak;
    if (!on && !off) {
      *error = fmt::format("entry {} is {} (a hot entry is {}): not a valid code", i, v[i], peak);
      return -1;
    }
    if (on && hot >= 0) {
      *error = fmt::format("two hot entries ({} and {})", hot, i);
      return -1;
    }
    if (on) hot = static_cast<int>(i);
  }
  if (hot < 0) *error = "no hot entry";
  return hot;
}

Reading read(const Code& c, std::span<const float> v, float peak) {
  CHECK(static_cast<int>(v.size()) == c.size());
  Reading r;
  r.empty = true;
  for (float x : v) r.empty &= std::fabs(x) < 0.25f * peak;
  if (c.kind == Code::Kind::kOnes) {
    for (size_t i = 0; i < v.size() && r.error.empty(); ++i)
      if (!(v[i] > 0.5f * peak && v[i] < 1.5f * peak) && !(std::fabs(v[i]) < 0.25f * peak))
        r.error = fmt::format("entry {} is {}: neither 0 nor a hot entry ({})", i, v[i], peak);
    return r;
  }
  for (int g = 0; g < c.groups(); ++g) {
    std::string why;
    const int hot = hot_entry(v.subspan(static_cast<size_t>(c.offset(g)), static_cast<size_t>(c.radix[static_cast<size_t>(g)])),
                              peak, &why);
    r.digit.push_back(hot);
    if (hot < 0 && r.error.empty()) r.error = c.groups() == 1 ? why : fmt::format("group {}: {}", g, why);
  }
  return r;
}

uint32_t word_of(const Code& c, const Reading& r) {
  CHECK(r.valid() && (c.kind == Code::Kind::kNibbles || c.kind == Code::Kind::kBits));
  uint32_t w = 0;
  for (int g = 0; g < c.groups(); ++g) {
    const uint32_t d = static_cast<uint32_t>(r.digit[static_cast<size_t>(g)]);
    w |= c.kind == Code::Kind::kNibbles ? d << (4 * g) : (d == 0 ? 1u : 0u) << g;
  }
  return w;
}

std::string text_of(const Code& c, const Reading& r) {
  if (r.empty) return "-";
  if (c.kind == Code::Kind::kOnes) return r.valid() ? "pad" : "?";
  if ((c.kind == Code::Kind::kNibbles || c.kind == Code::Kind::kBits) && r.valid()) return fmt::to_string(word_of(c, r));
  std::string s;
  for (size_t g = 0; g < r.digit.size(); ++g) {
    if (g) s += '|';
    s += r.digit[g] < 0 ? std::string("?") : fmt::to_string(r.digit[g]);
  }
  return s;
}

}  // namespace qgpu::lift
