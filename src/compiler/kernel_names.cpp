#include "compiler/kernel_names.h"

#include <cxxabi.h>

#include <fmt/format.h>

#include <cstdlib>
#include <memory>
#include <regex>

#include "base/error.h"

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


// The element type of a parameter's type text ("const unsigned char *", "short const*",
// "bool*"): its size and signedness (char is signed, as on a GPU; a 32-bit element is
// signed unless it is unsigned).
void small_element(const std::string& type, CudaParam& p) {
  static const std::regex word("[A-Za-z_][A-Za-z0-9_]*");
  std::string t;
  for (auto it = std::sregex_iterator(type.begin(), type.end(), word); it != std::sregex_iterator(); ++it)
    if (it->str() != "const" && it->str() != "volatile" && it->str() != "__restrict__" && it->str() != "__restrict" &&
        it->str() != "int" && it->str() != "signed")
      t += (t.empty() ? "" : " ") + it->str();
  if (t == "char" || t == "int8_t" || t == "char4" || t == "char2") p.elem_bytes = 1, p.elem_signed = true;
  else if (t == "unsigned char" || t == "uint8_t" || t == "uchar4" || t == "uchar2" || t == "uchar") p.elem_bytes = 1, p.elem_signed = false;
  else if (t == "bool") p.elem_bytes = 1, p.elem_signed = false, p.is_bool = true;
  else if (t == "short" || t == "int16_t" || t == "short2") p.elem_bytes = 2, p.elem_signed = true;
  else if (t == "unsigned short" || t == "uint16_t" || t == "ushort" || t == "ushort2") p.elem_bytes = 2, p.elem_signed = false;
  else if (t == "unsigned" || t == "uint32_t" || t == "uint") p.elem_signed = false;  // printed unsigned
  else if (t == "long" || t == "long long" || t == "int64_t" || t == "ptrdiff_t") p.wide = 1;
  else if (t == "unsigned long" || t == "unsigned long long" || t == "size_t" || t == "uint64_t") p.wide = 2;
}

// One parameter's declaration ("const float *__restrict__ x", "int *partial_sums = NULL")
// as a CudaParam: its name is the last identifier before a default argument.
CudaParam parse_param(std::string p) {
  if (size_t eq = p.find('='); eq != std::string::npos) p.resize(eq);
  static const std::regex ident("[A-Za-z_][A-Za-z0-9_]*");
  std::string last;
  for (auto it = std::sregex_iterator(p.begin(), p.end(), ident); it != std::sregex_iterator(); ++it)
    if (it->str() != "const" && it->str() != "__restrict__" && it->str() != "__restrict" && it->str() != "volatile")
      last = it->str();
  CudaParam out{last, p.find('*') != std::string::npos || p.find('[') != std::string::npos || p.find('&') != std::string::npos,
                std::regex_search(p, std::regex("\\bfloat\\b"))};
  if (!last.empty()) small_element(p.substr(0, p.rfind(last)), out);
  return out;
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


std::string strip_comments(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s.substr(i, 2) == "//") {
      while (i < s.size() && s[i] != '\n') ++i;
    } else if (s.substr(i, 2) == "/*") {
      size_t end = s.find("*/", i + 2);
      i = end == std::string_view::npos ? s.size() : end + 1;
      out += ' ';
      continue;
    }
    if (i < s.size()) out += s[i];
  }
  return out;
}

