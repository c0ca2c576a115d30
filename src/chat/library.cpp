// The ready-made kernels (library.h): each tool's schema, the checks a call passes before
// anything compiles, the launch it gets, and how its answer is read out of memory. Limits
// come from the machine: 126 words hold every array and __shared__ copy, and a launch should
// stay near a few thousand records (the model generates ~2000 a second).
#include "chat/library.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <numeric>

#include "base/error.h"
#include "chat/assets.h"
#include "gpu/f32.h"
#include "gpu/isa.h"

namespace qgpu::chat {
namespace {

using json = nlohmann::ordered_json;
using Ints = std::vector<int64_t>;
using Words = std::vector<std::vector<int32_t>>;  // the output arrays, signed

constexpr int64_t kMin32 = std::numeric_limits<int32_t>::min();
constexpr int64_t kMax32 = std::numeric_limits<int32_t>::max();
constexpr int kMaxValues = 100;   // sum, product, mean: values + out + 16 __shared__ words
constexpr int kMaxMinMax = 90;    // values + 2 + two __shared__ arrays of 16
constexpr int kMaxDot = 50;       // a + b + 1 + 16
constexpr int kMaxDotFloat = 60;  // a + b + 1 + 1 word for n (one thread: no __shared__)
constexpr int kMaxVector = 40;    // a + b + c
constexpr int kMaxSort = 16;      // values + sorted; n threads each scan n values
constexpr int kMaxDim = 8;        // matmul: rows and columns; all three matrices in memory
constexpr int kMaxPrime = 10000;  // trial division: ~400 records a remainder
constexpr int kMaxFactorial = 12; // 13! > 2^31

struct Call {
  std::string tool;
  json args;
};

template <typename... A>
[[noreturn]] void reject(fmt::format_string<A...> f, A&&... a) {
  throw ToolError(fmt::format(f, std::forward<A>(a)...));
}

const char* const kRange = "the machine's 32-bit integers (-2147483648 to 2147483647)";

// ---- Arguments --------------------------------------------------------------------------

// An argument's JSON; a string holding JSON ("[1, 2]", "7") counts as that JSON, since a
// model may quote what it means as a number or a list.
json value_of(const Call& c, const std::string& name) {
  const json& v = c.args.at(name);
  if (v.is_string()) {
    json parsed = json::parse(v.get<std::string>(), nullptr, false);
    if (!parsed.is_discarded()) return parsed;
  }
  return v;
}

int64_t as_int(const Call& c, const std::string& what, const json& v) {
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(kMax32))
    reject("{}: {} is {}, outside {}.", c.tool, what, v.dump(), kRange);
  if (v.is_number_integer()) {
    int64_t x = v.get<int64_t>();
    if (x < kMin32 || x > kMax32) reject("{}: {} is {}, outside {}.", c.tool, what, x, kRange);
    return x;
  }
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (std::isfinite(d) && d == std::floor(d)) {
      if (d < static_cast<double>(kMin32) || d > static_cast<double>(kMax32))
        reject("{}: {} is {}, outside {}.", c.tool, what, v.dump(), kRange);
      return static_cast<int64_t>(d);
    }
  }
  reject("{}: {} must be an integer (this tool computes in 32-bit integers; mean_float and dot_float take fractions), "
         "not {}.", c.tool, what, v.dump());
}

int64_t integer(const Call& c, const std::string& name) { return as_int(c, name, value_of(c, name)); }

Ints integers(const Call& c, const std::string& name, int max) {
  json v = value_of(c, name);
  if (!v.is_array()) reject("{}: {} must be a list of integers such as [1, 2, 3], not {}.", c.tool, name, v.dump());
  if (v.empty()) reject("{}: {} is empty; give at least one number.", c.tool, name);
  if (static_cast<int>(v.size()) > max)
    reject("{}: {} has {} numbers; the machine holds at most {}.", c.tool, name, v.size(), max);
  Ints out;
  for (size_t i = 0; i < v.size(); ++i) out.push_back(as_int(c, fmt::format("{}[{}]", name, i), v[i]));
  return out;
}

