// The README's and docs/interpretability.md's console examples, run as written: every
// ```console block's `$ qgpu ...` commands run from the repository root, and what they
// print is compared with the lines the document shows. A line ending in `...` shows the start of the printed line (timings
// and long tails elided); a line that is only `...` ends the comparison; a `...` argument
// stands for the arguments after the same file in an earlier command.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.h"

namespace qgpu {
namespace {

namespace fs = std::filesystem;

struct Example {
  int line;                     // of the command in README.md
  std::string args;             // after `qgpu `
  std::vector<std::string> out;
};

std::vector<Example> console_examples(const std::string& readme) {
  std::vector<Example> out;
  std::istringstream in(readme);
  bool console = false;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.starts_with("```")) {
      console = line == "```console";
      continue;
    }
    if (!console) continue;
    if (line.starts_with("$ qgpu ")) {
      Example e{n, line.substr(7), {}};
      while (!e.args.empty() && e.args.back() == '\\' && std::getline(in, line)) {
        ++n;
        e.args.pop_back();
        e.args += line.substr(line.find_first_not_of(' '));
      }
      out.push_back(e);
    } else if (!out.empty()) {
      out.back().out.push_back(line);
    }
  }
  return out;
}

// `run FILE ... MORE`: the arguments an earlier command gave after FILE, then MORE.
std::string expand(const std::string& args, std::map<std::string, std::string>& after_file) {
  std::istringstream words(args);
  std::string verb, file;
  words >> verb >> file;
  const std::string head = verb + " " + file + " ", rest = args.size() > head.size() ? args.substr(head.size()) : "";
  if (!rest.starts_with("...")) {
    after_file[file] = rest;
    return args;
  }
  EXPECT_TRUE(after_file.count(file)) << "`...` after " << file << " with no earlier command on it";
  return head + after_file[file] + rest.substr(3);
}

void expect_examples(const std::string& doc, size_t at_least) {
  const std::string readme = test_util::read_file(fs::path(QGPU_SOURCE_DIR) / doc);
  const std::vector<Example> examples = console_examples(readme);
  ASSERT_GE(examples.size(), at_least) << doc << " has ```console examples";
  std::map<std::string, std::string> after_file;
  for (const Example& e : examples) {
    const std::string args = expand(e.args, after_file);
    const test_util::Result r = test_util::qgpu_env(fmt::format("cd '{}' && ", QGPU_SOURCE_DIR), args);
    ASSERT_EQ(r.status, 0) << doc << ":" << e.line << ": qgpu " << args << "\n" << r.err;
    std::vector<std::string> got;
    std::istringstream printed(r.out);
    for (std::string l; std::getline(printed, l);) got.push_back(l);
    size_t i = 0;
    for (; i < e.out.size() && e.out[i] != "..."; ++i) {
      const std::string& want = e.out[i];
      ASSERT_LT(i, got.size()) << doc << ", the output of line " << e.line << ": qgpu printed only " << got.size()
                               << " lines:\n" << r.out;
      if (want.ends_with("...")) {
        EXPECT_TRUE(got[i].starts_with(want.substr(0, want.size() - 3)))
            << doc << ", the output of line " << e.line << ", line " << i + 1 << ": shows\n  " << want << "\nqgpu printed\n  " << got[i];
      } else {
        EXPECT_EQ(got[i], want) << doc << ", the output of line " << e.line << ", line " << i + 1;
      }
    }
    if (i == e.out.size()) {
      EXPECT_EQ(got.size(), e.out.size()) << doc << ":" << e.line << " shows fewer lines than qgpu printed:\n" << r.out;
    }
  }
}

TEST(Readme, ConsoleExamplesPrintWhatTheReadmeShows) { expect_examples("README.md", 3); }

TEST(Readme, InterpretabilityExamplesPrintWhatTheDocShows) { expect_examples("docs/interpretability.md", 5); }

}  // namespace
}  // namespace qgpu