// The parameters of `__global__ void NAME(...)` in the CUDA source: the names as written;
// the types too for an extern "C" kernel, while a C++ kernel's come from its mangled name
// (a template parameter T is the instantiation's type). With overloads, the first
// declaration with as many parameters as the PTX has gives the names.
std::optional<std::vector<CudaParam>> kernel_params(std::string_view source, const KernelName& k, size_t ptx_params) {
  std::string text = strip_comments(source);
  std::regex sig("__global__[^;{(]*?\\b" + k.base + "\\s*\\(([^)]*)\\)");
  std::optional<std::vector<CudaParam>> best;
  for (auto m = std::sregex_iterator(text.begin(), text.end(), sig); m != std::sregex_iterator(); ++m) {
    std::vector<CudaParam> params;
    const std::string list = (*m)[1];
    int depth = 0;
    size_t start = 0;
    for (size_t i = 0; i <= list.size(); ++i) {
      const char c = i < list.size() ? list[i] : ',';
      depth += c == '<' || c == '(' ? 1 : c == '>' || c == ')' ? -1 : 0;
      if (c != ',' || depth > 0) continue;
      CudaParam p = parse_param(list.substr(start, i - start));
      if (!p.name.empty() && p.name != "void") params.push_back(p);
      start = i + 1;
    }
    if (params.size() != ptx_params) {
      if (!best) best = params;  // for the message about the count
      continue;
    }
    if (k.mangled && k.param_types.size() == params.size())
      for (size_t i = 0; i < params.size(); ++i) {
        const std::string& t = k.param_types[i];
        params[i].pointer = t.find('*') != std::string::npos || t.find('&') != std::string::npos;
        params[i].is_float = std::regex_search(t, std::regex("^float\\b"));
        params[i].elem_bytes = 4, params[i].elem_signed = true, params[i].is_bool = false, params[i].wide = 0;
        small_element(t, params[i]);
      }
    return params;
  }
  return best;
}

// The kernel --kernel names (any of its names: kernel_names.h), or the file's only one.
const PtxFunction& select_kernel(const PtxModule& m, const std::string& wanted, const std::string& file) {
  std::vector<const PtxFunction*> entries, named;
  for (const PtxFunction& f : m.functions)
    if (f.is_entry) entries.push_back(&f);
  std::string names;
  for (const PtxFunction* f : entries) names += (names.empty() ? "" : ", ") + kernel_name(f->name).signature;
  if (entries.empty())
    fail("{}: no __global__ kernel found{}", file,
         is_template_id(wanted) ? ""
                                : " (a template kernel is compiled for a launch that names its arguments: "
                                  "--kernel 'NAME<int,16>')");
  if (wanted.empty() && entries.size() > 1)
    fail("{} has several kernels ({}): choose one with --kernel NAME", file, names);
  for (const PtxFunction* f : entries)
    if (wanted.empty() || names_kernel(wanted, kernel_name(f->name))) named.push_back(f);
  if (named.size() > 1) {
    std::string which;
    for (const PtxFunction* f : named) which += fmt::format("\n  --kernel '{}'", kernel_name(f->name).signature);
    fail("{}: --kernel {} names {} kernels (overloads or instantiations); name one with its parameter types:{}",
         file, wanted, named.size(), which);
  }
  if (named.empty())
    fail("{} has no kernel '{}' (kernels: {}){}", file, wanted, names,
         is_template_id(wanted) ? "" : "; a template kernel is named with its arguments, --kernel 'NAME<int,16>'");
  return *named.front();
}


Reach reach(const PtxModule& m, const PtxFunction& k) {
  Reach r;
  std::vector<const PtxFunction*> todo{&k};
  r.functions.insert(k.name);
  while (!todo.empty()) {
    const PtxFunction* f = todo.back();
    todo.pop_back();
    for (const PtxStmt& st : f->body) {
      if (!st.instr) continue;
      for (const PtxOperand& o : st.instr->operands) {
        if (o.kind == PtxOperandKind::kSymbol || (o.kind == PtxOperandKind::kAddress && !o.base_is_reg))
          r.symbols.insert(o.name);
        if (o.kind != PtxOperandKind::kSymbol || st.instr->parts.at(0) != "call") continue;
        for (const PtxFunction& g : m.functions)
          if (g.name == o.name && r.functions.insert(g.name).second) todo.push_back(&g);
      }
    }
  }
  return r;
}

}  // namespace qgpu