// A list of real numbers for a float parameter: each as the decimal the model wrote, which
// the compiler rounds to the nearest float (as `--arg` does); one outside the float range
// (or so small that it rounds to zero) is an error, never a silent infinity or zero.
std::vector<std::string> reals(const Call& c, const std::string& name, int max) {
  json v = value_of(c, name);
  if (!v.is_array()) reject("{}: {} must be a list of numbers such as [1.5, -2, 0.25], not {}.", c.tool, name, v.dump());
  if (v.empty()) reject("{}: {} is empty; give at least one number.", c.tool, name);
  if (static_cast<int>(v.size()) > max)
    reject("{}: {} has {} numbers; the machine holds at most {}.", c.tool, name, v.size(), max);
  std::vector<std::string> out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_number()) reject("{}: {}[{}] must be a number, not {}.", c.tool, name, i, v[i].dump());
    out.push_back(v[i].dump());
    if (!parse_f32(out.back()))
      reject("{}: {}[{}] is {}, outside the machine's 32-bit floats (magnitudes 1.4e-45 to 3.4028235e+38, or 0).",
             c.tool, name, i, out.back());
  }
  return out;
}

// A matrix as a list of rows; returns its entries row-major and its shape.
struct Matrix {
  Ints entries;
  int rows = 0, cols = 0;
};

Matrix matrix(const Call& c, const std::string& name) {
  json v = value_of(c, name);
  auto bad = [&] {
    reject("{}: {} must be a matrix given as a list of rows such as [[1, 2], [3, 4]], not {}.", c.tool, name, v.dump());
  };
  if (!v.is_array() || v.empty() || !v[0].is_array() || v[0].empty()) bad();
  Matrix m{.rows = static_cast<int>(v.size()), .cols = static_cast<int>(v[0].size())};
  if (m.rows > kMaxDim || m.cols > kMaxDim)
    reject("{}: {} is {} x {}; the machine multiplies matrices of at most {} rows and {} columns.", c.tool, name, m.rows,
           m.cols, kMaxDim, kMaxDim);
  for (int r = 0; r < m.rows; ++r) {
    if (!v[r].is_array()) bad();
    if (static_cast<int>(v[r].size()) != m.cols)
      reject("{}: row {} of {} has {} numbers but row 1 has {}; every row needs the same length.", c.tool, r + 1, name,
             v[r].size(), m.cols);
    for (int k = 0; k < m.cols; ++k) m.entries.push_back(as_int(c, fmt::format("{}[{}][{}]", name, r, k), v[r][k]));
  }
  return m;
}

// The call names only the tool's parameters, and all the required ones.
void check_names(const Call& c, const json& schema) {
  if (!c.args.is_object()) reject("{}: the arguments must be an object of named parameters, not {}.", c.tool, c.args.dump());
  const json& props = schema["properties"];
  std::string names;
  for (auto it = props.begin(); it != props.end(); ++it) names += fmt::format("{}{}", names.empty() ? "" : ", ", it.key());
  for (auto it = c.args.begin(); it != c.args.end(); ++it)
    if (!props.contains(it.key())) reject("{}: unknown argument '{}'; it takes {}.", c.tool, it.key(), names);
  for (const json& r : schema["required"]) {
    const std::string name = r.get<std::string>();
    if (!c.args.contains(name))
      reject("{}: missing argument '{}' ({}).", c.tool, name, props[name]["description"].get<std::string>());
  }
}

// Rejects an answer outside 32 bits: the kernel's arithmetic wraps, so a result that does
// not fit would come back wrong without a word. (The host sizes the answer to refuse it; the
// number it reports is still the one the machine computes.)
void fits(const Call& c, __int128 v, std::string_view what) {
  if (v < kMin32 || v > kMax32)
    reject("{}: {} would be outside {}, which the machine computes in; use smaller numbers.", c.tool, what, kRange);
}

__int128 product_of(const Ints& v) {
  if (std::find(v.begin(), v.end(), 0) != v.end()) return 0;
  __int128 p = 1;
  for (int64_t x : v) {
    p *= x;
    if (p > kMax32 + 1 || p < kMin32) return p;  // already out of range; stop before __int128 overflows
  }
  return p;
}

// ---- Launches and results ---------------------------------------------------------------

