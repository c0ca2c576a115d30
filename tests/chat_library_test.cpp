// The ready-made kernels of `qgpu chat` (src/chat/library.h): every tool, run on the
// interpreter for several argument sets, answers what the test computes on its own; bad
// calls get their exact one-sentence error; the tools array renders through the chat
// template; the shipped eval questions' answers are what their calls compute; and each tool
// once inside the compiled GPU-only model reads back the interpreter's result.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <iostream>
#include <numeric>
#include <set>
#include <tuple>

#include "chat/assets.h"
#include "chat/library.h"
#include "engine/model.h"
#include "gpu/f32.h"
#include "gpu/interp.h"
#include "host/launch.h"
#include "lift/machine_model.h"
#include "test_util.h"

namespace qgpu::chat {
namespace {

using json = nlohmann::ordered_json;

// The call prepared and run on the interpreter; its result, and the launch's record count.
struct Ran {
  json result;
  size_t records = 0;
};

Ran run_tool(const std::string& tool, const json& args) {
  PreparedCall p = prepare_call({tool, args});
  Trace t = run(p.kernel.program, p.kernel.program.launch);
  return {p.result(t.final), t.records.size()};
}

json result_of(const std::string& tool, const json& args) { return run_tool(tool, args).result["result"]; }

std::string error_of(const std::string& tool, const json& args) {
  try {
    prepare_call({tool, args});
  } catch (const ToolError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ChatLibrary, ReductionsAnswerWhatTheTestComputes) {
  const std::vector<std::vector<int64_t>> lists = {
      {12, 7, 30, 5}, {42}, {-5, 3, -8, 100, 0, 7, 7, -2, 11}, {1000000, -999999, 123456, -7, 65536, 3, 9, 1, 2, 5, 6, 8, 4, 2, 1, 0, -40, 77}};
  for (const auto& v : lists) {
    json args = {{"values", v}};
    EXPECT_EQ(result_of("sum", args), std::accumulate(v.begin(), v.end(), int64_t{0})) << args.dump();
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    Ran mm = run_tool("min_max", args);
    EXPECT_EQ(mm.result["result"], json({*lo, *hi})) << args.dump();
    EXPECT_EQ(mm.result["min"], *lo);
    EXPECT_EQ(mm.result["max"], *hi);
    std::vector<int64_t> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    if (v.size() <= 16) {
      EXPECT_EQ(result_of("sort", args), json(sorted)) << args.dump();
    }
  }
  EXPECT_EQ(result_of("sum", {{"values", std::vector<int64_t>(100, 21474836)}}), 2147483600);
  EXPECT_EQ(result_of("product", {{"values", {2, 3, 4, 5}}}), 120);
  EXPECT_EQ(result_of("product", {{"values", {-1, 2, -3, 4, 5, 1, 1, -7}}}), -840);
  EXPECT_EQ(result_of("product", {{"values", {65536, 0, 65536}}}), 0);
  EXPECT_EQ(result_of("sort", {{"values", {16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1}}}),
            json({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}));
}

// The mean: rounded down, with a remainder in 0..count-1 (so negative sums round down too).
TEST(ChatLibrary, MeanIsExact) {
  for (const std::vector<int64_t>& v : std::vector<std::vector<int64_t>>{{1, 2, 3, 5}, {-7, 2, 1}, {10, 20, 30}, {-7}, {-7, 4}}) {
    const int64_t n = static_cast<int64_t>(v.size()), total = std::accumulate(v.begin(), v.end(), int64_t{0});
    int64_t q = total / n, r = total % n;
    if (r < 0) r += n, q -= 1;
    json got = run_tool("mean", {{"values", v}}).result;
    EXPECT_EQ(got, json({{"result", q}, {"remainder", r}, {"count", n}, {"sum", total}})) << json(v).dump();
  }
}

TEST(ChatLibrary, VectorToolsAnswerWhatTheTestComputes) {
  const std::vector<int64_t> a = {1, -2, 3, 40, 5, 6, -7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18};
  const std::vector<int64_t> b = {3, 3, -3, 3, 30, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, -100};
  int64_t dot = 0;
  for (size_t i = 0; i < a.size(); ++i) dot += a[i] * b[i];
  EXPECT_EQ(result_of("dot", {{"a", a}, {"b", b}}), dot);
  EXPECT_EQ(result_of("dot", {{"a", {1, 2, 3}}, {"b", {4, 5, 6}}}), 32);
  for (const char* op : {"add", "sub", "mul", "min", "max"}) {
    std::vector<int64_t> want;
    for (size_t i = 0; i < a.size(); ++i) {
      const std::string o = op;
      want.push_back(o == "add" ? a[i] + b[i] : o == "sub" ? a[i] - b[i] : o == "mul" ? a[i] * b[i]
                     : o == "min" ? std::min(a[i], b[i]) : std::max(a[i], b[i]));
    }
    EXPECT_EQ(result_of("vector_op", {{"a", a}, {"b", b}, {"op", op}}), json(want)) << op;
    EXPECT_EQ(result_of("vector_op", {{"a", {a[0], a[1], a[2]}}, {"b", {b[0], b[1], b[2]}}, {"op", op}}),
              json({want[0], want[1], want[2]})) << op;
  }
}

// The float tools compute what binary32 arithmetic in the kernel's order gives: the test adds
// and multiplies in volatile floats (one rounding a step, nothing fused), with the cases a
// float sum is known for: a small value lost beside a large one, -0, overflow to infinity,
// infinity minus infinity, subnormals, and 0.1 and friends that no float holds exactly.
TEST(ChatLibrary, FloatToolsComputeInFloats) {
  // NVIDIA's NaN is 0x7fffffff (docs/isa.md); the host's inf - inf is 0xffc00000.
  auto bits = [](float x) { return std::isnan(x) ? 0x7fffffffu : std::bit_cast<uint32_t>(x); };
  const std::vector<std::vector<double>> lists = {
      {1.5, 2.25, -0.75, 0.1}, {1e30, 1, -1e30}, {-0.0}, {3e38, 3e38}, {1e-45, 1e-45, 1e-45}, {0.1, 0.2, 0.3},
      {7}, {-2.5, 1e-3, 123456.789, -7.25e-5, 42, 0.3333333333}};
  for (const std::vector<double>& v : lists) {
    volatile float s = 0.0f;
    for (double x : v) s = s + static_cast<float>(x);
    volatile float mean = s / static_cast<float>(v.size());
    const json got = run_tool("mean_float", {{"values", v}}).result;
    EXPECT_EQ(got, json({{"result", f32_json(bits(mean))}, {"sum", f32_json(bits(s))}})) << json(v).dump();
  }
  const std::vector<std::pair<std::vector<double>, std::vector<double>>> pairs = {
      {{1.5, 2, -0.1}, {4, 0.25, 3}}, {{0.1, 0.2, 0.3}, {0.3, 0.2, 0.1}}, {{1e20, 1, -1e20}, {1e20, 1, 1e20}},
      {{3e38}, {2}}, {{1e-30}, {1e-30}}, {{-0.0}, {5}}};
  for (const auto& [a, b] : pairs) {
    volatile float s = 0.0f;
    for (size_t i = 0; i < a.size(); ++i) {
      volatile float p = static_cast<float>(a[i]) * static_cast<float>(b[i]);
      s = s + p;
    }
    EXPECT_EQ(result_of("dot_float", {{"a", a}, {"b", b}}), json(f32_json(bits(s)))) << json(a).dump() << json(b).dump();
  }
  // 100 values and 60-long vectors, the most the tools take (the interpreter's record counts
  // bound their launches: about 500 records a value for dot_float on one thread).
  std::vector<double> many, x, y;
  for (int i = 0; i < 100; ++i) many.push_back(0.01 * i - 0.3);
  for (int i = 0; i < 60; ++i) x.push_back(1.0 / (i + 1)), y.push_back(i % 7 - 3.5);
  volatile float s = 0.0f, d = 0.0f;
  for (double v : many) s = s + static_cast<float>(v);
  volatile float mean = s / 100.0f;
  for (size_t i = 0; i < x.size(); ++i) {
    volatile float p = static_cast<float>(x[i]) * static_cast<float>(y[i]);
    d = d + p;
  }
  Ran m = run_tool("mean_float", {{"values", many}}), t = run_tool("dot_float", {{"a", x}, {"b", y}});
  EXPECT_EQ(m.result["result"], json(f32_json(bits(mean))));
  EXPECT_EQ(t.result["result"], json(f32_json(bits(d))));
  std::cout << "[ largest ] mean_float: " << m.records << " records; dot_float: " << t.records << " records\n";
}

TEST(ChatLibrary, MatmulAnswersWhatTheTestComputes) {
  auto product = [](const json& a, const json& b) {
    json c = json::array();
    for (size_t r = 0; r < a.size(); ++r) {
      json row = json::array();
      for (size_t col = 0; col < b[0].size(); ++col) {
        int64_t acc = 0;
        for (size_t k = 0; k < b.size(); ++k) acc += a[r][k].get<int64_t>() * b[k][col].get<int64_t>();
        row.push_back(acc);
      }
      c.push_back(row);
    }
    return c;
  };
  json six = json::array();
  for (int r = 0; r < 6; ++r) {
    json row = json::array();
    for (int c = 0; c < 6; ++c) row.push_back((r * 7 + c * 3) % 11 - 5);
    six.push_back(row);
  }
  const std::vector<std::pair<json, json>> cases = {
      {{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}}, {{{1, 2, 3}, {4, 5, 6}}, {{1}, {0}, {-1}}}, {{{2, -1, 7}}, {{3}, {4}, {5}}}, {six, six}};
  for (const auto& [a, b] : cases) EXPECT_EQ(result_of("matmul", {{"a", a}, {"b", b}}), product(a, b)) << a.dump() << b.dump();
}

TEST(ChatLibrary, ScalarToolsAnswerWhatTheTestComputes) {
  EXPECT_EQ(result_of("difference", {{"a", 100}, {"b", 58}}), 42);
  EXPECT_EQ(result_of("difference", {{"a", -7}, {"b", 12}}), -19);
  EXPECT_EQ(result_of("difference", {{"a", -2147483647}, {"b", 1}}), -2147483648LL);
  for (auto [base, exponent] : std::vector<std::pair<int64_t, int64_t>>{{3, 5}, {-2, 31}, {2, 30}, {0, 0}, {-1, 12345}, {7, 1}, {10, 9}}) {
    int64_t want = 1;
    for (int64_t i = 0; i < std::min<int64_t>(exponent, 64); ++i) want *= base;
    if (base == -1) want = exponent % 2 ? -1 : 1;
    EXPECT_EQ(result_of("power", {{"base", base}, {"exponent", exponent}}), want) << base << "^" << exponent;
  }
  int64_t f = 1;
  for (int n = 0; n <= 12; ++n) {
    if (n > 0) f *= n;
    if (n == 0 || n == 1 || n == 5 || n == 12) {
      EXPECT_EQ(result_of("factorial", {{"n", n}}), f) << n;
    }
  }
  for (auto [a, b] : std::vector<std::pair<int64_t, int64_t>>{{1071, 462}, {-48, 0}, {0, 0}, {96, -36}, {1836311903, 1134903170}, {17, 5}}) {
    const int64_t g = std::gcd(a, b);
    EXPECT_EQ(result_of("gcd", {{"a", a}, {"b", b}}), g) << a << " " << b;
    if (g == 0 || std::abs(a / g * b) <= 2147483647) {
      json got = run_tool("lcm", {{"a", a}, {"b", b}}).result;
      EXPECT_EQ(got, json({{"result", std::lcm(a, b)}, {"gcd", g}})) << a << " " << b;
    }
  }
  for (int n : {0, 1, 2, 3, 4, 91, 97, 221, 7919, 9973, 10000}) {
    int smallest = 0;
    for (int d = 2; n >= 2 && !smallest; ++d)
      if (n % d == 0) smallest = d;
    json got = run_tool("is_prime", {{"n", n}}).result;
    EXPECT_EQ(got, json({{"result", n >= 2 && smallest == n}, {"smallest_factor", smallest}})) << n;
  }
}

// The largest call each tool accepts fits the machine's memory and answers correctly; the
// record counts printed bound the launch (~2000 records a second on the model).
TEST(ChatLibrary, LargestCallsFit) {
  auto count = [](int n, int from) {
    std::vector<int64_t> v(n);
    std::iota(v.begin(), v.end(), from);
    return v;
  };
  auto sum = [](const std::vector<int64_t>& v) { return std::accumulate(v.begin(), v.end(), int64_t{0}); };
  json a58 = json::array(), b85 = json::array(), want = json::array();
  for (int r = 0; r < 5; ++r) a58.push_back(count(8, r));
  for (int r = 0; r < 8; ++r) b85.push_back(count(5, -r));
  for (int r = 0; r < 5; ++r) {
    json row = json::array();
    for (int col = 0; col < 5; ++col) {
      int64_t acc = 0;
      for (int k = 0; k < 8; ++k) acc += (r + k) * (col - k);
      row.push_back(acc);
    }
    want.push_back(row);
  }
  std::vector<int64_t> down = count(16, -8);
  std::reverse(down.begin(), down.end());
  std::vector<int64_t> squares;
  for (int64_t x : count(50, -20)) squares.push_back(x * x);
  const std::vector<std::tuple<std::string, json, json>> calls = {
      {"sum", {{"values", count(100, -30)}}, sum(count(100, -30))},
      {"mean", {{"values", count(100, -30)}}, sum(count(100, -30)) / 100},
      {"product", {{"values", std::vector<int64_t>(100, -1)}}, 1},
      {"min_max", {{"values", count(90, -45)}}, {-45, 44}},
      {"dot", {{"a", count(50, -20)}, {"b", count(50, -20)}}, sum(squares)},
      {"vector_op", {{"a", count(40, 0)}, {"b", count(40, 0)}, {"op", "sub"}}, std::vector<int64_t>(40, 0)},
      {"matmul", {{"a", a58}, {"b", b85}}, want},
      {"sort", {{"values", down}}, count(16, -8)},
      {"is_prime", {{"n", 9973}}, true},
      {"gcd", {{"a", 1836311903}, {"b", 1134903170}}, 1},
      {"power", {{"base", 1}, {"exponent", 2147483647}}, 1}};
  for (const auto& [tool, args, answer] : calls) {
    Ran r = run_tool(tool, args);
    EXPECT_EQ(r.result["result"], answer) << tool;
    std::cout << "[ largest ] " << tool << ": " << r.records << " records\n";
  }
}

// Values may come as numbers, as JSON inside strings, or as integral floats.
TEST(ChatLibrary, ArgumentsMayArriveAsStringsHoldingJson) {
  EXPECT_EQ(result_of("sum", {{"values", "[1, 2, 3]"}}), 6);
  EXPECT_EQ(result_of("difference", {{"a", "10"}, {"b", 4.0}}), 6);
  EXPECT_EQ(result_of("matmul", {{"a", "[[1, 2], [3, 4]]"}, {"b", "[[1, 0], [0, 1]]"}}), json({{1, 2}, {3, 4}}));
  EXPECT_EQ(result_of("vector_op", {{"a", {1, 2}}, {"b", {3, 4}}, {"op", "\"mul\""}}), json({3, 8}));  // quoted
}

TEST(ChatLibrary, BadCallsGetOneSentence) {
  EXPECT_EQ(error_of("sqrt", {{"x", 4}}),
            "unknown tool 'sqrt'; the tools are sum, difference, product, mean, mean_float, min_max, dot, dot_float, "
            "vector_op, matmul, power, factorial, gcd, lcm, sort, is_prime.");
  EXPECT_EQ(error_of("sum", json::object()), "sum: missing argument 'values' (the integers (1 to 100)).");
  EXPECT_EQ(error_of("sum", {{"values", {1}}, {"n", 1}}), "sum: unknown argument 'n'; it takes values.");
  EXPECT_EQ(error_of("sum", {{"values", "one, two"}}), "sum: values must be a list of integers such as [1, 2, 3], not \"one, two\".");
  EXPECT_EQ(error_of("sum", {{"values", json::array()}}), "sum: values is empty; give at least one number.");
  EXPECT_EQ(error_of("sum", {{"values", std::vector<int>(200, 1)}}), "sum: values has 200 numbers; the machine holds at most 100.");
  EXPECT_EQ(error_of("sum", {{"values", {1, 2.5}}}),
            "sum: values[1] must be an integer (this tool computes in 32-bit integers; mean_float and dot_float take "
            "fractions), not 2.5.");
  EXPECT_EQ(error_of("mean_float", {{"values", "1.5 and 2"}}),
            "mean_float: values must be a list of numbers such as [1.5, -2, 0.25], not \"1.5 and 2\".");
  EXPECT_EQ(error_of("mean_float", {{"values", {1.5, "two"}}}), "mean_float: values[1] must be a number, not \"two\".");
  EXPECT_EQ(error_of("mean_float", {{"values", {1.5, 1e39}}}),
            "mean_float: values[1] is 1e+39, outside the machine's 32-bit floats (magnitudes 1.4e-45 to 3.4028235e+38, or 0).");
  EXPECT_EQ(error_of("mean_float", {{"values", {-1e-50}}}),
            "mean_float: values[0] is -1e-50, outside the machine's 32-bit floats (magnitudes 1.4e-45 to 3.4028235e+38, or 0).");
  EXPECT_EQ(error_of("mean_float", {{"values", json::array()}}), "mean_float: values is empty; give at least one number.");
  EXPECT_EQ(error_of("dot_float", {{"a", std::vector<double>(61, 1.5)}, {"b", std::vector<double>(61, 1.5)}}),
            "dot_float: a has 61 numbers; the machine holds at most 60.");
  EXPECT_EQ(error_of("dot_float", {{"a", {1.5, 2}}, {"b", {1}}}),
            "dot_float: a has 2 numbers but b has 1; give two lists of the same length.");
  EXPECT_EQ(error_of("sum", {{"values", {1, 3000000000LL}}}),
            "sum: values[1] is 3000000000, outside the machine's 32-bit integers (-2147483648 to 2147483647).");
  EXPECT_EQ(error_of("sum", {{"values", {2147483647, 1}}}),
            "sum: the sum would be outside the machine's 32-bit integers (-2147483648 to 2147483647), which the machine "
            "computes in; use smaller numbers.");
  EXPECT_EQ(error_of("factorial", {{"n", 13}}),
            "factorial: n is 13; the machine computes in 32-bit integers, so n must be 0 to 12 (13! = 6227020800 does not fit).");
  EXPECT_EQ(error_of("power", {{"base", 2}, {"exponent", 31}}),
            "power: 2 to the power 31 would be outside the machine's 32-bit integers (-2147483648 to 2147483647), which "
            "the machine computes in; use smaller numbers.");
  EXPECT_EQ(error_of("power", {{"base", 2}, {"exponent", -1}}),
            "power: exponent is -1; the machine has integers only, so give an exponent of 0 or more.");
  EXPECT_EQ(error_of("matmul", {{"a", {{1, 2}, {3, 4}}}, {"b", {{1, 2}}}}),
            "matmul: a is 2 x 2 and b is 1 x 2; a needs as many columns as b has rows.");
  EXPECT_EQ(error_of("matmul", {{"a", {{1, 2}, {3}}}, {"b", {{1}, {2}}}}),
            "matmul: row 2 of a has 1 numbers but row 1 has 2; every row needs the same length.");
  EXPECT_EQ(error_of("dot", {{"a", {1, 2}}, {"b", {1}}}), "dot: a has 2 numbers but b has 1; give two lists of the same length.");
  EXPECT_EQ(error_of("vector_op", {{"a", {1}}, {"b", {1}}, {"op", "div"}}),
            "vector_op: op is \"div\"; use one of \"add\", \"sub\", \"mul\", \"min\", \"max\".");
  EXPECT_EQ(error_of("gcd", {{"a", -2147483648LL}, {"b", 2}}),
            "gcd: a is -2147483648, whose magnitude does not fit in 32 bits; use -2147483647 to 2147483647.");
  EXPECT_EQ(error_of("sort", {{"values", std::vector<int>(17, 1)}}), "sort: values has 17 numbers; the machine holds at most 16.");
}

TEST(ChatLibrary, ToolsArrayHasEveryToolAndRenders) {
  json tools = library_tools();
  ASSERT_EQ(tools.size(), library().size());
  for (const json& t : tools) {
    EXPECT_EQ(t["type"], "function");
    const json& f = t["function"];
    ASSERT_TRUE(f["name"].is_string() && f["description"].is_string()) << t.dump();
    const json& p = f["parameters"];
    EXPECT_EQ(p["type"], "object");
    ASSERT_TRUE(p["required"].is_array() && !p["required"].empty()) << t.dump();
    for (const json& r : p["required"]) EXPECT_TRUE(p["properties"].contains(r.get<std::string>())) << t.dump();
    for (const auto& [name, schema] : p["properties"].items()) EXPECT_TRUE(schema.contains("description")) << name;
  }
  for (const LibraryKernel& k : library()) EXPECT_FALSE(chat_asset(k.file).empty()) << k.file;
  std::string prompt = engine::render_chat({{.role = "user", .content = "What is 2 + 3?"}}, {.tools = tools});
  for (const LibraryKernel& k : library()) EXPECT_NE(prompt.find("\"" + k.name + "\""), std::string::npos) << k.name;
}

// Every shipped question's expected call computes its answer, so the file cannot drift.
TEST(ChatLibrary, EvalQuestionsAnswerThemselves) {
  json questions = json::parse(chat_asset("src/chat/eval_questions.json"));
  ASSERT_GE(questions.size(), 25u);
  std::set<std::string> tools, ids;
  for (const json& q : questions) {
    EXPECT_TRUE(ids.insert(q["id"].get<std::string>()).second) << "duplicate id " << q["id"];
    ASSERT_TRUE(q["question"].is_string() && q.contains("answer") && q["kind"].is_string()) << q.dump();
    EXPECT_EQ(result_of(q["tool"], q["arguments"]), q["answer"]) << q["id"];
    tools.insert(q["tool"].get<std::string>());
  }
  for (const LibraryKernel& k : library())  // is_prime answers yes or no: eval scores numbers
    if (k.name != "is_prime") {
      EXPECT_TRUE(tools.count(k.name)) << k.name << " has no question";
    }
}

// One launch of each tool, generated by the compiled GPU-only model (bf16): the model can
// generate every op the kernels use, and the result read out of its state is the
// interpreter's. Record counts are printed (they bound a chat turn's launch time). Under
// ASan+UBSan (the engine about 10x slower) an integer tool and a float one: the code they
// run is the same for every tool, and the 6,000 records of all of them took 50 s there.
TEST(ChatLibrary, EveryToolRunsInsideTheModel) {
  const std::vector<std::pair<std::string, json>> calls = {
      {"sum", {{"values", {12, 7, 30, 5}}}}, {"difference", {{"a", 100}, {"b", 58}}},
      {"product", {{"values", {2, 3, 4, 5}}}}, {"mean", {{"values", {-7, 2, 1}}}},
      {"mean_float", {{"values", {1.5, 2.25, -0.75, 0.1}}}},
      {"min_max", {{"values", {5, -3, 9, 0, 12, 7}}}}, {"dot", {{"a", {1, 2, 3}}, {"b", {4, 5, 6}}}},
      {"dot_float", {{"a", {1.5, 2, -0.1}}, {"b", {4, 0.25, 3}}}},
      {"vector_op", {{"a", {1, 2, 3, 4, 5}}, {"b", {10, 20, 30, 40, 50}}, {"op", "sub"}}},
      {"matmul", {{"a", {{1, 2}, {3, 4}}}, {"b", {{5, 6}, {7, 8}}}}}, {"power", {{"base", 3}, {"exponent", 5}}},
      {"factorial", {{"n", 6}}}, {"gcd", {{"a", 1071}, {"b", 462}}}, {"lcm", {{"a", 4}, {"b", 6}}},
      {"sort", {{"values", {5, 1, 4, 2, 3}}}}, {"is_prime", {{"n", 97}}}};
  ASSERT_EQ(calls.size(), library().size());
  const engine::Model& m = test_util::gpu_model(engine::DType::bf16);
  for (const auto& [tool, args] : calls) {
#if defined(QGPU_ASAN)
    if (tool != "sum" && tool != "dot_float") continue;
#endif
    PreparedCall p = prepare_call({tool, args});
    const Program& prog = p.kernel.program;
    ASSERT_FALSE(lift::generation_gap(prog.code, prog.launch)) << tool;
    Trace want = run(prog, prog.launch);
    host::ModelRun got = host::generate_launch(m, {.threads = 1, .skip_zero_rows = true}, encode_image(prog, prog.launch), 200000);
    EXPECT_EQ(p.result(got.trace.final), p.result(want.final)) << tool;
    EXPECT_EQ(got.trace.records.size(), want.records.size()) << tool;
    std::cout << "[ library ] " << tool << ": " << want.records.size() << " records, " << got.seconds << " s, "
              << p.result(got.trace.final).dump() << "\n";
  }
}

}  // namespace
}  // namespace qgpu::chat
