// The PTX parser: text -> PtxModule (ptx.h). A hand-written lexer turns the whole file into
// tokens (words, numbers, strings, punctuation) with line and column, dropping comments; a
// recursive-descent parser reads them, one function per grammar symbol (module_statement,
// function, param_list, var_decls, body, instruction, operand, address, ...).
// A word is a run of [A-Za-z0-9_$.%] not starting with a digit, so an opcode (ld.global.u32),
// a directive (.reg), a register (%rd1) and a special register (%tid.x) are one token each.
// Opcodes are not checked: any word in opcode position is an instruction; the lowering
// reports those it does not support. Call-sequence braces { ... } in a body are flattened.
// Every syntax error is collected: the parser throws Recover to the nearest statement loop,
// which skips to the next ';' or the next line that starts a statement and goes on;
// parse_ptx then throws one Error listing every diagnostic in source order.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "base/error.h"
#include "compiler/ptx.h"

namespace qgpu {
namespace {

// Collects diagnostics, each written by `where`.
struct Diagnostics {
  const PtxWhere& where;
  std::vector<std::tuple<int, int, std::string>> problems;  // line, col, whole diagnostic

  void error(int line, int col, std::string_view message) { problems.emplace_back(line, col, where(line, col, message)); }

  // All diagnostics in source order, one after another.
  std::string joined() {
    std::sort(problems.begin(), problems.end());
    std::string out;
    for (const auto& p : problems) out += (out.empty() ? "" : "\n") + std::get<2>(p);
    return out;
  }
};

enum class TokKind : uint8_t { kWord, kNumber, kString, kPunct, kEnd };

struct Token {
  TokKind kind = TokKind::kEnd;
  std::string_view text;  // a string token keeps its quotes
  int line = 0, col = 0;
};

bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.';
}
constexpr std::string_view kPunctChars = ",;:()[]{}<>=+-@!|";

class Lexer {
 public:
  Lexer(std::string_view text, Diagnostics& diag) : text_(text), diag_(diag) {}

  std::vector<Token> tokens() {
    std::vector<Token> out;
    for (skip_blanks(); pos_ < text_.size(); skip_blanks())
      if (std::optional<Token> t = token()) out.push_back(*t);
    out.push_back({TokKind::kEnd, "", line_, col()});
    return out;
  }

 private:
  int col() const { return static_cast<int>(pos_ - line_start_) + 1; }
  char at(size_t k = 0) const { return pos_ + k < text_.size() ? text_[pos_ + k] : '\0'; }
  void advance() {
    if (text_[pos_++] == '\n') line_++, line_start_ = pos_;
  }

  // Skips whitespace, // line comments and /* block comments */.
  void skip_blanks() {
    for (;;) {
      if (std::isspace(static_cast<unsigned char>(at()))) advance();
      else if (at() == '/' && at(1) == '/') skip_line();
      else if (at() == '/' && at(1) == '*') block_comment();
      else return;  // a token, or the end ('\0')
    }
  }

  void skip_line() { while (pos_ < text_.size() && at() != '\n') advance(); }

  void block_comment() {
    int line = line_, column = col();
    advance(), advance();
    while (pos_ < text_.size() && !(at() == '*' && at(1) == '/')) advance();
    if (pos_ >= text_.size()) return diag_.error(line, column, "unterminated /* comment");
    advance(), advance();
  }

  std::optional<Token> token() {
    Token t{TokKind::kPunct, {}, line_, col()};
    size_t start = pos_;
    char c = at();
    if (is_word_char(c) || c == '%') {  // numbers (6.3, 0x1F, 0f3FC00000) are checked later
      t.kind = is_digit(c) ? TokKind::kNumber : TokKind::kWord;
      for (advance(); is_word_char(at());) advance();
    } else if (c == '"') {
      t.kind = TokKind::kString;
      string_literal();
    } else if (kPunctChars.find(c) != std::string_view::npos) {
      advance();
    } else {
      diag_.error(line_, col(), fmt::format("unexpected character '{}'", c));
      advance();
      return std::nullopt;
    }
    t.text = text_.substr(start, pos_ - start);
    return t;
  }

  void string_literal() {
    int column = col();
    for (advance(); pos_ < text_.size() && at() != '"' && at() != '\n';) advance();
    if (at() != '"') return diag_.error(line_, column, "unterminated string");
    advance();
  }