KernelArg array(std::string name, Ints values) { return {std::move(name), true, std::move(values)}; }
KernelArg zeros(std::string name, int n) { return {std::move(name), true, Ints(n, 0)}; }
KernelArg scalar(std::string name, int64_t v) { return {std::move(name), false, {v}}; }

// A float array: the decimals as written, which the kernel's float parameter types.
KernelArg float_array(std::string name, std::vector<std::string> decimals) {
  return {std::move(name), true, Ints(decimals.size(), 0), std::move(decimals)};
}

Launch one_block(int threads) { return Launch{.grid_x = 1, .grid_y = 1, .block_x = threads, .block_y = 1}; }

// A reduction's CUDA block: the smallest power of two >= min(n, 16), grown while the
// __shared__ copies (one per resident CUDA block) and the other words do not fit.
Launch reduction_block(int n, int shared_arrays, int other_words) {
  int b = 1;
  while (b < std::min(n, kMaxBlockThreads)) b *= 2;
  for (; b < kMaxBlockThreads; b *= 2) {
    const int copies = kWarps / ((b + kLanes - 1) / kLanes);
    if (other_words + shared_arrays * kMaxBlockThreads * copies <= kMemWords) break;
  }
  return one_block(b);
}

PreparedCall compile(const Call& c, const Launch& launch, std::vector<KernelArg> args) {
  PreparedCall p{.tool = c.tool, .file = fmt::format("kernels/library/{}.cu", c.tool)};
  std::vector<std::string> problems = check_launch(launch);
  if (!problems.empty()) fail("{}: {}", c.tool, problems.front());
  CompileOptions o{.file = p.file, .launch = launch, .args = std::move(args), .float_sequences = true};
  try {
    p.kernel = compile_cuda_text(chat_asset(p.file), o);
  } catch (const Error& e) {
    reject("{}: the kernel did not compile for this call ({}).", c.tool, e.what());
  }
  return p;
}

// Sets p.result: the named output arrays as signed words, shaped by `shape`.
void read_outputs(PreparedCall& p, const std::vector<std::string>& names, std::function<json(const Words&)> shape) {
  std::vector<Array> arrays;
  for (const std::string& name : names) {
    auto it = std::find_if(p.kernel.program.arrays.begin(), p.kernel.program.arrays.end(),
                           [&](const Array& a) { return a.name == name; });
    if (it == p.kernel.program.arrays.end()) fail("{}: the kernel has no array '{}'", p.tool, name);
    arrays.push_back(*it);
  }
  p.result = [arrays, shape = std::move(shape)](const MachineState& after) {
    Words w;
    for (const Array& a : arrays) {
      std::vector<int32_t> words;
      for (uint32_t x : read_array(after, a)) words.push_back(static_cast<int32_t>(x));
      w.push_back(std::move(words));
    }
    return shape(w);
  };
}

// A float word as a JSON number that reads back to the same float, or "inf", "-inf", "nan".
json float_word(int32_t w) { return f32_json(static_cast<uint32_t>(w)); }

json first_word(const Words& w) { return json{{"result", w[0][0]}}; }
json whole_array(const Words& w) { return json{{"result", w[0]}}; }

// ---- The tools --------------------------------------------------------------------------

PreparedCall prepare_sum(const Call& c) {
  Ints v = integers(c, "values", kMaxValues);
  __int128 total = 0;
  for (int64_t x : v) total += x;
  fits(c, total, "the sum");
  const int n = static_cast<int>(v.size());
  PreparedCall p = compile(c, reduction_block(n, 1, n + 1), {array("values", v), zeros("out", 1), scalar("n", n)});
  read_outputs(p, {"out"}, first_word);
  return p;
}

PreparedCall prepare_product(const Call& c) {
  Ints v = integers(c, "values", kMaxValues);
  fits(c, product_of(v), "the product");
  const int n = static_cast<int>(v.size());
  PreparedCall p = compile(c, reduction_block(n, 1, n + 1), {array("values", v), zeros("out", 1), scalar("n", n)});
  read_outputs(p, {"out"}, first_word);
  return p;
}

