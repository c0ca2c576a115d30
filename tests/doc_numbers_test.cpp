// The figures the README and the docs state about the machine, the model and the corpus,
// checked against the code that they describe. A figure is marked in the Markdown by an
// HTML comment right after it, which renders as nothing:
//
//   the GPU is 15<!--n:gpu.layers--> layers on a 2,592<!--n:gpu.hidden-->-dim residual
//
// and this test computes every named fact (the construction, isa.h, the corpus files, the
// chat's tools and questions, the fuzz harnesses) and fails, naming the file and line,
// when a marked figure differs from it. A figure written with a unit (`3.35 M`, `3.3 G`,
// `12 k`) is checked at the precision written. A marker with an unknown name fails too.
// QGPU_PRINT_FACTS=1 prints every fact's value.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "chat/assets.h"
#include "chat/eval.h"
#include "chat/library.h"
#include "gpu/isa.h"
#include "gpu/vocab.h"
#include "lift/builder.h"
#include "lift/machine_model.h"
#include "test_util.h"

namespace qgpu {
namespace {

namespace fs = std::filesystem;
const fs::path kRoot = QGPU_SOURCE_DIR;

// Every fact a document may cite, by name.
std::map<std::string, double> facts() {
  std::map<std::string, double> f;
  // The machine (isa.h).
  f["machine.warps"] = kWarps;
  f["machine.lanes"] = kLanes;
  f["machine.threads"] = kMaxBlockThreads;
  f["machine.registers"] = kRegs;
  f["machine.predicates"] = kPreds;
  f["machine.blocks"] = kBlocks;
  f["machine.memory_words"] = kMemWords;
  f["machine.ops"] = kNumOps;
  f["machine.tokens"] = vocab_size();
  // The GPU-only model, as constructed.
  const lift::Builder b = lift::build_machine();
  const lift::MachineCounts counts = lift::machine_counts(b);
  f["gpu.hidden"] = b.config.hidden_size;
  f["gpu.layers"] = b.config.num_hidden_layers;
  f["gpu.deltanet_layers"] = 0;
  for (int il = 0; il < b.config.num_hidden_layers; ++il) f["gpu.deltanet_layers"] += b.config.is_linear(il);
  f["gpu.intermediate"] = b.config.intermediate_size;
  f["gpu.params"] = static_cast<double>(counts.parameters);
  f["gpu.nonzeros"] = static_cast<double>(counts.nonzero);
  // The corpus: kernels/NAME.cu with kernels/expected/NAME.json; a float kernel names
  // float parameters in its expected outputs.
  int kernels = 0, cases = 0, float_kernels = 0;
  for (const auto& e : fs::directory_iterator(kRoot / "kernels")) {
    if (e.path().extension() != ".cu") continue;
    const fs::path expected = kRoot / "kernels" / "expected" / (e.path().stem().string() + ".json");
    if (!fs::exists(expected)) continue;
    const nlohmann::json j = nlohmann::json::parse(test_util::read_file(expected));
    ++kernels;
    cases += static_cast<int>(j.at("cases").size());
    bool floats = !j.value("float_params", nlohmann::json::array()).empty();
    for (const nlohmann::json& c : j.at("cases"))
      floats = floats || !c.value("float_params", nlohmann::json::array()).empty();
    float_kernels += floats;
  }
  f["corpus.kernels"] = kernels;
  f["corpus.cases"] = cases;
  f["corpus.float_kernels"] = float_kernels;
  // The chat, the fuzz harnesses.
  f["chat.tools"] = static_cast<double>(chat::library().size());
  f["chat.eval_questions"] = static_cast<double>(chat::eval_questions().size());
  int harnesses = 0;
  for (const auto& e : fs::directory_iterator(kRoot / "fuzz")) harnesses += e.path().extension() == ".cpp";
  f["fuzz.harnesses"] = harnesses;
  return f;
}

struct Citation {
  std::string where;  // file:line
  std::string text;   // the figure as written ("2,592", "3.35 M")
  std::string name;   // the fact; empty: a marker with no figure before it
};

// The documents a newcomer reads: the READMEs and docs/.
std::vector<fs::path> documents() {
  std::vector<fs::path> docs = {kRoot / "README.md", kRoot / "kernels" / "README.md"};
  for (const auto& e : fs::directory_iterator(kRoot / "docs"))
    if (e.path().extension() == ".md") docs.push_back(e.path());
  return docs;
}

// Every marked figure of the documents.
std::vector<Citation> citations() {
  // A number (digits, thousands commas, a decimal part), an optional unit, the marker.
  const std::regex marked(R"(([0-9][0-9,]*(?:\.[0-9]+)?)(?:\s?([kMG]))?<!--n:([a-z_.]+)-->)");
  const std::regex marker(R"(<!--n:[a-z_.]+-->)");  // (`<!--n:NAME-->` shows the syntax)
  std::vector<Citation> out;
  for (const fs::path& doc : documents()) {
    std::istringstream in(test_util::read_file(doc));
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      const std::string where = fmt::format("{}:{}", fs::relative(doc, kRoot).string(), n);
      int found = 0;
      for (auto it = std::sregex_iterator(line.begin(), line.end(), marked); it != std::sregex_iterator(); ++it, ++found)
        out.push_back({where, (*it)[1].str() + ((*it)[2].matched ? " " + (*it)[2].str() : ""), (*it)[3].str()});
      const auto all = std::distance(std::sregex_iterator(line.begin(), line.end(), marker), std::sregex_iterator());
      if (all != found) out.push_back({where, "", ""});
    }
  }
  return out;
}

// The figure as a number and the precision it was written at (1 for an integer).
std::pair<double, double> parse_figure(const std::string& text) {
  std::string digits;
  int decimals = -1;
  char unit = 0;
  for (char c : text) {
    if (c == ',' || c == ' ') continue;
    if (c == '.') decimals = 0;
    else if (c >= '0' && c <= '9') digits += c, decimals += decimals >= 0;
    else unit = c;
  }
  const double scale = unit == 'k' ? 1e3 : unit == 'M' ? 1e6 : unit == 'G' ? 1e9 : 1;
  const double step = std::pow(10.0, -std::max(decimals, 0)) * scale;
  return {std::stod(digits) * std::pow(10.0, -std::max(decimals, 0)) * scale, step};
}

TEST(DocNumbers, EveryMarkedFigureIsTheCodes) {
  const std::map<std::string, double> f = facts();
  if (std::getenv("QGPU_PRINT_FACTS"))  // for whoever writes a figure: every fact's value
    for (const auto& [name, value] : f) fmt::print("{} = {:.0f}\n", name, value);
  const std::vector<Citation> cited = citations();
  ASSERT_GT(cited.size(), 10u) << "the README and docs mark their figures with <!--n:NAME-->";
  for (const Citation& c : cited) {
    if (c.name.empty()) {
      ADD_FAILURE() << c.where << ": a <!--n:NAME--> marker with no number right before it";
      continue;
    }
    const auto it = f.find(c.name);
    if (it == f.end()) {
      ADD_FAILURE() << c.where << ": " << c.name << " is not a fact this test knows (tests/doc_numbers_test.cpp)";
      continue;
    }
    const auto [value, step] = parse_figure(c.text);
    // Written at a unit's precision: the fact rounded to that precision.
    const double rounded = std::round(it->second / step) * step;
    EXPECT_NEAR(value, rounded, step * 1e-6) << c.where << ": \"" << c.text << "\" for " << c.name << ", but the code says "
                                             << fmt::format("{:.0f}", it->second) << "; correct the document";
  }
}

// Every relative link of the docs leads to a file or directory of the repository.
TEST(DocNumbers, EveryRelativeLinkExists) {
  const std::regex link(R"(\]\(([^)#:\s]+)(#[^)]*)?\))");
  int links = 0;
  for (const fs::path& doc : documents()) {
    const std::string text = test_util::read_file(doc);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), link); it != std::sregex_iterator(); ++it, ++links)
      EXPECT_TRUE(fs::exists(doc.parent_path() / (*it)[1].str()))
          << fs::relative(doc, kRoot).string() << " links to " << (*it)[1].str() << ", which does not exist";
  }
  EXPECT_GT(links, 10);
}

// docs/cuda-reference.md is also advanced mode's system prompt: the markers are stripped
// when it is embedded (cmake/embed_files.cmake), the figures kept.
TEST(DocNumbers, TheSystemPromptHasNoMarkers) {
  const std::string_view prompt = chat::chat_asset("docs/cuda-reference.md");
  EXPECT_EQ(prompt.find("<!--n:"), std::string_view::npos);
  EXPECT_NE(prompt.find("126 words of 32 bits"), std::string_view::npos);
  EXPECT_NE(test_util::read_file(kRoot / "docs" / "cuda-reference.md").find("<!--n:"), std::string::npos);
}

TEST(DocNumbers, FiguresParseAtTheirPrecision) {
  EXPECT_EQ(parse_figure("2,592"), (std::pair<double, double>{2592, 1}));
  const auto [v, step] = parse_figure("3.35 M");
  EXPECT_NEAR(v, 3.35e6, 1e-3);
  EXPECT_NEAR(step, 1e4, 1e-9);
  EXPECT_NEAR(std::round(3353612 / step) * step, v, 1e-3);
  EXPECT_NE(std::round(3453612 / step) * step, v);
}

}  // namespace
}  // namespace qgpu
