// The .qasm assembler. Two passes over lines: the first collects labels and arrays (so
// branches may jump forward and instructions may name arrays), the second parses
// instructions. Every problem is collected and reported at once, each as
// file:line:col with the source line and a caret.
//
//   .kernel NAME            .grid X [Y]            .block X [Y]
//   .array NAME SIZE [@BASE] [= v, v, ...]       (SIZE and BASE in words; unlisted
//                                                  contents are 0; NAME means its byte address)
//   LABEL:  [@p0 | @!p0] mnemonic operand, operand, ...     ; or // comments
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>

#include "base/error.h"
#include "gpu/program.h"

namespace qgpu {
namespace {

struct Line {
  int number;              // 1-based
  std::string_view text;   // whole source line
  std::string_view code;   // without the comment
};

std::vector<Line> split_lines(std::string_view text) {
  std::vector<Line> lines;
  int number = 1;
  while (!text.empty() || number == 1) {
    size_t end = text.find('\n');
    std::string_view t = text.substr(0, end);
    if (!t.empty() && t.back() == '\r') t.remove_suffix(1);
    size_t cut = std::min(t.find(';'), t.find("//"));
    lines.push_back({number++, t, t.substr(0, cut)});
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
// '#' for the compiler's copies of a __shared__ array, one per resident CUDA block (s#0, s#1).
bool is_ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$' || c == '#';
}

// A cursor over one line's code, with 1-based columns for diagnostics.
struct Cursor {
  std::string_view s;
  size_t pos = 0;

  void skip_space() {
    while (pos < s.size() && std::isspace(static_cast<unsigned char>(s[pos]))) ++pos;
  }
  bool at_end() {
    skip_space();
    return pos >= s.size();
  }
  // Column of the next token, so a caret never points at the blank before it.
  int col() {
    skip_space();
    return static_cast<int>(pos) + 1;
  }
  bool eat(char c) {
    skip_space();
    if (pos < s.size() && s[pos] == c) return ++pos, true;
    return false;
  }
  std::string_view word() {
    skip_space();
    size_t start = pos;
    while (pos < s.size() && (is_ident_char(s[pos]) || s[pos] == '%' || s[pos] == '!' ||
                              s[pos] == '@' || s[pos] == '-' || s[pos] == '+'))
      ++pos;
    return s.substr(start, pos - start);
  }
  std::string_view rest() {
    skip_space();
    return s.substr(pos);
  }
};

std::optional<int64_t> parse_int(std::string_view t) {
  bool neg = !t.empty() && t[0] == '-';
  if (neg || (!t.empty() && t[0] == '+')) t.remove_prefix(1);
  int base = 10;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) base = 16, t.remove_prefix(2);
  // A float's bits as PTX writes them: 0f and exactly 8 hex digits (0f3fc00000 = 1.5).
  else if (!neg && t.size() == 10 && t[0] == '0' && (t[1] == 'f' || t[1] == 'F')) base = 16, t.remove_prefix(2);
  if (t.empty() || t.size() > 12) return std::nullopt;
  int64_t v = 0;
  for (char c : t) {
    int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
            : std::isxdigit(static_cast<unsigned char>(c)) ? std::tolower(c) - 'a' + 10
                                                            : 99;
    if (d >= base) return std::nullopt;
    v = v * base + d;
  }
  return neg ? -v : v;
}

// An operand as written: a register-like value, an immediate, or an address.
struct Parsed {
  Operand o;
  bool has_imm = false;
  int64_t imm = 0;
  bool address = false;
};

class Assembler {
 public:
  Assembler(std::string_view text, std::string_view file) : file_(file), lines_(split_lines(text)) {}

  Program run() {
    collect_labels_and_directives();
    for (const Line& l : lines_) parse_instruction_line(l);
    std::sort(p_.arrays.begin(), p_.arrays.end(),
              [](const Array& x, const Array& y) { return x.base < y.base; });
    if (errors_.empty()) check();
    if (!errors_.empty()) {
      std::string all;
      for (const std::string& e : errors_) all += (all.empty() ? "" : "\n") + e;
      throw Error(all);
    }
    return std::move(p_);
  }

