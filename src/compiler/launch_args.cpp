// The launch's options as `qgpu run` and a corpus `// run:` line spell them: --grid, --block,
// --kernel, --shared and the --arg values (compile.h declares them).
#include <fmt/format.h>

#include <charconv>

#include "base/error.h"
#include "compiler/compile.h"
#include "gpu/f32.h"

namespace qgpu {
namespace {

// s without the spaces and tabs around it.
std::string_view trimmed(std::string_view s) {
  const size_t first = s.find_first_not_of(" \t");
  return first == s.npos ? std::string_view{} : s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

}  // namespace

std::optional<int64_t> parse_integer(std::string_view s) {
  const bool negative = s.starts_with('-');
  if (negative) s.remove_prefix(1);
  int base = 10;
  if (s.starts_with("0x") || s.starts_with("0X")) s.remove_prefix(2), base = 16;
  uint64_t magnitude = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), magnitude, base);
  if (s.empty() || end != s.data() + s.size() || (ec != std::errc() && ec != std::errc::result_out_of_range))
    return std::nullopt;
  if (ec == std::errc::result_out_of_range || magnitude > uint64_t{INT64_MAX}) magnitude = INT64_MAX;
  return negative ? -static_cast<int64_t>(magnitude) : static_cast<int64_t>(magnitude);
}

std::pair<int, int> parse_dims(const std::string& text, const char* what) {
  const size_t comma = text.find(',');
  const std::optional<int64_t> x = parse_integer(trimmed(std::string_view(text).substr(0, comma)));
  const std::optional<int64_t> y =
      comma == std::string::npos ? 1 : parse_integer(trimmed(std::string_view(text).substr(comma + 1)));
  if (!x || !y || *x < 1 || *y < 1 || *x > INT32_MAX || *y > INT32_MAX)
    fail("--{} '{}': expected X or X,Y with positive integers", what, text);
  return {static_cast<int>(*x), static_cast<int>(*y)};
}

std::vector<std::string> split_run_line(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false, quoted = false;
  for (char c : text) {
    if (c == '\'') quoted = !quoted, in_word = true;
    else if (!quoted && (c == ' ' || c == '\t' || c == '\n')) {
      if (in_word) words.push_back(word), word.clear();
      in_word = false;
    } else word += c, in_word = true;
  }
  if (quoted) fail("{}: a quote (') is not closed", text);
  if (in_word) words.push_back(word);
  return words;
}

void parse_launch_options(const std::vector<std::string>& words, CompileOptions& o, std::string_view where) {
  const std::string at = where.empty() ? "" : std::string(where) + ": ";
  std::string grid = "1", block = "4";
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    const size_t eq = w.starts_with("--") ? w.find('=') : std::string::npos;
    const std::string name = w.substr(0, eq);
    std::string value;
    if (eq != std::string::npos) value = w.substr(eq + 1);
    else if (i + 1 < words.size()) value = words[++i];
    else fail("{}{}: needs a value (--grid X[,Y], --block X[,Y], --arg NAME=VALUE, --kernel NAME, --shared BYTES)", at, w);
    if (name == "--grid") grid = value;
    else if (name == "--block") block = value;
    else if (name == "--kernel") o.kernel = value;
    else if (name == "--arg") o.args.push_back(parse_kernel_arg(value));
    else if (name == "--shared") {
      const std::optional<int64_t> n = parse_integer(trimmed(value));
      if (!n || *n < 0 || *n > 4 * kMemWords)
        fail("{}--shared {}: expected the dynamic shared memory's size in bytes, 0..{} (the machine's memory)", at,
             value, 4 * kMemWords);
      o.shared_bytes = static_cast<int>(*n);
    } else fail("{}'{}': unknown launch option (expected --grid, --block, --arg, --kernel or --shared)", at, name);
  }
  std::tie(o.launch.grid_x, o.launch.grid_y) = parse_dims(grid, "grid");
  std::tie(o.launch.block_x, o.launch.block_y) = parse_dims(block, "block");
  std::vector<std::string> problems = check_launch(o.launch);
  if (!problems.empty()) fail("{}{}", at, problems.front());
}

KernelArg parse_kernel_arg(std::string_view text) {
  size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0)
    fail("--arg '{}': expected NAME=VALUE (a number, or a list like [1,2,-3])", text);
  KernelArg a{std::string(text.substr(0, eq))};
  std::string_view v = text.substr(eq + 1);
  a.is_array = !v.empty() && v.front() == '[';
  if (a.is_array && (v.size() < 2 || v.back() != ']')) fail("--arg {}: the list must end with ']'", a.name);
  std::string_view body = a.is_array ? v.substr(1, v.size() - 2) : v;
  if (a.is_array && trimmed(body).empty()) return a;
  for (size_t start = 0;;) {
    const size_t comma = body.find(',', start);
    const std::string_view item = trimmed(body.substr(start, comma == std::string_view::npos ? body.npos : comma - start));
    const std::optional<int64_t> x = parse_integer(item);
    // A float's range is checked with its parameter's type (arg_words): here only its form.
    const bool decimal = !item.empty() && item.find_first_not_of("0123456789.eE+-") == item.npos &&
                         item.find_first_of("0123456789") != item.npos;
    if (!x && !decimal && !parse_f32(item))
      fail("--arg {}: '{}' is not a number (an integer, or for a float parameter a decimal like 1.5, inf, -inf, "
           "nan or raw bits like 0f3fc00000)", a.name, item);
    // An integer past 32 bits is still a float's decimal; an int parameter refuses it (arg_words).
    const bool fits = x && *x >= INT32_MIN && *x <= UINT32_MAX;
    if (a.values.size() == 4 * kMemWords)  // chars: 4 a word
      fail("--arg {}: more than {} values; the machine's memory holds {} words in all", a.name, 4 * kMemWords, kMemWords);
    a.values.push_back(fits ? *x : 0);
    a.items.emplace_back(item);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (!a.is_array && a.values.size() != 1) fail("--arg {}: expected one number", a.name);
  return a;
}

}  // namespace qgpu
