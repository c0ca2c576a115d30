// binary32 values as text: how `--arg` reads a float and how outputs, traces and the panel
// print one. One form everywhere, so that a printed float reads back to the same bits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace qgpu {

// The shortest decimal that reads back to the same float (std::to_chars: "1.5", "-0",
// "1e-45", "3.4028235e+38"), "inf", "-inf", "nan" for the canonical NaN 0x7fffffff and
// "nan:0x7fc00000" for any other NaN.
std::string format_f32(uint32_t bits);

// A float as `--arg` takes it: a decimal ("1.5", "-2", "3e-5", "-0"; rounded to nearest
// even), "inf", "-inf", "nan" (0x7fffffff), or raw bits "0f7f800001" (PTX's spelling, 8 hex
// digits). nullopt for anything else, and for a decimal beyond the float range
// (3.4028235e+38) or one that rounds to zero without being zero.
std::optional<uint32_t> parse_f32(std::string_view text);

// As --json writes a float: a number whose text is format_f32's (exact: a reader that
// parses it as a double and rounds that to float gets the bits back), or the strings
// "inf", "-inf", "nan", "nan:0x....".
nlohmann::json f32_json(uint32_t bits);

}  // namespace qgpu