 private:
  void error(const Line& l, int col, const std::string& msg) {
    errors_.push_back(diagnostic(file_, l.number, col, msg, l.text));
  }

  // Strips "LABEL:" prefixes; returns the cursor after them.
  Cursor after_labels(const Line& l, bool define, int block) {
    Cursor c{l.code};
    for (;;) {
      size_t save = c.pos;
      c.skip_space();
      int col = c.col();
      size_t start = c.pos;
      while (c.pos < c.s.size() && is_ident_char(c.s[c.pos])) ++c.pos;
      std::string name(c.s.substr(start, c.pos - start));
      if (!name.empty() && is_ident_start(name[0]) && c.eat(':')) {
        if (define && !labels_.emplace(name, block).second)
          error(l, col, fmt::format("label '{}' is defined twice", name));
        continue;
      }
      c.pos = save;
      return c;
    }
  }

  void collect_labels_and_directives() {
    int block = 0;
    for (const Line& l : lines_) {
      Cursor c = after_labels(l, true, block);
      if (c.at_end()) continue;
      if (c.s[c.pos] == '.') {
        directive(l, c);
        continue;
      }
      line_block_[l.number] = block++;
    }
  }

  void directive(const Line& l, Cursor& c) {
    int col = c.col();
    std::string_view name = c.word();
    if (name == ".kernel") {
      // The rest of the line: a C++ kernel's name may have blanks (reduce<int, 16u>).
      std::string_view rest = c.rest();
      while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\t')) rest.remove_suffix(1);
      p_.kernel = std::string(rest);
      if (p_.kernel.empty()) error(l, c.col(), "'.kernel' needs a name");
    } else if (name == ".grid" || name == ".block") {
      auto [x, y] = dims(l, c, name);
      (name == ".grid" ? p_.launch.grid_x : p_.launch.block_x) = x;
      (name == ".grid" ? p_.launch.grid_y : p_.launch.block_y) = y;
      (name == ".grid" ? grid_line_ : block_line_) = &l;
    } else if (name == ".array") {
      array(l, c);
    } else {
      error(l, col, fmt::format("unknown directive '{}' (expected .kernel, .grid, .block or "
                                ".array)", name));
    }
  }

  std::pair<int, int> dims(const Line& l, Cursor& c, std::string_view what) {
    int v[2] = {1, 1};
    for (int i = 0; i < 2 && !c.at_end(); ++i) {
      int col = c.col();
      std::optional<int64_t> n = parse_int(c.word());
      if (!n || *n < 1 || *n > 65535) {
        error(l, col, fmt::format("'{}' takes one or two positive integers", what));
        return {1, 1};
      }
      v[i] = static_cast<int>(*n);
    }
    if (!c.at_end()) error(l, c.col(), fmt::format("unexpected text after '{}'", what));
    return {v[0], v[1]};
  }

  void array(const Line& l, Cursor& c) {
    Array a;
    int col = c.col();
    a.name = std::string(c.word());
    if (a.name.empty() || !is_ident_start(a.name[0])) return error(l, col, "'.array' needs a name");
    if (arrays_.count(a.name)) return error(l, col, fmt::format("array '{}' is defined twice", a.name));
    col = c.col();
    std::optional<int64_t> size = parse_int(c.word());
    if (!size || *size < 1 || *size > kMemWords)
      return error(l, col, fmt::format("array size must be 1..{} words", kMemWords));
    a.size = static_cast<int>(*size);
    a.base = next_base_;
    if (c.eat('@')) {
      col = c.col();
      std::optional<int64_t> base = parse_int(c.word());
      if (!base || *base < 0 || *base >= kMemWords)
        return error(l, col, fmt::format("array base must be 0..{}", kMemWords - 1));
      a.base = static_cast<int>(*base);
    }
    a.init.assign(a.size, 0);
    if (c.eat('=')) array_init(l, c, a);
    if (!c.at_end()) error(l, c.col(), "unexpected text after '.array'");
    next_base_ = a.base + a.size;
    arrays_[a.name] = 4 * a.base;  // a symbol is the array's byte address
    array_line_[a.name] = &l;
    p_.arrays.push_back(std::move(a));
  }

