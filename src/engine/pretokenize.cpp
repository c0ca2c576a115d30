// Pre-tokenization: NFC via ICU, the Qwen split regexes matched by hand, GPT-2's byte alphabet.
//
// Approach: the text is decoded once into code points with their byte offsets and a class
// (letter, mark, number, whitespace, newline). The split regex is a fixed alternation, so
// instead of a regex engine we try its seven alternatives in order at each position, each a
// few lines that say exactly what the regex's greedy matching and backtracking produce (the
// way llama.cpp's unicode.cpp handles known patterns). The two known patterns differ only in
// whether combining marks count as letters. Unicode properties come from ICU (u_charType,
// White_Space), normalization from ICU's Normalizer2. Invalid UTF-8 bytes are carried as
// one-byte symbols of their own: HF cannot receive them, and we must not crash on them.
#include "engine/pretokenize.h"

#include <unicode/bytestream.h>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>

#include "base/error.h"

namespace qgpu::engine {
namespace {

// Character classes the split patterns ask about.
enum CharClass : unsigned {
  kLetter = 1,   // \p{L}
  kMark = 2,     // \p{M}
  kNumber = 4,   // \p{N}
  kSpace = 8,    // \s (Unicode White_Space)
  kNewline = 16  // [\r\n]
};

struct CodePoint {
  char32_t cp;       // the code point, or the raw byte value for an invalid byte
  size_t offset;     // byte offset in the text
  unsigned classes;  // CharClass bits
};

// Decodes the UTF-8 sequence at s[i]; returns its length, or 0 for an invalid sequence.
int utf8_sequence(std::string_view s, size_t i, char32_t& cp) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned c = b(i);
  int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
  if (len == 0 || i + len > s.size()) return 0;
  cp = len == 1 ? c : c & (0x7F >> len);
  for (int k = 1; k < len; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3F);
  }
  static constexpr char32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  bool overlong = cp < kMin[len];
  bool bad = overlong || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF);
  return bad ? 0 : len;
}

unsigned classes_of(char32_t cp) {
  if (cp == '\r' || cp == '\n') return kSpace | kNewline;
  uint32_t mask = U_GET_GC_MASK(static_cast<UChar32>(cp));
  unsigned k = 0;
  if (mask & U_GC_L_MASK) k |= kLetter;
  if (mask & U_GC_M_MASK) k |= kMark;
  if (mask & U_GC_N_MASK) k |= kNumber;
  if (u_isUWhiteSpace(static_cast<UChar32>(cp))) k |= kSpace;
  return k;
}

std::vector<CodePoint> decode_text(std::string_view text) {
  std::vector<CodePoint> out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    char32_t cp = 0;
    int len = utf8_sequence(text, i, cp);
    if (len == 0) {  // an invalid byte: a symbol of its own, no class
      out.push_back({static_cast<unsigned char>(text[i]), i, 0});
      i += 1;
      continue;
    }
    out.push_back({cp, i, classes_of(cp)});
    i += len;
  }
  return out;
}

// The matcher for one pattern over decoded text; each alternative returns the end index
// of its match starting at i, or i when it does not match.
struct Splitter {
  const std::vector<CodePoint>& t;
  bool marks_are_letters;

  size_t n() const { return t.size(); }
  bool has(size_t i, unsigned cls) const { return i < n() && (t[i].classes & cls); }
  bool is_letter(size_t i) const { return has(i, marks_are_letters ? kLetter | kMark : kLetter); }
  // [^\s\p{L}\p{N}] (Qwen3.5: also not \p{M})
  bool is_symbol(size_t i) const {
    unsigned excluded = kSpace | kLetter | kNumber | (marks_are_letters ? kMark : 0u);
    return i < n() && !(t[i].classes & excluded);
  }
  char32_t lower_ascii(size_t i) const {
    char32_t c = i < n() ? t[i].cp : 0;
    return (c >= 'A' && c <= 'Z') ? c + 32 : c;
  }

  // (?i:'s|'t|'re|'ve|'m|'ll|'d)
  size_t contraction(size_t i) const {
    if (i >= n() || t[i].cp != '\'') return i;
    char32_t a = lower_ascii(i + 1), b = lower_ascii(i + 2);
    if (a == 's' || a == 't' || a == 'm' || a == 'd') return i + 2;
    if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return i + 3;
    return i;
  }
  // [^\r\n\p{L}\p{N}]?\p{L}+  (Qwen3.5: ...?[\p{L}\p{M}]+)
  size_t word(size_t i) const {
    size_t j = i;
    if (i < n() && !has(i, kNewline | kLetter | kNumber) && is_letter(i + 1)) j = i + 1;
    if (!is_letter(j)) return i;
    while (is_letter(j)) ++j;
    return j;
  }
  // \p{N}
  size_t digit(size_t i) const { return has(i, kNumber) ? i + 1 : i; }
  //  ?[^\s\p{L}\p{N}]+[\r\n]*
  size_t symbols(size_t i) const {
    size_t j = (i < n() && t[i].cp == ' ' && is_symbol(i + 1)) ? i + 1 : i;
    if (!is_symbol(j)) return i;
    while (is_symbol(j)) ++j;
    while (has(j, kNewline)) ++j;
    return j;
  }
  // \s*[\r\n]+ : greedy \s* backtracks to the last newline of the whitespace run.
  size_t newlines(size_t i) const {
    size_t end = i;
    for (size_t j = i; has(j, kSpace); ++j)
      if (has(j, kNewline)) end = j + 1;
    return end;
  }
  // \s+(?!\S) then \s+ : a whitespace run, less its last char when a non-space follows
  // (that char then joins the next piece), unless the run is one char long.
  size_t spaces(size_t i) const {
    size_t j = i;
    while (has(j, kSpace)) ++j;
    if (j == i || j == n() || j - i == 1) return j;
    return j - 1;
  }

