// The evaluation: each question in a fresh conversation; the scores are about the answer
// the user reads and about the GPU's own result, separately, so a model that calls the
// right kernel but misquotes it shows as such.
#include "chat/eval.h"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <regex>

#include "base/error.h"
#include "chat/assets.h"
#include "gpu/trace_json.h"

namespace qgpu::chat {
namespace {

using ojson = nlohmann::ordered_json;

// A number of an expected answer: its value, and for a fraction (a float tool's result)
// the significant digits of its shortest text ("7.45": 3), which a said number must give.
struct Want {
  double value = 0;
  int digits = 0;  // 0: an integer, said exactly
};

int significant_digits(std::string_view text) {
  int n = 0;
  bool leading = true;
  for (char c : text) {
    if (c == 'e' || c == 'E') break;
    if (c < '0' || c > '9') continue;
    leading = leading && c == '0';
    n += !leading;
  }
  return n;
}

void flatten(const ojson& j, std::vector<Want>& out) {
  if (j.is_number_integer()) out.push_back({static_cast<double>(j.get<int64_t>())});
  else if (j.is_number()) out.push_back({j.get<double>(), significant_digits(j.dump())});
  else if (j.is_array() || j.is_object())
    for (const ojson& v : j) flatten(v, out);
}

std::vector<Want> flat(const ojson& j) {
  std::vector<Want> out;
  flatten(j, out);
  return out;
}

// A number as written in an answer: "54", "-3", "7.45", "1.5e-3".
struct Said {
  double value = 0;
  int decimals = 0;  // places after the point (less the exponent): "7.45" 2, "1.5e-3" 4
  int digits = 0;    // significant digits written
};

// A fraction is said when it is written to at least its significant digits, or 3 of them,
// and rounds to what was written (7.45 for 7.4499998, 2.48 or 2.483 for 2.4833333), or
// when what was written is the same float (0.0100000007 for 0.010000001).
bool said_is(const Said& s, const Want& w) {
  if (w.digits == 0) return s.value == w.value;
  if (s.digits < std::min(w.digits, 3)) return false;
  return std::abs(s.value - w.value) <= 0.5 * std::pow(10.0, -s.decimals) * (1 + 1e-9) ||
         static_cast<float>(s.value) == static_cast<float>(w.value);
}

bool contains_run(const std::vector<Said>& hay, const std::vector<Want>& needle) {
  if (needle.empty()) return false;
  return std::search(hay.begin(), hay.end(), needle.begin(), needle.end(), said_is) != hay.end();
}

double percent(int n, size_t of) { return of ? 100.0 * n / static_cast<double>(of) : 0.0; }

}  // namespace

std::vector<EvalQuestion> eval_questions() {
  const ojson all = ojson::parse(chat_asset("src/chat/eval_questions.json"));
  std::vector<EvalQuestion> out;
  for (const ojson& q : all) {
    try {
      out.push_back({q.at("id"), q.at("kind"), q.at("question"), q.at("answer"), q.at("tool"), q.at("arguments")});
    } catch (const nlohmann::json::exception& e) {
      fail("src/chat/eval_questions.json: question {}: {}", out.size() + 1, e.what());
    }
  }
  return out;
}

bool answer_matches(std::string_view text, const ojson& expected) {
  std::vector<Said> said;
  static const std::regex number(R"((^|[^0-9A-Za-z_.])(-?([0-9]+)(?:\.([0-9]+))?(?:[eE]([-+]?[0-9]+))?))");
  std::string s(text);
  // "1,234" is one number to a reader; the answers here have no thousands separators.
  for (std::sregex_iterator it(s.begin(), s.end(), number), end; it != end; ++it) {
    const std::string written = (*it)[2], places = (*it)[4], exponent = (*it)[5];
    said.push_back({std::stod(written), static_cast<int>(places.size()) - (exponent.empty() ? 0 : std::stoi(exponent)),
                    significant_digits(written)});
  }
  return contains_run(said, flat(expected));
}

bool launch_matches(const LaunchReport& r, const ojson& expected) {
  if (!r.error.empty()) return false;
  const std::vector<Want> want = flat(expected);
  if (want.empty()) return false;
  auto values = [](const std::vector<Want>& w) {
    std::vector<double> v;
    for (const Want& x : w) v.push_back(x.value);
    return v;
  };
  if (r.result.contains("result")) return values(flat(r.result["result"])) == values(want);
  for (const Array& a : r.program.arrays) {
    if (!r.outputs.contains(a.name)) continue;
    std::vector<double> got = values(flat(r.outputs[a.name]));
    std::vector<double> init = values(flat(ojson(array_json(a, a.init))));
    if (got == init) continue;  // an input the kernel did not write
    if (got == values(want) || (want.size() == 1 && !got.empty() && got[0] == want[0].value)) return true;
  }
  return false;
}

EvalReport run_eval(const engine::Model& model, TextGenerator& text, Mode mode, int samples,
                    const std::function<void(const EvalRow&)>& on_row) {
  std::vector<EvalQuestion> qs = eval_questions();
  if (samples > 0 && static_cast<size_t>(samples) < qs.size()) qs.resize(samples);
  EvalReport report{.mode = mode};
  for (const EvalQuestion& q : qs) {
    EvalRow row{.id = q.id, .question = q.question, .expected = q.answer};
    Session s(model, &text, {.mode = mode});
    const auto start = std::chrono::steady_clock::now();
    try {
      TurnResult t = s.turn(q.question, {});
      row.answer = t.answer;
      row.launches = static_cast<int>(t.launches.size());
      for (const LaunchReport& r : t.launches) {
        row.used_gpu = row.used_gpu || (r.error.empty() && !r.trace.records.empty());
        row.gpu_correct = row.gpu_correct || launch_matches(r, q.answer);
      }
      row.answered_correctly = answer_matches(t.answer, q.answer);
    } catch (const std::exception& e) {
      row.error = e.what();
    }
    row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    report.answered_correctly += row.answered_correctly;
    report.used_gpu += row.used_gpu;
    report.gpu_correct += row.gpu_correct;
    if (on_row) on_row(row);
    report.rows.push_back(std::move(row));
  }
  return report;
}

std::string eval_row_text(const EvalRow& row) {
  return fmt::format("{:<14} {} {} {}  {:5.1f} s  {}{}", row.id, row.answered_correctly ? "answer:ok " : "answer:NO ",
                     row.used_gpu ? "gpu:used" : "gpu:no  ", row.gpu_correct ? "gpu-result:ok" : "gpu-result:NO",
                     row.seconds, row.error.empty() ? row.answer.substr(0, 60) : "error: ", row.error.substr(0, 100));
}

std::string eval_summary_text(const EvalReport& r) {
  const size_t n = r.rows.size();
  return fmt::format("{} mode, {} question{}: answered correctly {} ({:.0f}%), used the GPU {} ({:.0f}%), "
                     "GPU result correct {} ({:.0f}%)",
                     mode_name(r.mode), n, n == 1 ? "" : "s", r.answered_correctly, percent(r.answered_correctly, n), r.used_gpu,
                     percent(r.used_gpu, n), r.gpu_correct, percent(r.gpu_correct, n));
}

ojson eval_json(const EvalReport& r) {
  ojson rows = ojson::array();
  for (const EvalRow& row : r.rows) {
    ojson j = {{"id", row.id}, {"question", row.question}, {"expected", row.expected}, {"answer", row.answer},
               {"answered_correctly", row.answered_correctly}, {"used_gpu", row.used_gpu},
               {"gpu_correct", row.gpu_correct}, {"launches", row.launches}, {"seconds", row.seconds}};
    if (!row.error.empty()) j["error"] = row.error;
    rows.push_back(j);
  }
  return {{"mode", mode_name(r.mode)}, {"questions", r.rows.size()}, {"answered_correctly", r.answered_correctly},
          {"used_gpu", r.used_gpu}, {"gpu_correct", r.gpu_correct}, {"rows", rows}};
}

}  // namespace qgpu::chat