  void array_init(const Line& l, Cursor& c, Array& a) {
    size_t i = 0;
    do {
      int col = c.col();
      std::optional<int64_t> v = parse_int(c.word());
      if (!v || *v < INT32_MIN || *v > UINT32_MAX)
        return error(l, col, "array contents must be 32-bit integers");
      if (i >= a.init.size())
        return error(l, col, fmt::format("array '{}' has {} words but more values are given",
                                         a.name, a.size));
      a.init[i++] = static_cast<uint32_t>(*v);
    } while (c.eat(','));
  }

  // ---- Instructions.

  void parse_instruction_line(const Line& l) {
    auto it = line_block_.find(l.number);
    if (it == line_block_.end()) return;
    Cursor c = after_labels(l, false, it->second);
    Instr in;
    in.line = l.number;
    if (c.eat('@')) guard(l, c, in);
    int col = c.col();
    std::string_view mnemonic = c.word();
    std::optional<Op> op = find_op(mnemonic);
    if (!op) return error(l, col, fmt::format("unknown instruction '{}' (see `qgpu isa`)", mnemonic));
    in.op = *op;
    std::vector<std::pair<int, std::string_view>> ops = split_operands(c);
    if (!assign_operands(l, col, ops, in)) return;
    for (const std::string& m : check_instr(in, static_cast<int>(line_block_.size())))
      error(l, col, m);
    p_.code.push_back(in);
  }

  void guard(const Line& l, Cursor& c, Instr& in) {
    int col = c.col();
    in.guard.negate = c.eat('!');
    std::string_view w = c.word();
    std::optional<int64_t> n = w.size() > 1 && w[0] == 'p' ? parse_int(w.substr(1)) : std::nullopt;
    if (!n || *n < 0 || *n >= kPreds)
      return error(l, col, fmt::format("guard must be @pN or @!pN with N in 0..{}", kPreds - 1));
    in.guard.pred = static_cast<int8_t>(*n);
  }

  static std::vector<std::pair<int, std::string_view>> split_operands(Cursor& c) {
    std::vector<std::pair<int, std::string_view>> out;
    if (c.at_end()) return out;
    size_t start = c.pos;
    int depth = 0;
    for (size_t i = c.pos; i <= c.s.size(); ++i) {
      char ch = i < c.s.size() ? c.s[i] : ',';
      depth += ch == '[' ? 1 : ch == ']' ? -1 : 0;
      // A comma inside [..] does not split; the line end always does (an unclosed '[').
      if (ch != ',' || (depth > 0 && i < c.s.size())) continue;
      std::string_view t = c.s.substr(start, i - start);
      size_t lead = t.find_first_not_of(" \t");
      size_t trail = t.find_last_not_of(" \t");
      int col = static_cast<int>(start + (lead == std::string_view::npos ? 0 : lead)) + 1;
      out.emplace_back(col, lead == std::string_view::npos ? "" : t.substr(lead, trail - lead + 1));
      start = i + 1;
    }
    return out;
  }