  std::string_view text_;
  Diagnostics& diag_;
  size_t pos_ = 0, line_start_ = 0;
  int line_ = 1;
};

// Whether `word` is one of the space-separated words of `set`.
bool one_of(std::string_view word, std::string_view set) {
  for (size_t at = set.find(word); at != std::string_view::npos; at = set.find(word, at + 1))
    if ((at == 0 || set[at - 1] == ' ') &&
        (at + word.size() == set.size() || set[at + word.size()] == ' '))
      return true;
  return false;
}

std::optional<int64_t> parse_digits(std::string_view t, int base) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v, base);
  if (t.empty() || ec != std::errc() || end != t.data() + t.size()) return std::nullopt;
  return static_cast<int64_t>(v);  // up to 2^64-1, kept as two's-complement bits
}

// Integer literals: decimal, 0x hex, 0b binary, 0 octal, an optional U suffix.
std::optional<int64_t> parse_integer(std::string_view t) {
  if (!t.empty() && (t.back() == 'U' || t.back() == 'u')) t.remove_suffix(1);
  bool prefixed = t.size() > 2 && t[0] == '0';
  if (prefixed && (t[1] == 'x' || t[1] == 'X')) return parse_digits(t.substr(2), 16);
  if (prefixed && (t[1] == 'b' || t[1] == 'B')) return parse_digits(t.substr(2), 2);
  return t.size() > 1 && t[0] == '0' ? parse_digits(t.substr(1), 8) : parse_digits(t, 10);
}

// 0fXXXXXXXX (f32) and 0dXXXXXXXXXXXXXXXX (f64): exactly 8 or 16 hex digits of raw bits.
bool looks_like_float(std::string_view t) {
  return t.size() >= 2 && t[0] == '0' && std::string_view("fFdD").find(t[1]) != t.npos;
}

std::optional<int64_t> parse_float_bits(std::string_view t) {
  size_t digits = (t[1] == 'f' || t[1] == 'F') ? 8 : 16;
  return t.size() == digits + 2 ? parse_digits(t.substr(2), 16) : std::nullopt;
}

// %tid.x and friends: any register name with a dot, or one of the undotted specials.
bool is_special_register(std::string_view name) {
  std::string_view stem = name.substr(0, name.find_last_not_of("0123456789") + 1);
  if (stem != name && (stem == "%envreg" || stem == "%pm")) return true;  // %envreg0, %pm7
  return name.find('.') != std::string_view::npos ||
         one_of(name, "%tid %ntid %ctaid %nctaid %laneid %warpid %nwarpid %smid %nsmid %gridid "
                      "%clock %clock64 %clock_hi %lanemask_eq %lanemask_le %lanemask_lt "
                      "%lanemask_ge %lanemask_gt %globaltimer %globaltimer_lo %globaltimer_hi "
                      "%total_smem_size %dynamic_smem_size %aggr_smem_size");
}

// "ld.global.u32" -> {"ld", "global", "u32"}
std::vector<std::string> split_at_dots(std::string_view s) {
  std::vector<std::string> parts;
  for (size_t dot = s.find('.'); dot != std::string_view::npos; dot = s.find('.')) {
    parts.emplace_back(s.substr(0, dot));
    s.remove_prefix(dot + 1);
  }
  parts.emplace_back(s);
  return parts;
}

constexpr std::string_view kTypes =
    ".b8 .b16 .b32 .b64 .u8 .u16 .u32 .u64 .s8 .s16 .s32 .s64 .f16 .f16x2 .bf16 .f32 .f64 .pred";
constexpr std::string_view kStateSpaces = ".global .const .shared .local .param";
constexpr std::string_view kModuleSpaces = ".global .const .shared";
constexpr std::string_view kBodySpaces = ".reg .shared .local .param";
constexpr std::string_view kLinkage = ".visible .extern .weak .common";
constexpr std::string_view kModuleStarts =
    ".visible .extern .weak .entry .func .version .target .address_size";
constexpr std::string_view kPerformanceDirectives =
    ".maxntid .reqntid .minnctapersm .maxnctapersm .maxnreg .pragma .noreturn "
    ".explicitcluster .reqnctapercluster .maxclusterrank";

struct Recover {};  // thrown once a syntax error is recorded; caught by a statement loop

class Parser {
 public:
  Parser(std::vector<Token> tokens, Diagnostics& diag) : toks_(std::move(tokens)), diag_(diag) {}

  // module := { module_statement }
  PtxModule module() {
    while (peek().kind != TokKind::kEnd) guarded([this] { module_statement(); });
    return std::move(m_);
  }