PreparedCall prepare_mean(const Call& c) {
  Ints v = integers(c, "values", kMaxValues);
  __int128 total = 0;
  for (int64_t x : v) total += x;
  fits(c, total, "the sum of the values");
  const int n = static_cast<int>(v.size());
  PreparedCall p = compile(c, reduction_block(n, 1, n + 5), {array("values", v), array("count", {n}), zeros("out", 4)});
  read_outputs(p, {"out"}, [](const Words& w) {
    return json{{"result", w[0][1]}, {"remainder", w[0][2]}, {"count", w[0][3]}, {"sum", w[0][0]}};
  });
  return p;
}

PreparedCall prepare_mean_float(const Call& c) {
  std::vector<std::string> v = reals(c, "values", kMaxValues);
  const int n = static_cast<int>(v.size());
  PreparedCall p = compile(c, one_block(1), {float_array("values", std::move(v)), zeros("out", 2), scalar("n", n)});
  read_outputs(p, {"out"}, [](const Words& w) {
    return json{{"result", float_word(w[0][1])}, {"sum", float_word(w[0][0])}};
  });
  return p;
}

PreparedCall prepare_min_max(const Call& c) {
  Ints v = integers(c, "values", kMaxMinMax);
  const int n = static_cast<int>(v.size());
  PreparedCall p = compile(c, reduction_block(n, 2, n + 2), {array("values", v), zeros("out", 2), scalar("n", n)});
  read_outputs(p, {"out"}, [](const Words& w) { return json{{"result", w[0]}, {"min", w[0][0]}, {"max", w[0][1]}}; });
  return p;
}

// Two lists a and b of the same length, each read by `list` (integers, or reals for the
// float tools): dot, vector_op, dot_float.
template <class List>
auto two_lists(const Call& c, int max, List list) {
  auto a = list(c, "a", max), b = list(c, "b", max);
  if (a.size() != b.size())
    reject("{}: a has {} numbers but b has {}; give two lists of the same length.", c.tool, a.size(), b.size());
  return std::pair{std::move(a), std::move(b)};
}

PreparedCall prepare_dot(const Call& c) {
  auto [a, b] = two_lists(c, kMaxDot, integers);
  __int128 total = 0;
  for (size_t i = 0; i < a.size(); ++i) total += static_cast<__int128>(a[i]) * b[i];
  fits(c, total, "the dot product");
  const int n = static_cast<int>(a.size());
  PreparedCall p = compile(c, reduction_block(n, 1, 2 * n + 1), {array("a", a), array("b", b), zeros("out", 1), scalar("n", n)});
  read_outputs(p, {"out"}, first_word);
  return p;
}

PreparedCall prepare_dot_float(const Call& c) {
  auto [a, b] = two_lists(c, kMaxDotFloat, reals);
  const int n = static_cast<int>(a.size());
  PreparedCall p = compile(c, one_block(1), {float_array("a", std::move(a)), float_array("b", std::move(b)),
                                             zeros("out", 1), scalar("n", n)});
  read_outputs(p, {"out"}, [](const Words& w) { return json{{"result", float_word(w[0][0])}}; });
  return p;
}

PreparedCall prepare_vector_op(const Call& c) {
  static const std::vector<std::string> ops = {"add", "sub", "mul", "min", "max"};
  json op = c.args.at("op");
  if (op.is_string() && op.get<std::string>().starts_with('"'))  // "\"add\"": a model quoted it
    op = json::parse(op.get<std::string>(), nullptr, /*allow_exceptions=*/false);
  auto it = op.is_string() ? std::find(ops.begin(), ops.end(), op.get<std::string>()) : ops.end();
  if (it == ops.end()) reject("vector_op: op is {}; use one of \"add\", \"sub\", \"mul\", \"min\", \"max\".", op.dump());
  const int code = static_cast<int>(it - ops.begin());
  auto [a, b] = two_lists(c, kMaxVector, integers);
  for (size_t i = 0; i < a.size(); ++i) {
    __int128 x = a[i], y = b[i];
    fits(c, code == 0 ? x + y : code == 1 ? x - y : code == 2 ? x * y : 0, fmt::format("element {} of the result", i));
  }
  const int n = static_cast<int>(a.size()), block = std::min(kMaxBlockThreads, (n + kLanes - 1) / kLanes * kLanes);
  Launch l = one_block(block);
  l.grid_x = (n + block - 1) / block;
  PreparedCall p = compile(c, l, {array("a", a), array("b", b), zeros("c", n), scalar("n", n), scalar("op", code)});
  read_outputs(p, {"c"}, whole_array);
  return p;
}