  // Fills d, a, b, c, imm from the written operands in the order the form lists them.
  bool assign_operands(const Line& l, int col, const std::vector<std::pair<int, std::string_view>>& ops,
                       Instr& in) {
    Form form = op_info(in.op).form;
    std::vector<Operand*> slots = operand_slots(form, in);
    if (ops.size() != slots.size()) {
      error(l, col, fmt::format("'{}' takes {} operand{}, got {}", op_info(in.op).mnemonic,
                                slots.size(), slots.size() == 1 ? "" : "s", ops.size()));
      return false;
    }
    bool seen_imm = false;
    for (size_t i = 0; i < ops.size(); ++i) {
      std::optional<Parsed> p = operand(l, ops[i].first, ops[i].second, form == Form::kBranch);
      if (!p) return false;
      // One immediate word an instruction: value operands may all read it.
      const bool shared = !is_memory(form) && static_cast<int32_t>(static_cast<uint32_t>(p->imm)) == in.imm;
      if (p->has_imm && seen_imm && !shared) {
        error(l, ops[i].first, "at most one immediate value per instruction: move the others into registers");
        return false;
      }
      seen_imm |= p->has_imm;
      if (p->has_imm) in.imm = static_cast<int32_t>(static_cast<uint32_t>(p->imm));
      bool want_address = slots[i] == &in.a && form != Form::kBranch && is_memory(form);
      if (p->address != want_address) {
        error(l, ops[i].first, want_address ? "expected an address [base+offset]"
                                            : "an address [..] is not allowed here");
        return false;
      }
      *slots[i] = p->o;
    }
    return true;
  }

  static bool is_memory(Form f) {
    return f == Form::kLoad || f == Form::kStore || f == Form::kAtom || f == Form::kCas;
  }

  static std::vector<Operand*> operand_slots(Form f, Instr& in) {
    switch (f) {
      case Form::kNone: return {};
      case Form::kDA: case Form::kPP: case Form::kLoad: return {&in.d, &in.a};
      case Form::kDAB: case Form::kPAB: case Form::kPPP: case Form::kAtom:
        return {&in.d, &in.a, &in.b};
      case Form::kDABC: case Form::kDABP: case Form::kCas: return {&in.d, &in.a, &in.b, &in.c};
      case Form::kStore: return {&in.a, &in.b};
      case Form::kBranch: return {&in.a};  // the target; a stays kNone
    }
    CHECK(false);
  }

  std::optional<Parsed> operand(const Line& l, int col, std::string_view t, bool target) {
    if (t.empty()) return error(l, col, "missing operand"), std::nullopt;
    if (t.front() == '[') return address(l, col, t);
    if (target) {
      std::optional<int64_t> v = expression(l, col, t, true);
      if (!v) return std::nullopt;
      return Parsed{{}, true, *v, false};
    }
    if (std::optional<Operand> o = register_operand(l, col, t)) return Parsed{*o};
    if (!errors_pending_) {
      std::optional<int64_t> v = expression(l, col, t, false);
      if (!v) return std::nullopt;
      return Parsed{imm(), true, *v, false};
    }
    errors_pending_ = false;
    return std::nullopt;
  }

  // rN, pN or %special; reports out-of-range numbers.
  std::optional<Operand> register_operand(const Line& l, int col, std::string_view t) {
    if (t[0] == '%') {
      if (std::optional<Special> s = find_special(t)) return special(*s);
      error(l, col, fmt::format("unknown special register '{}' (see `qgpu isa`)", t));
      errors_pending_ = true;
      return std::nullopt;
    }
    if (t.size() < 2 || (t[0] != 'r' && t[0] != 'p')) return std::nullopt;
    std::optional<int64_t> n = parse_int(t.substr(1));
    if (!n || !std::isdigit(static_cast<unsigned char>(t[1]))) return std::nullopt;
    int limit = t[0] == 'r' ? kRegs : kPreds;
    if (*n >= 0 && *n < limit) return t[0] == 'r' ? reg(static_cast<int>(*n)) : pred(static_cast<int>(*n));
    error(l, col, fmt::format("'{}' does not exist: a lane has {}0..{}{}", t, t[0], t[0], limit - 1));
    errors_pending_ = true;
    return std::nullopt;
  }

