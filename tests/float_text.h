// How the corpus compares float outputs: the oracle (scripts/gen_expected.py) writes each
// element of a float array as a JSON string, the shortest text that reads back to the float
// ("1.5", "-0", "1e-45", "inf", "nan"); `--json` writes a number (or "inf", "nan", ...).
// Both sides become that text, so a float compares by its bits (-0 against 0 differs).
// Integer arrays compare as words (as_words).
#pragma once

#include <charconv>
#include <string>

#include <nlohmann/json.hpp>

namespace qgpu::test_util {

// A float element as the oracle writes it: a string stays as it is, a number becomes the
// shortest text of the float it reads back as.
inline std::string float_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (!v.is_number()) return v.dump();
  char buf[64];
  *std::to_chars(buf, buf + sizeof buf - 1, static_cast<float>(v.get<double>())).ptr = '\0';
  return buf;
}

// An output array as text elements: floats by float_text, other elements as JSON.
inline nlohmann::json as_float_texts(const nlohmann::json& array) {
  nlohmann::json out = nlohmann::json::array();
  if (!array.is_array()) return array;
  for (const nlohmann::json& v : array) out.push_back(float_text(v));
  return out;
}

// An integer output array as 32-bit words: the oracle writes unsigned data as signed
// words, `--json` as unsigned numbers.
inline nlohmann::json as_words(const nlohmann::json& array) {
  nlohmann::json out = nlohmann::json::array();
  if (!array.is_array()) return array;
  for (const nlohmann::json& v : array) out.push_back(v.is_number_integer() ? nlohmann::json(static_cast<uint32_t>(v.get<int64_t>())) : v);
  return out;
}

}  // namespace qgpu::test_util
