#include "compiler/kernel_names.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <regex>

namespace qgpu {
namespace {

bool opens(char c) { return c == '(' || c == '<' || c == '['; }
bool closes(char c) { return c == ')' || c == '>' || c == ']'; }

// The index of the bracket that opens the one closing at `close` (scanning back), or npos.
size_t matching_open(std::string_view s, size_t close) {
  int depth = 0;
  for (size_t i = close + 1; i-- > 0;) {
    if (closes(s[i])) ++depth;
    else if (opens(s[i]) && --depth == 0) return i;
  }
  return std::string_view::npos;
}

// s split at the commas outside brackets, each part without surrounding blanks.
std::vector<std::string> split_top(std::string_view s) {
  std::vector<std::string> out;
  int depth = 0;
  size_t start = 0;
  auto push = [&](size_t end) {
    std::string_view p = s.substr(start, end - start);
    while (!p.empty() && p.front() == ' ') p.remove_prefix(1);
    while (!p.empty() && p.back() == ' ') p.remove_suffix(1);
    if (!p.empty()) out.emplace_back(p);
  };
  for (size_t i = 0; i < s.size(); ++i) {
    if (opens(s[i])) ++depth;
    else if (closes(s[i])) --depth;
    else if (s[i] == ',' && depth == 0) push(i), start = i + 1;
  }
  push(s.size());
  return out;
}

// The last "::"-separated component of a qualified name, outside template arguments.
std::string_view last_component(std::string_view name) {
  int depth = 0;
  for (size_t i = name.size(); i-- > 1;) {
    if (closes(name[i])) ++depth;
    else if (opens(name[i])) --depth;
    else if (depth == 0 && name[i] == ':' && name[i - 1] == ':') return name.substr(i + 1);
  }
  return name;
}

// For comparing names: no blanks, no integer literal suffixes, `unsigned` for `unsigned int`.
std::string normalised(std::string_view s) {
  std::string t = std::regex_replace(std::string(s), std::regex("\\bunsigned int\\b"), "unsigned");
  t = std::regex_replace(t, std::regex("\\b(\\d+)(?:ull|ul|ll|u|l)\\b", std::regex::icase), "$1");
  std::erase(t, ' ');
  return t;
}

}  // namespace

std::string demangle(std::string_view symbol) {
  if (!symbol.starts_with("_Z")) return std::string(symbol);
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(
      abi::__cxa_demangle(std::string(symbol).c_str(), nullptr, nullptr, &status), &std::free);
  return status == 0 && out ? std::string(out.get()) : std::string(symbol);
}

KernelName kernel_name(const std::string& symbol) {
  KernelName k{.symbol = symbol, .name = symbol, .base = symbol, .signature = symbol};
  const std::string d = demangle(symbol);
  if (d == symbol || d.empty() || d.back() != ')') return k;
  const size_t open = matching_open(d, d.size() - 1);
  if (open == std::string::npos) return k;
  // A template's demangling starts with its return type ("void reduce<int, 16u>(...)").
  std::string_view head = std::string_view(d).substr(0, open);
  int depth = 0;
  size_t name_start = 0;
  for (size_t i = 0; i < head.size(); ++i) {
    if (opens(head[i])) ++depth;
    else if (closes(head[i])) --depth;
    else if (head[i] == ' ' && depth == 0) name_start = i + 1;
  }
  k.mangled = true;
  k.name = std::string(head.substr(name_start));
  k.param_types = split_top(std::string_view(d).substr(open + 1, d.size() - open - 2));
  if (k.param_types.size() == 1 && k.param_types[0] == "void") k.param_types.clear();
  std::string params;
  for (const std::string& p : k.param_types) params += (params.empty() ? "" : ", ") + p;
  k.signature = k.name + "(" + params + ")";
  std::string_view base = last_component(k.name);
  if (!base.empty() && base.back() == '>')
    if (size_t lt = matching_open(base, base.size() - 1); lt != std::string_view::npos) base = base.substr(0, lt);
  k.base = std::string(base);
  return k;
}

bool names_kernel(std::string_view wanted, const KernelName& k) {
  if (wanted == k.symbol) return true;
  const std::string w = normalised(wanted);
  return w == normalised(k.name) || w == normalised(k.signature) || w == normalised(last_component(k.name)) ||
         w == normalised(last_component(k.signature));
}

bool is_template_id(std::string_view wanted) {
  return wanted.find('<') != std::string_view::npos && wanted.find('(') == std::string_view::npos;
}

std::string variable_name(std::string_view symbol) {
  const std::string d = demangle(symbol);
  if (d == symbol) return d;
  return std::string(last_component(d));
}

}  // namespace qgpu