  // [base], [base+imm], [base-imm], [imm] where imm may be an expression.
  std::optional<Parsed> address(const Line& l, int col, std::string_view t) {
    if (t.back() != ']') return error(l, col, "address must end with ']'"), std::nullopt;
    std::string_view in = t.substr(1, t.size() - 2);
    Parsed p{{}, true, 0, true};
    size_t split = in.find_first_of("+-", 1);
    std::string_view head = in.substr(0, split);
    while (!head.empty() && head.back() == ' ') head.remove_suffix(1);
    while (!head.empty() && head.front() == ' ') head.remove_prefix(1);
    if (std::optional<Operand> o = head.empty() ? std::nullopt : register_operand(l, col, head)) {
      p.o = *o;
      if (split == std::string_view::npos) return p;
      in = in.substr(split);
    } else if (errors_pending_) {
      errors_pending_ = false;
      return std::nullopt;
    }
    std::optional<int64_t> v = expression(l, col, in, false);
    if (!v) return std::nullopt;
    p.imm = *v;
    return p;
  }

  // INT, SYMBOL, SYMBOL+INT or SYMBOL-INT; symbols are arrays (their base word) or, for
  // branch targets, labels.
  std::optional<int64_t> expression(const Line& l, int col, std::string_view t, bool target) {
    std::string text;
    for (char ch : t)
      if (ch != ' ' && ch != '\t') text += ch;
    if (text.empty()) return error(l, col, "missing immediate"), std::nullopt;
    if (text[0] == '+') text.erase(0, 1);
    int64_t v = 0;
    std::string_view rest = text;
    if (!text.empty() && is_ident_start(text[0])) {
      size_t end = text.find_first_of("+-");
      std::string name = text.substr(0, end);
      if (std::optional<int64_t> s = symbol(name, target)) {
        v = *s;
      } else {
        error(l, col, fmt::format("unknown {} '{}'", target ? "label" : "symbol", name));
        return std::nullopt;
      }
      rest = end == std::string::npos ? "" : std::string_view(text).substr(end);
      if (rest.empty()) return v;
    }
    std::optional<int64_t> n = parse_int(rest);
    if (!n) return error(l, col, fmt::format("'{}' is not an integer", t)), std::nullopt;
    v += *n;
    if (v < INT32_MIN || v > UINT32_MAX)
      return error(l, col, fmt::format("{} does not fit in 32 bits", v)), std::nullopt;
    return v;
  }

  std::optional<int64_t> symbol(const std::string& name, bool target) {
    if (target) {
      auto it = labels_.find(name);
      return it == labels_.end() ? std::nullopt : std::optional<int64_t>(it->second);
    }
    auto it = arrays_.find(name);
    return it == arrays_.end() ? std::nullopt : std::optional<int64_t>(it->second);
  }

  // Program-level limits, each pointing at the line it is about when there is one.
  void check() {
    for (const ProgramProblem& m : program_problems(p_)) {
      const Line* at = m.block >= 0 ? block_line(m.block)
                     : m.array >= 0 ? array_line_[p_.arrays[m.array].name]
                     : m.launch == 1 ? grid_line_ : m.launch == 2 ? block_line_ : nullptr;
      if (!at) {
        errors_.push_back(fmt::format("{}: {}", file_, m.text));
        continue;
      }
      size_t first = at->text.find_first_not_of(" \t");
      error(*at, first == std::string_view::npos ? 1 : static_cast<int>(first) + 1, m.text);
    }
  }

  const Line* block_line(int block) const {
    for (const auto& [number, b] : line_block_)
      if (b == block) return &lines_[number - 1];
    return nullptr;
  }

  std::string file_;
  std::vector<Line> lines_;
  std::vector<std::string> errors_;
  bool errors_pending_ = false;
  std::map<std::string, int> labels_;
  std::map<std::string, int> arrays_;
  std::map<int, int> line_block_;  // source line -> block
  std::map<std::string, const Line*> array_line_;
  const Line* grid_line_ = nullptr;
  const Line* block_line_ = nullptr;
  int next_base_ = 0;
  Program p_;
};

}  // namespace

Program assemble(std::string_view text, std::string_view file) {
  return Assembler(text, file).run();
}

}  // namespace qgpu
