// Line directives, read line by line as clang writes them: a `.loc` or a `.file` fills its
// line, a `.section` runs to its closing brace. The `.file` table comes after the functions,
// so each line's `.loc` is kept by file index and resolved at the end. Every other line is
// the parser's; the directives are blanked in its copy, which the parser would refuse
// (`.loc` ends at the line's end, not at a ';').
#include "compiler/ptx_lines.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <map>
#include <set>

#include "base/error.h"
#include "compiler/ptx.h"

namespace qgpu {
namespace {

namespace fs = std::filesystem;


// The line's words up to a `//` comment, split at blanks and commas: `.loc 1 5 3`.
std::vector<std::string_view> directive_words(std::string_view line) {
  line = line.substr(0, line.find("//"));
  std::vector<std::string_view> words;
  for (size_t i = 0; i < line.size();) {
    const size_t start = line.find_first_not_of(" \t,", i);
    if (start == std::string_view::npos) break;
    const size_t end = std::min(line.find_first_of(" \t,", start), line.size());
    words.push_back(line.substr(start, end - start));
    i = end;
  }
  return words;
}

int loc_number(std::string_view s) {
  int v = -1;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && end == s.data() + s.size() ? v : -1;
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ea, eb;
  const fs::path pa = fs::weakly_canonical(fs::absolute(a, ea), ea), pb = fs::weakly_canonical(fs::absolute(b, eb), eb);
  return !ea && !eb && pa == pb;
}

// A `.loc FILE LINE COL [, function_name ..., inlined_at ...]`: its first three numbers.
struct LocDirective {
  int file = -1, line = 0, col = 0;
};

// The first "..." of a line: a `.file`'s path.
std::string quoted_path(std::string_view line) {
  const size_t open = line.find('"'), close = line.find('"', open + 1);
  return open == std::string_view::npos || close == std::string_view::npos ? ""
                                                                          : std::string(line.substr(open + 1, close - open - 1));
}

bool starts_function(std::string_view word) {
  return word == ".visible" || word == ".entry" || word == ".func" || word == ".weak" || word == ".extern";
}

std::string tabs_as_spaces(std::string line) {
  std::replace(line.begin(), line.end(), '\t', ' ');  // one column per byte: the caret lines up
  return line;
}

}  // namespace

PtxSourceMap map_ptx_lines(std::string_view ptx, const std::string& cuda_file, std::string_view cuda_source) {
  PtxSourceMap map{.cuda_file = cuda_file, .cuda_lines = text_lines(cuda_source), .ptx_lines = text_lines(ptx)};
  std::vector<std::optional<LocDirective>> locs(map.ptx_lines.size());
  std::map<int, std::string> files;
  std::optional<LocDirective> current;
  int section_depth = 0;  // inside a `.section`'s braces
  for (size_t i = 0; i < map.ptx_lines.size(); ++i) {
    const std::string& line = map.ptx_lines[i];
    const std::vector<std::string_view> w = directive_words(line);
    const std::string_view first = w.empty() ? "" : w[0];
    const bool directive = section_depth > 0 || first == ".loc" || first == ".file" || first == ".section";
    if (first == ".loc" && w.size() >= 4) current = LocDirective{loc_number(w[1]), loc_number(w[2]), loc_number(w[3])};
    if (first == ".file" && w.size() >= 2) files[loc_number(w[1])] = quoted_path(line);
    if (section_depth > 0 || first == ".section")
      section_depth += static_cast<int>(std::count(line.begin(), line.end(), '{') - std::count(line.begin(), line.end(), '}'));
    if (starts_function(first)) current.reset();
    locs[i] = current;
    map.ptx += directive ? "\n" : line + "\n";
  }
  std::set<int> compiled;  // the file indices that name cuda_file
  for (const auto& [index, path] : files)
    if (same_file(path, cuda_file)) compiled.insert(index);
  for (const std::optional<LocDirective>& l : locs) {
    const bool known = l && l->line > 0 && compiled.count(l->file);
    map.at.push_back(known ? std::optional<CudaPosition>({l->line, std::max(l->col, 0)}) : std::nullopt);
  }
  return map;
}

std::string PtxSourceMap::diagnostic(int line, int col, std::string_view message) const {
  const bool in_ptx = line >= 1 && line <= static_cast<int>(ptx_lines.size());
  const std::string ptx_line = in_ptx ? tabs_as_spaces(ptx_lines[line - 1]) : "";
  // A line's position, or {0, 0} (line 0: none); GCC 12 at -O2 took an optional's
  // checked value for uninitialized.
  const CudaPosition pos = in_ptx ? at[line - 1].value_or(CudaPosition{}) : CudaPosition{};
  const std::string ptx_where = fmt::format("PTX line {} (see --dump=ptx)", line);
  if (pos.line < 1 || pos.line > static_cast<int>(cuda_lines.size())) {
    std::string out = fmt::format("{}: {}", ptx_where, message);
    if (ptx_line.empty()) return out;
    return out + fmt::format("\n  {}\n  {}^", ptx_line, std::string(col > 1 ? col - 1 : 0, ' '));
  }
  const std::string source = tabs_as_spaces(cuda_lines[pos.line - 1]);
  std::string out = pos.col > 0 ? qgpu::diagnostic(cuda_file, pos.line, pos.col, message, source)
                                 : fmt::format("{}:{}: {}\n  {}", cuda_file, pos.line, message, source);
  std::string instr;  // the PTX line, its runs of blanks one space
  for (char c : ptx_line)
    if (c != ' ' || (!instr.empty() && instr.back() != ' ')) instr += c;
  while (!instr.empty() && instr.back() == ' ') instr.pop_back();
  return out + fmt::format("\n  {}: {}", ptx_where, instr);
}

std::vector<std::string> text_lines(std::string_view text) {
  std::vector<std::string> lines;
  while (!text.empty()) {
    const size_t end = std::min(text.find('\n'), text.size());
    std::string_view line = text.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.emplace_back(line);
    text.remove_prefix(std::min(end + 1, text.size()));
  }
  return lines;
}

PtxModule parse_ptx(std::string_view text, std::string_view file) {
  const std::vector<std::string> lines = text_lines(text);
  return parse_ptx(text, [&](int line, int col, std::string_view message) {
    const bool known = line >= 1 && line <= static_cast<int>(lines.size());
    return diagnostic(file, line, col, message, known ? tabs_as_spaces(lines[line - 1]) : "");
  });
}

}  // namespace qgpu