PreparedCall prepare_matmul(const Call& c) {
  Matrix a = matrix(c, "a"), b = matrix(c, "b");
  if (a.cols != b.rows)
    reject("matmul: a is {} x {} and b is {} x {}; a needs as many columns as b has rows.", a.rows, a.cols, b.rows, b.cols);
  const int n = a.rows, k = a.cols, m = b.cols, words = n * k + k * m + n * m;
  if (words > kMemWords)
    reject("matmul: a, b and their product need {} words; the machine's memory holds {}: use smaller matrices.", words, kMemWords);
  for (int r = 0; r < n; ++r)
    for (int col = 0; col < m; ++col) {
      __int128 acc = 0;
      for (int j = 0; j < k; ++j) acc += static_cast<__int128>(a.entries[r * k + j]) * b.entries[j * m + col];
      fits(c, acc, fmt::format("entry [{}][{}] of the product", r, col));
    }
  const int bx = std::min(m, 4), by = std::min(n, 4);
  Launch l{.grid_x = (m + bx - 1) / bx, .grid_y = (n + by - 1) / by, .block_x = bx, .block_y = by};
  PreparedCall p = compile(c, l, {array("a", a.entries), array("b", b.entries), zeros("c", n * m), scalar("n", n),
                                  scalar("k", k), scalar("m", m)});
  read_outputs(p, {"c"}, [n, m](const Words& w) {
    json rows = json::array();
    for (int r = 0; r < n; ++r) rows.push_back(std::vector<int32_t>(w[0].begin() + r * m, w[0].begin() + (r + 1) * m));
    return json{{"result", rows}};
  });
  return p;
}

PreparedCall prepare_difference(const Call& c) {
  const int64_t a = integer(c, "a"), b = integer(c, "b");
  fits(c, static_cast<__int128>(a) - b, "the difference");
  PreparedCall p = compile(c, one_block(1), {array("in", {a, b}), zeros("out", 1)});
  read_outputs(p, {"out"}, first_word);
  return p;
}

PreparedCall prepare_power(const Call& c) {
  const int64_t base = integer(c, "base"), exponent = integer(c, "exponent");
  if (exponent < 0) reject("power: exponent is {}; the machine has integers only, so give an exponent of 0 or more.", exponent);
  __int128 v = 1;
  if (base == 0) v = exponent == 0 ? 1 : 0;
  else if (base == -1) v = exponent % 2 ? -1 : 1;
  else if (base != 1)  // |base| >= 2: out of range within 32 rounds
    for (int64_t i = 0; i < exponent && v >= kMin32 && v <= kMax32; ++i) v *= base;
  fits(c, v, fmt::format("{} to the power {}", base, exponent));
  PreparedCall p = compile(c, one_block(1), {array("in", {base, exponent}), zeros("out", 1)});
  read_outputs(p, {"out"}, first_word);
  return p;
}

PreparedCall prepare_factorial(const Call& c) {
  const int64_t n = integer(c, "n");
  if (n < 0 || n > kMaxFactorial)
    reject("factorial: n is {}; the machine computes in 32-bit integers, so n must be 0 to {} (13! = 6227020800 does not "
           "fit).", n, kMaxFactorial);
  PreparedCall p = compile(c, one_block(1), {array("in", {n}), zeros("out", 1)});
  read_outputs(p, {"out"}, first_word);
  return p;
}

// gcd and lcm: two integers above -2^31 (|-2^31| does not fit in 32 bits).
std::pair<int64_t, int64_t> two_integers(const Call& c) {
  const int64_t a = integer(c, "a"), b = integer(c, "b");
  for (auto [name, v] : {std::pair{"a", a}, std::pair{"b", b}})
    if (v == kMin32)
      reject("{}: {} is -2147483648, whose magnitude does not fit in 32 bits; use -2147483647 to 2147483647.", c.tool, name);
  return {a, b};
}