 private:
  const Token& peek(size_t k = 0) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
  const Token& next() { return toks_[pos_ + 1 < toks_.size() ? pos_++ : pos_]; }  // stays on kEnd
  bool at(std::string_view s) const {
    return (peek().kind == TokKind::kPunct || peek().kind == TokKind::kWord) && peek().text == s;
  }
  bool eat(std::string_view s) { return at(s) ? (next(), true) : false; }
  void expect(std::string_view s) {
    if (!eat(s)) fail_expected(fmt::format("'{}'", s));
  }
  bool at_directive() const { return peek().kind == TokKind::kWord && peek().text[0] == '.'; }
  bool at_name() const {
    return peek().kind == TokKind::kWord && peek().text[0] != '.' && peek().text != "%";
  }

  [[noreturn]] void fail_at(const Token& t, std::string_view message) {
    diag_.error(t.line, t.col, message);
    throw Recover{};
  }
  // "expected X before Y", at Y; or just after the statement's previous token when Y is on a
  // later line (a missing ';' is reported where it belongs).
  void report_expected(std::string_view what) {
    const Token& t = peek();
    std::string found = t.kind == TokKind::kEnd ? "end of file" : fmt::format("'{}'", t.text);
    std::string message = fmt::format("expected {} before {}", what, found);
    const Token* prev = pos_ > statement_start_ ? &toks_[pos_ - 1] : nullptr;
    if (prev && prev->line != t.line)
      return diag_.error(prev->line, prev->col + static_cast<int>(prev->text.size()), message);
    diag_.error(t.line, t.col, message);
  }
  [[noreturn]] void fail_expected(std::string_view what) {
    report_expected(what);
    throw Recover{};
  }

  // Parses one statement; after a syntax error in it, skips to where the next one starts.
  template <typename Parse>
  void guarded(Parse parse) {
    size_t start = statement_start_ = pos_;
    try {
      parse();
    } catch (const Recover&) {
      recover(start);
    }
  }

  // Skips the rest of a broken statement: past the next ';', or up to a brace or to a line
  // that starts a new statement. Always moves past the statement's first token.
  void recover(size_t start) {
    if (pos_ == start) next();
    while (peek().kind != TokKind::kEnd && !at("{") && !at("}") && !starts_statement(pos_))
      if (next().text == ";") return;
  }

  // A token first on its line that is a directive (but .param: a broken parameter list goes
  // on), a guard, a label, or an opcode followed on its line by an operand or ';' (call.uni's
  // continuation lines are not).
  bool starts_statement(size_t i) const {
    const Token& t = toks_[i];
    if (i > 0 && toks_[i - 1].line == t.line) return false;
    if (t.text == "@") return true;
    if (t.kind != TokKind::kWord) return false;
    if (t.text[0] == '.') return t.text != ".param";
    const Token& u = toks_[i + 1];
    return u.line == t.line && u.text != "," && u.text != ")";
  }

  std::string name() {
    if (!at_name()) fail_expected("a name");
    return std::string(next().text);
  }
  int64_t integer() {
    if (peek().kind != TokKind::kNumber) fail_expected("an integer");
    const Token& t = next();
    std::optional<int64_t> v = parse_integer(t.text);
    if (!v) fail_at(t, fmt::format("malformed integer '{}'", t.text));
    return *v;
  }
  int64_t signed_integer() { return eat("-") ? negative_integer() : integer(); }
  int64_t negative_integer() { return static_cast<int64_t>(0 - static_cast<uint64_t>(integer())); }
  // A directive followed by optional arguments: ".maxntid 4, 1, 1", ".pragma \"nounroll\"".
  std::string directive_text() {
    std::string s(next().text);
    if (!at_argument()) return s;
    s += " " + std::string(next().text);
    while (eat(",")) {
      if (!at_argument()) fail_expected("a number or a string");
      s += ", " + std::string(next().text);
    }
    return s;
  }
  bool at_argument() const {
    return peek().kind == TokKind::kNumber || peek().kind == TokKind::kString;
  }

  // module_statement := .version N | .target T{,T} | .address_size N
  //                   | linkage* (function | module_variable)
  void module_statement() {
    int line = peek().line;
    if (eat("{")) return body(scratch_);  // after a broken header: still checked
    if (eat(".version")) {
      if (peek().kind != TokKind::kNumber) fail_expected("a version number");
      m_.version = next().text;
      return;
    }
    if (eat(".target")) return target();
    if (eat(".address_size")) return void(m_.address_size = static_cast<int>(integer()));
    bool visible = linkage();
    if (at(".entry") || at(".func")) return function(line);
    if (at_directive() && one_of(peek().text, kModuleSpaces)) return module_variable(visible);
    if (at_directive()) fail_at(peek(), fmt::format("unknown directive '{}'", peek().text));
    fail_expected("a directive");
  }

  void target() {
    m_.target = name();
    while (eat(",")) m_.target += ", " + name();
  }

