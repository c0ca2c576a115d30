#include "gpu/f32.h"

#include <fmt/format.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace qgpu {

std::string format_f32(uint32_t bits) {
  const float x = std::bit_cast<float>(bits);
  if (std::isnan(x)) return bits == 0x7fffffffu ? "nan" : fmt::format("nan:0x{:08x}", bits);
  if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

std::optional<uint32_t> parse_f32(std::string_view s) {
  if (s == "nan") return 0x7fffffffu;
  if (s == "inf" || s == "+inf") return 0x7f800000u;
  if (s == "-inf") return 0xff800000u;
  if (s.size() == 10 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F')) {
    uint32_t bits = 0;
    const auto [end, ec] = std::from_chars(s.data() + 2, s.data() + s.size(), bits, 16);
    if (ec == std::errc() && end == s.data() + s.size()) return bits;
    return std::nullopt;
  }
  if (s.starts_with('+')) s.remove_prefix(1);
  // Digits, one point, an exponent: from_chars would also take "inf" and "nan" spelt
  // otherwise and hex floats, which --arg does not.
  if (s.empty() || s.find_first_not_of("0123456789.eE+-") != s.npos) return std::nullopt;
  float x = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return std::bit_cast<uint32_t>(x);
}

nlohmann::json f32_json(uint32_t bits) {
  const float x = std::bit_cast<float>(bits);
  if (!std::isfinite(x)) return format_f32(bits);
  return std::strtod(format_f32(bits).c_str(), nullptr);
}

}  // namespace qgpu