PreparedCall prepare_gcd(const Call& c) {
  auto [a, b] = two_integers(c);
  PreparedCall p = compile(c, one_block(1), {array("in", {a, b}), zeros("out", 1)});
  read_outputs(p, {"out"}, first_word);
  return p;
}

PreparedCall prepare_lcm(const Call& c) {
  auto [a, b] = two_integers(c);
  const int64_t x = std::abs(a), y = std::abs(b), g = std::gcd(x, y);
  fits(c, g == 0 ? 0 : static_cast<__int128>(x / g) * y, "the least common multiple");
  PreparedCall p = compile(c, one_block(1), {array("in", {a, b}), zeros("out", 2)});
  read_outputs(p, {"out"}, [](const Words& w) { return json{{"result", w[0][0]}, {"gcd", w[0][1]}}; });
  return p;
}

PreparedCall prepare_sort(const Call& c) {
  Ints v = integers(c, "values", kMaxSort);
  const int n = static_cast<int>(v.size());
  PreparedCall p = compile(c, one_block(n), {array("values", v), zeros("sorted", n), scalar("n", n)});
  read_outputs(p, {"sorted"}, whole_array);
  return p;
}

PreparedCall prepare_is_prime(const Call& c) {
  const int64_t n = integer(c, "n");
  if (n < 0 || n > kMaxPrime)
    reject("is_prime: n is {}; the machine tests 0 to {} by trial division (a larger n takes too many steps).", n, kMaxPrime);
  PreparedCall p = compile(c, one_block(kMaxBlockThreads), {array("in", {n}), zeros("out", 2)});
  read_outputs(p, {"out"}, [](const Words& w) { return json{{"result", w[0][0] != 0}, {"smallest_factor", w[0][1]}}; });
  return p;
}

// ---- The table --------------------------------------------------------------------------

json integer_param(const std::string& description) { return json{{"type", "integer"}, {"description", description}}; }
json list_param(const std::string& description) {
  return json{{"type", "array"}, {"items", {{"type", "integer"}}}, {"description", description}};
}
json real_list_param(const std::string& description) {
  return json{{"type", "array"}, {"items", {{"type", "number"}}}, {"description", description}};
}
json matrix_param(const std::string& description) {
  return json{{"type", "array"}, {"items", {{"type", "array"}, {"items", {{"type", "integer"}}}}}, {"description", description}};
}
json object_schema(json properties) {
  json required = json::array();
  for (auto it = properties.begin(); it != properties.end(); ++it) required.push_back(it.key());
  return json{{"type", "object"}, {"properties", std::move(properties)}, {"required", std::move(required)}};
}

struct Tool {
  LibraryKernel kernel;
  PreparedCall (*prepare)(const Call&);
};

Tool tool(const std::string& name, const std::string& description, json properties, PreparedCall (*prepare)(const Call&)) {
  return {{name, description, object_schema(std::move(properties)), fmt::format("kernels/library/{}.cu", name)}, prepare};
}