  bool linkage() {
    bool visible = false;
    while (at_directive() && one_of(peek().text, kLinkage)) visible = true, next();
    return visible;
  }

  void module_variable(bool visible) {
    std::vector<PtxVar> vars;
    var_decls(vars);
    for (PtxVar& v : vars) v.visible = visible, m_.globals.push_back(std::move(v));
  }

  // function := (.entry | .func [param_list]) name [param_list] performance* (';' | '{' body)
  // A prototype (ending in ';') is dropped: its definition follows, or it is external.
  // Linkage does not matter to the lowering: every .entry is a kernel.
  void function(int line) {
    PtxFunction f;
    f.line = line;
    f.is_entry = next().text == ".entry";
    if (!f.is_entry && at("(")) f.returns = param_list();
    f.name = name();
    if (at("(")) f.params = param_list();
    while (at_directive() && one_of(peek().text, kPerformanceDirectives)) {
      f.directives.push_back(directive_text());
      eat(";");  // .pragma "..."; carries one
    }
    if (eat(";")) return;
    expect("{");
    body(f);
    m_.functions.push_back(std::move(f));
  }

  // param_list := '(' [param {',' param}] ')'
  std::vector<PtxVar> param_list() {
    expect("(");
    std::vector<PtxVar> params;
    if (eat(")")) return params;
    do params.push_back(param()); while (eat(","));
    expect(")");
    return params;
  }

  PtxVar param() {
    if (!at(".param") && !at(".reg")) fail_expected("'.param'");
    PtxVar v = var_head();
    var_name(v);
    return v;
  }

  // var_decls := var_head var_name {',' var_name} ';'
  void var_decls(std::vector<PtxVar>& out) {
    PtxVar head = var_head();
    do {
      PtxVar v = head;
      var_name(v);
      out.push_back(std::move(v));
    } while (eat(","));
    expect(";");
  }

  // var_head := space {.align N | .v2 | .v4 | .ptr | space | type}; the type is required.
  PtxVar var_head() {
    PtxVar v;
    v.line = peek().line;
    v.space = next().text;
    std::string vector;
    while (at_directive()) {
      const Token& a = next();
      if (a.text == ".align") v.align = static_cast<int>(integer());
      else if (a.text == ".v2" || a.text == ".v4" || a.text == ".v8") vector = a.text;
      else if (one_of(a.text, kTypes)) v.type = vector + std::string(a.text);
      else if (a.text != ".ptr" && !one_of(a.text, kStateSpaces))  // nvcc: .ptr .global .align 1
        fail_at(a, fmt::format("unknown attribute '{}' in a declaration", a.text));
    }
    if (v.type.empty()) fail_expected("a type");
    return v;
  }

  // var_name := name ['<' N '>'] {'[' [N] ']'} ['=' initialiser]
  void var_name(PtxVar& v) {
    v.name = name();
    if (eat("<")) v.count = static_cast<int>(integer()), expect(">");
    while (eat("[")) {
      const int64_t n = (v.unsized = at("]")) ? 0 : integer();  // "[]": an unsized .extern array
      expect("]");
      v.array_size = v.array_size < 0 ? n : v.array_size * n;
    }
    if (eat("=")) v.init = initialiser();
  }

  // initialiser := value | '{' [item {',' item}] '}', item := value | nested list
  std::vector<int64_t> initialiser() {
    std::vector<int64_t> values;
    at("{") ? init_list(values) : values.push_back(init_value());
    return values;
  }

  void init_list(std::vector<int64_t>& values) {
    expect("{");
    if (eat("}")) return;
    do at("{") ? init_list(values) : values.push_back(init_value()); while (eat(","));
    expect("}");
  }

  int64_t init_value() {
    if (at_name())
      fail_at(peek(), fmt::format("initialisers naming a symbol ('{}') are not supported",
                                  peek().text));
    if (peek().kind == TokKind::kNumber && looks_like_float(peek().text)) return float_bits();
    return signed_integer();
  }

  int64_t float_bits() {
    const Token& t = next();
    std::optional<int64_t> bits = parse_float_bits(t.text);
    if (!bits)
      fail_at(t, fmt::format("malformed float '{}': 0f needs 8 hex digits, 0d 16", t.text));
    return *bits;
  }

  // body := { '{' | '}' | body_statement } '}'   (after the opening '{')
  // Nested braces (call sequences, nvcc's one-line blocks) are flattened.
  void body(PtxFunction& f) {
    for (int depth = 0;;) {
      if (peek().kind == TokKind::kEnd || (depth == 0 && missing_close_brace()))
        return report_expected("'}'");
      if (eat("}")) {
        if (depth-- == 0) return;
      } else if (eat("{")) {
        ++depth;
      } else {
        guarded([&] { body_statement(f); });
      }
    }
  }