  size_t match(size_t i) const {
    for (size_t (Splitter::*alt)(size_t) const :
         {&Splitter::contraction, &Splitter::word, &Splitter::digit, &Splitter::symbols,
          &Splitter::newlines, &Splitter::spaces}) {
      size_t end = (this->*alt)(i);
      if (end > i) return end;
    }
    return i + 1;  // unreachable for these patterns; keeps the loop moving regardless
  }
};

constexpr std::array<char32_t, 256> make_byte_to_unicode() {
  std::array<char32_t, 256> table{};
  char32_t next = 256;
  for (unsigned b = 0; b < 256; ++b) {
    bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
    table[b] = printable ? b : next++;
  }
  return table;
}

constexpr std::array<char32_t, 256> kByteToUnicode = make_byte_to_unicode();

// The inverse: code point (all below 324) -> byte, or -1.
constexpr std::array<int, 324> make_unicode_to_byte() {
  std::array<int, 324> table{};
  for (int& v : table) v = -1;
  for (unsigned b = 0; b < 256; ++b) table[kByteToUnicode[b]] = static_cast<int>(b);
  return table;
}

constexpr std::array<int, 324> kUnicodeToByte = make_unicode_to_byte();

}  // namespace

std::optional<SplitPattern> split_pattern_for(std::string_view regex) {
  if (regex == kQwen2SplitRegex) return SplitPattern::kQwen2;
  if (regex == kQwen35SplitRegex) return SplitPattern::kQwen35;
  return std::nullopt;
}

std::string normalize_nfc(std::string_view text) {
  bool ascii = true;
  for (char c : text) ascii = ascii && static_cast<unsigned char>(c) < 0x80;
  if (ascii) return std::string(text);  // ASCII is always NFC
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* nfc = icu::Normalizer2::getNFCInstance(status);
  if (U_FAILURE(status)) fail("tokenizer: ICU has no NFC normalizer ({})", u_errorName(status));
  std::string out;
  icu::StringByteSink<std::string> sink(&out);
  size_t run = 0, i = 0;
  auto flush = [&](size_t end) {  // normalizes the valid run [run, end)
    if (end == run) return;
    auto piece = text.substr(run, end - run);
    nfc->normalizeUTF8(0, icu::StringPiece(piece.data(), static_cast<int32_t>(piece.size())),
                       sink, nullptr, status);
    if (U_FAILURE(status)) fail("tokenizer: NFC normalization failed ({})", u_errorName(status));
  };
  while (i < text.size()) {
    char32_t cp = 0;
    int len = utf8_sequence(text, i, cp);
    if (len > 0) {
      i += len;
      continue;
    }
    flush(i);
    out.push_back(text[i]);  // the invalid byte, untouched
    run = ++i;
  }
  flush(i);
  return out;
}

std::vector<std::string_view> split_pieces(std::string_view text, SplitPattern pattern) {
  std::vector<CodePoint> cps = decode_text(text);
  Splitter s{cps, pattern == SplitPattern::kQwen35};
  std::vector<std::string_view> pieces;
  for (size_t i = 0; i < cps.size();) {
    size_t end = s.match(i);
    size_t from = cps[i].offset, to = end < cps.size() ? cps[end].offset : text.size();
    pieces.push_back(text.substr(from, to - from));
    i = end;
  }
  return pieces;
}

const std::array<char32_t, 256>& byte_to_unicode() { return kByteToUnicode; }

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

std::string bytes_to_vocab_text(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char c : bytes) append_utf8(out, kByteToUnicode[static_cast<unsigned char>(c)]);
  return out;
}

std::optional<std::string> vocab_text_to_bytes(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    char32_t cp = 0;
    int len = utf8_sequence(text, i, cp);
    if (len == 0 || cp >= kUnicodeToByte.size() || kUnicodeToByte[cp] < 0) return std::nullopt;
    out.push_back(static_cast<char>(kUnicodeToByte[cp]));
    i += len;
  }
  return out;
}

}  // namespace qgpu::engine