std::vector<Tool> make_tools() {
  const std::string values = fmt::format("the integers (1 to {})", kMaxValues);
  return {
      tool("sum", "Adds a list of integers. Result: the sum.", {{"values", list_param(values)}}, prepare_sum),
      tool("difference", "Subtracts two integers. Result: a - b.",
           {{"a", integer_param("the number to subtract from")}, {"b", integer_param("the number to subtract")}}, prepare_difference),
      tool("product", "Multiplies a list of integers. Result: the product.", {{"values", list_param(values)}}, prepare_product),
      tool("mean", "The mean of a list of integers, exactly. Result: the mean rounded down; remainder: sum - result * count "
                   "(0 when the mean is a whole number), so the exact mean is result + remainder / count.",
           {{"values", list_param(values)}}, prepare_mean),
      tool("mean_float", "The mean of a list of real numbers in 32-bit floats, as a GPU computes it: the values added in "
                         "order, then divided by the count, each step rounded to the nearest float. Result: the mean; "
                         "sum: the sum.",
           {{"values", real_list_param(fmt::format("the numbers (1 to {})", kMaxValues))}}, prepare_mean_float),
      tool("min_max", "The smallest and largest of a list of integers. Result: [min, max] (also as min and max).",
           {{"values", list_param(fmt::format("the integers (1 to {})", kMaxMinMax))}}, prepare_min_max),
      tool("dot", "The dot product of two integer vectors of the same length. Result: the sum of a[i] * b[i].",
           {{"a", list_param(fmt::format("the first vector (1 to {} integers)", kMaxDot))},
            {"b", list_param("the second vector, as long as a")}}, prepare_dot),
      tool("dot_float", "The dot product of two vectors of real numbers in 32-bit floats, as a GPU computes it: each "
                        "product and each partial sum rounded to the nearest float. Result: the sum of a[i] * b[i].",
           {{"a", real_list_param(fmt::format("the first vector (1 to {} numbers)", kMaxDotFloat))},
            {"b", real_list_param("the second vector, as long as a")}}, prepare_dot_float),
      tool("vector_op", "An elementwise operation on two integer vectors of the same length. Result: the vector of a[i] op b[i].",
           {{"a", list_param(fmt::format("the first vector (1 to {} integers)", kMaxVector))},
            {"b", list_param("the second vector, as long as a")},
            {"op", {{"type", "string"}, {"enum", {"add", "sub", "mul", "min", "max"}},
                    {"description", "add (a + b), sub (a - b), mul (a * b), min or max"}}}}, prepare_vector_op),
      tool("matmul", "Multiplies two integer matrices given as lists of rows. Result: the product matrix as a list of rows.",
           {{"a", matrix_param(fmt::format("the left matrix, n x k (at most {} x {})", kMaxDim, kMaxDim))},
            {"b", matrix_param("the right matrix, k x m (as many rows as a has columns)")}}, prepare_matmul),
      tool("power", "Raises an integer to a whole power. Result: base ^ exponent (0 ^ 0 = 1).",
           {{"base", integer_param("the base")}, {"exponent", integer_param("the exponent, 0 or more")}}, prepare_power),
      tool("factorial", "The factorial of n. Result: n! = 1 * 2 * ... * n (0! = 1).",
           {{"n", integer_param(fmt::format("0 to {}", kMaxFactorial))}}, prepare_factorial),
      tool("gcd", "The greatest common divisor of two integers. Result: gcd(|a|, |b|) (gcd(0, 0) = 0).",
           {{"a", integer_param("the first integer")}, {"b", integer_param("the second integer")}}, prepare_gcd),
      tool("lcm", "The least common multiple of two integers. Result: lcm(|a|, |b|) (0 when either is 0); gcd: their gcd.",
           {{"a", integer_param("the first integer")}, {"b", integer_param("the second integer")}}, prepare_lcm),
      tool("sort", "Sorts a list of integers ascending. Result: the sorted list.",
           {{"values", list_param(fmt::format("the integers (1 to {})", kMaxSort))}}, prepare_sort),
      tool("is_prime", "Whether n is a prime number. Result: true or false; smallest_factor: n's smallest prime factor "
                       "(n itself when prime, 0 below 2).",
           {{"n", integer_param(fmt::format("0 to {}", kMaxPrime))}}, prepare_is_prime),
  };
}

const std::vector<Tool>& tools() {
  static const std::vector<Tool> t = make_tools();
  return t;
}

}  // namespace

const std::vector<LibraryKernel>& library() {
  static const std::vector<LibraryKernel> kernels = [] {
    std::vector<LibraryKernel> k;
    for (const Tool& t : tools()) k.push_back(t.kernel);
    return k;
  }();
  return kernels;
}

nlohmann::ordered_json library_tools() {
  json out = json::array();
  for (const LibraryKernel& k : library())
    out.push_back({{"type", "function"},
                   {"function", {{"name", k.name}, {"description", k.description}, {"parameters", k.parameters}}}});
  return out;
}

PreparedCall prepare_call(const engine::ToolCall& call) {
  for (const Tool& t : tools()) {
    if (t.kernel.name != call.name) continue;
    Call c{call.name, call.arguments};
    check_names(c, t.kernel.parameters);
    return t.prepare(c);
  }
  std::string names;
  for (const Tool& t : tools()) names += fmt::format("{}{}", names.empty() ? "" : ", ", t.kernel.name);
  reject("unknown tool '{}'; the tools are {}.", call.name, names);
}

}  // namespace qgpu::chat