  // A module-level directive at the start of a line inside a body: the '}' was forgotten.
  bool missing_close_brace() const {
    return at_directive() && one_of(peek().text, kModuleStarts) && starts_statement(pos_);
  }

  // body_statement := body_directive | label ':' | instruction
  void body_statement(PtxFunction& f) {
    if (at_directive()) return body_directive(f);
    if (at_name() && peek(1).text == ":" && peek(1).kind == TokKind::kPunct) {
      f.body.push_back({.label = std::string(next().text)});
      return void(next());  // the ':'
    }
    f.body.push_back({.instr = instruction()});
  }

  // body_directive := .pragma strings ';' | (.reg | .shared | .local | .param) var_decls
  void body_directive(PtxFunction& f) {
    if (at(".pragma")) {
      f.directives.push_back(directive_text());
      return expect(";");
    }
    if (one_of(peek().text, kBodySpaces)) return var_decls(f.locals);
    fail_at(peek(), fmt::format("unknown directive '{}'", peek().text));
  }

  // instruction := ['@' ['!'] register] opcode [operand {',' operand}] ';'
  PtxInstr instruction() {
    PtxInstr in;
    in.line = peek().line, in.col = peek().col;
    if (eat("@")) {
      in.guard_negated = eat("!");
      if (!at_name() || peek().text[0] != '%') fail_expected("a predicate register");
      in.guard = next().text;
    }
    if (!at_name() || peek().text[0] == '%') fail_expected("an instruction");
    in.opcode = next().text;
    in.parts = split_at_dots(in.opcode);
    for (bool more = !at(";"); more; more = eat(",")) in.operands.push_back(operand());
    expect(";");
    return in;
  }

  // operand := '(' names ')' | '{' names '}' | address | ['-'] number | register | symbol
  PtxOperand operand() {
    PtxOperand o;
    o.line = peek().line, o.col = peek().col;
    if (at("(")) return list(o, "(", ")");
    if (at("{")) return list(o, "{", "}");
    if (at("[")) return address(o);
    if (at("-") || peek().kind == TokKind::kNumber) return immediate(o);
    if (!at_name()) fail_expected("an operand");
    o.name = next().text;
    o.kind = o.name[0] != '%'                ? PtxOperandKind::kSymbol
             : is_special_register(o.name) ? PtxOperandKind::kSpecial
                                           : PtxOperandKind::kReg;
    if (at("|")) fail_at(peek(), "paired destinations ('a|b') are not supported");
    return o;
  }

  // list := open [name {',' name}] close: call.uni's (retval0) and (param0, ...), or a
  // vector {%r1, %r2}.
  PtxOperand list(PtxOperand o, std::string_view open, std::string_view close) {
    o.kind = PtxOperandKind::kList;
    expect(open);
    if (eat(close)) return o;
    do o.list.push_back(name()); while (eat(","));
    expect(close);
    return o;
  }

  // address := '[' (base [('+' | '-') ['-'] N] | ['-'] N) ']'; base is a register or symbol
  PtxOperand address(PtxOperand o) {
    o.kind = PtxOperandKind::kAddress;
    expect("[");
    if (at("]")) fail_expected("an address");
    if (at_name()) {
      o.name = next().text;
      o.base_is_reg = o.name[0] == '%';
      if (eat("+")) o.imm = signed_integer();
      else if (eat("-")) o.imm = negative_integer();
    } else {
      o.imm = signed_integer();
    }
    expect("]");
    return o;
  }

  PtxOperand immediate(PtxOperand o) {
    bool negative = eat("-");
    bool is_float = !negative && peek().kind == TokKind::kNumber && looks_like_float(peek().text);
    o.kind = is_float ? PtxOperandKind::kFloatImm : PtxOperandKind::kImm;
    if (is_float) o.name = peek().text;  // 0f: binary32, 0d: binary64
    o.imm = is_float ? float_bits() : negative ? negative_integer() : integer();
    return o;
  }

  std::vector<Token> toks_;
  size_t pos_ = 0;
  Diagnostics& diag_;
  size_t statement_start_ = 0;  // first token of the statement being parsed
  PtxFunction scratch_;         // receives bodies whose function header was broken
  PtxModule m_;
};

}  // namespace

PtxModule parse_ptx(std::string_view text, const PtxWhere& where) {
  Diagnostics diag{where, {}};
  PtxModule m = Parser(Lexer(text, diag).tokens(), diag).module();
  if (!diag.problems.empty()) throw Error(diag.joined());
  return m;
}

}  // namespace qgpu
