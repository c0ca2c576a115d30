// The tokenizer against its reference: ids from @huggingface/transformers for the real Qwen3
// tokenizer.json (also with the Qwen3.5 split regex) and for our tiny tokenizer; plus the
// split patterns piece by piece, NFC, invalid UTF-8, loader errors and speed.
// Goldens: tests/goldens/tokenizer/ (regenerate: scripts/gen_tokenizer_goldens.mjs).
#include "engine/tokenizer.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>

#include "base/error.h"
#include "engine/pretokenize.h"
#include "engine/tiny_tokenizer.h"
#include "test_util.h"

namespace qgpu::engine {
namespace {

using json = nlohmann::json;

const std::string kGoldens = std::string(QGPU_SOURCE_DIR) + "/tests/goldens/tokenizer/";
constexpr int kTinyMerges = 300;  // the tiny_tokenizer.json committed with the goldens

// The real Qwen3 tokenizer.json (committed gzip-compressed; gzip is essential on Debian).
std::string qwen3_json_text() {
  std::string command = "gzip -dc '" + kGoldens + "qwen3_tokenizer.json.gz'";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return "";
  std::string text;
  char buf[1 << 16];
  for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) text.append(buf, n);
  pclose(pipe);
  return text;
}

// Loaded once per test binary: the 11 MB file takes a moment to parse.
const Tokenizer& qwen3() {
  static const Tokenizer t = parse_tokenizer(qwen3_json_text(), "qwen3_tokenizer.json");
  return t;
}

// The same vocabulary split by the Qwen3.5 pattern (what the Qwen3.5 file's regex selects;
// parsing that regex string is covered by the tiny tokenizer, which uses it).
const Tokenizer& qwen3_with_qwen35_regex() {
  static const Tokenizer t = [] {
    Tokenizer copy = qwen3();
    copy.pattern = SplitPattern::kQwen35;
    return copy;
  }();
  return t;
}

const Tokenizer& tiny() {
  static const Tokenizer t = parse_tokenizer(make_tiny_tokenizer_json(kTinyMerges), "tiny");
  return t;
}

std::string escaped(std::string_view s) { return json(std::string(s)).dump(-1, ' ', true, json::error_handler_t::replace); }

std::string ids_text(const std::vector<int32_t>& ids) { return json(ids).dump(); }

// Compares encode and decode with every case of a golden file; prints the first mismatches.
void expect_matches_golden(const Tokenizer& t, const std::string& file) {
  json cases = json::parse(test_util::read_file(kGoldens + file));
  ASSERT_GT(cases.size(), 100u) << file;
  int mismatches = 0;
  for (const json& c : cases) {
    std::string text = c["text"];
    std::vector<int32_t> expected = c["ids"], actual = t.encode(text);
    std::string decoded = t.decode(actual);
    std::vector<std::string> pieces, expected_pieces = c["pieces"];
    std::string normalized = normalize_nfc(text);
    for (std::string_view p : split_pieces(normalized, t.pattern)) pieces.push_back(bytes_to_vocab_text(p));
    EXPECT_EQ(pieces, expected_pieces) << file << ": split of " << escaped(text);
    bool ok = actual == expected && decoded == c["decoded"].get<std::string>();
    if (!ok && ++mismatches <= 10)
      ADD_FAILURE() << file << ": text " << escaped(text) << "\n  expected " << ids_text(expected)
                    << "\n  actual   " << ids_text(actual) << "\n  decoded  " << escaped(decoded)
                    << " (expected " << escaped(c["decoded"].get<std::string>()) << ")";
  }
  EXPECT_EQ(mismatches, 0) << "of " << cases.size() << " cases in " << file;
}

TEST(TokenizerGolden, Qwen3MatchesTransformersJs) { expect_matches_golden(qwen3(), "qwen3_encode.json"); }

TEST(TokenizerGolden, Qwen35RegexMatchesTransformersJs) {
  expect_matches_golden(qwen3_with_qwen35_regex(), "qwen3_vocab_qwen35_regex_encode.json");
}

TEST(TokenizerGolden, TinyMatchesTransformersJs) { expect_matches_golden(tiny(), "tiny_encode.json"); }

TEST(TokenizerGolden, ChatRendersEncodeLikeTransformersJs) {
  json renders = json::parse(test_util::read_file(kGoldens + "chat_renders.json"));
  for (const json& r : renders) {
    std::vector<int32_t> expected = r["qwen3_ids"];
    EXPECT_EQ(qwen3().encode(r["text"].get<std::string>()), expected) << r["name"];
  }
}

TEST(Tokenizer, Qwen3VocabularyFacts) {
  const Tokenizer& t = qwen3();
  EXPECT_EQ(t.vocab.size(), 151643u);
  EXPECT_EQ(t.added.size(), 26u);
  EXPECT_EQ(t.vocab_size(), 151669);
  EXPECT_EQ(t.token_id("<|im_start|>"), 151644);
  EXPECT_EQ(t.token_id("<|im_end|>"), 151645);
  EXPECT_EQ(t.token_id("Hello"), 9707);
  EXPECT_EQ(t.token_text(9707), "Hello");
  EXPECT_EQ(t.token_text(1879), "\u0120world");  // the byte alphabet spells ' ' as U+0120
  EXPECT_EQ(t.token_id("no such token"), std::nullopt);
  EXPECT_EQ(t.pattern, SplitPattern::kQwen2);
  EXPECT_TRUE(t.nfc);
}

TEST(Tokenizer, SpecialTokensAreTextWhenNotParsed) {
  const Tokenizer& t = qwen3();
  EXPECT_EQ(t.encode("<|im_start|>user"), (std::vector<int32_t>{151644, 872}));
  std::vector<int32_t> plain = t.encode("<|im_start|>user", /*parse_special=*/false);
  EXPECT_EQ(std::count(plain.begin(), plain.end(), 151644), 0) << ids_text(plain);
  EXPECT_EQ(t.decode(plain), "<|im_start|>user");
  // <think> is an added token but not special: still matched.
  EXPECT_EQ(t.encode("<think>", false), std::vector<int32_t>{*t.token_id("<think>")});
}

TEST(Tokenizer, DecodeSkipsSpecialTokensOnRequest) {
  const Tokenizer& t = qwen3();
  std::vector<int32_t> ids = t.encode("<|im_start|>assistant\n<think>\nhi<|im_end|>");
  EXPECT_EQ(t.decode(ids, /*skip_special=*/true), "assistant\n<think>\nhi");
  EXPECT_EQ(t.decode(ids), "<|im_start|>assistant\n<think>\nhi<|im_end|>");
}

TEST(Tokenizer, InvalidUtf8IsKeptAsBytes) {
  const Tokenizer& t = qwen3();
  for (std::string s : {std::string("\xff"), std::string("ab\xc3"), std::string("\xe4\xbd caf\xc3\xa9 \x80\x80"),
                        std::string("\xed\xa0\x80 surrogate"), std::string("\xc0\xaf overlong")}) {
    std::vector<int32_t> ids = t.encode(s);
    EXPECT_FALSE(ids.empty()) << escaped(s);
    EXPECT_EQ(t.decode(ids), s) << escaped(s);
  }
}

TEST(Tokenizer, UnknownIdIsAnError) {
  std::vector<int32_t> ids = {1, 999999};
  try {
    qwen3().decode(ids);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "qwen3_tokenizer.json: token id 999999 is not in the vocabulary (size 151669)");
  }
}

// Long inputs round-trip (tests never assert timings; a quadratic BPE on the 12 KB
// single piece would show as a ctest timeout, and bench/ is where speed is measured).
TEST(Tokenizer, LongTextsRoundTrip) {
  std::string text;
  while (text.size() < 8000)
    text += "The quick brown fox, 12345 times; \u4F60\u597D\u4E16\u754C \u0928\u092E\u0938\u094D\u0924\u0947\n";
  Tokenizer fresh = parse_tokenizer(make_tiny_tokenizer_json(kTinyMerges), "tiny");  // cold cache
  const Tokenizer* subjects[] = {&qwen3(), &fresh};
  for (const Tokenizer* t : subjects) {
    std::vector<int32_t> ids = t->encode(text);
    EXPECT_LT(ids.size(), text.size()) << t->where;
    EXPECT_EQ(t->decode(ids), text) << t->where;
  }
  std::string cjk;  // one long piece
  while (cjk.size() < 12000) cjk += "\u6211\u559C\u6B22\u5403\u82F9\u679C";
  std::vector<int32_t> ids = qwen3().encode(cjk);
  EXPECT_EQ(qwen3().decode(ids), cjk);
}

// ---- the split patterns, piece by piece ----

std::vector<std::string> pieces(std::string_view text, SplitPattern p) {
  std::vector<std::string> out;
  for (std::string_view s : split_pieces(text, p)) out.emplace_back(s);
  return out;
}

using Pieces = std::vector<std::string>;

TEST(Pretokenize, SplitsLikeTheQwenRegex) {
  auto q2 = SplitPattern::kQwen2;
  EXPECT_EQ(pieces("Hello world", q2), (Pieces{"Hello", " world"}));
  EXPECT_EQ(pieces("I'll don't WE'RE", q2), (Pieces{"I", "'ll", " don", "'t", " WE", "'RE"}));
  EXPECT_EQ(pieces("x=12345;", q2), (Pieces{"x", "=", "1", "2", "3", "4", "5", ";"}));
  EXPECT_EQ(pieces("a  b", q2), (Pieces{"a", " ", " b"}));
  EXPECT_EQ(pieces("a\n\n b", q2), (Pieces{"a", "\n\n", " b"}));
  EXPECT_EQ(pieces("a \t\n  b  ", q2), (Pieces{"a", " \t\n", " ", " b", "  "}));
  EXPECT_EQ(pieces("f(x):\n\treturn", q2), (Pieces{"f", "(x", "):\n", "\treturn"}));
  EXPECT_EQ(pieces(" ...!\r\n\r\nx", q2), (Pieces{" ...!\r\n\r\n", "x"}));
  EXPECT_EQ(pieces("", q2), Pieces{});
}

TEST(Pretokenize, Qwen35KeepsCombiningMarksWithLetters) {
  std::string hindi = "\u0928\u092E\u0938\u094D\u0924\u0947";  // virama and vowel signs are \p{M}
  EXPECT_EQ(pieces(hindi, SplitPattern::kQwen35), Pieces{hindi});
  EXPECT_EQ(pieces(hindi, SplitPattern::kQwen2),
            (Pieces{"\u0928\u092E\u0938", "\u094D\u0924", "\u0947"}));  // a mark is a symbol
  EXPECT_EQ(pieces(" \u0301a", SplitPattern::kQwen35), Pieces{" \u0301a"});
  EXPECT_EQ(pieces(" \u0301a", SplitPattern::kQwen2), (Pieces{" \u0301", "a"}));
}

TEST(Pretokenize, NfcComposesAndKeepsInvalidBytes) {
  EXPECT_EQ(normalize_nfc("e\u0301"), "\u00E9");
  EXPECT_EQ(normalize_nfc("\u212B"), "\u00C5");  // Angstrom sign -> A with ring
  EXPECT_EQ(normalize_nfc("\u1100\u1161"), "\uAC00");
  EXPECT_EQ(normalize_nfc("plain"), "plain");
  EXPECT_EQ(normalize_nfc("e\u0301\xff" "e\u0301"), "\u00E9\xff\u00E9");
}

TEST(Pretokenize, ByteAlphabetRoundTrips) {
  std::string all;
  for (int b = 0; b < 256; ++b) all.push_back(static_cast<char>(b));
  EXPECT_EQ(vocab_text_to_bytes(bytes_to_vocab_text(all)), all);
  EXPECT_EQ(bytes_to_vocab_text(" \n"), "\u0120\u010A");
  EXPECT_EQ(vocab_text_to_bytes("\u4F60"), std::nullopt);
}

// ---- loading: formats and errors ----

json tiny_json() { return json::parse(make_tiny_tokenizer_json(40)); }

std::string load_error(const json& j) {
  try {
    parse_tokenizer(j.dump(), "t.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(TokenizerLoad, MergesAsStringsEqualMergesAsPairs) {
  json j = tiny_json();
  for (json& m : j["model"]["merges"]) m = m[0].get<std::string>() + " " + m[1].get<std::string>();
  Tokenizer pairs = parse_tokenizer(tiny_json().dump(), "pairs"), strings = parse_tokenizer(j.dump(), "strings");
  for (std::string s : {"the quick brown fox", "The assistant thinks.\n\n", "12345 don't"})
    EXPECT_EQ(pairs.encode(s), strings.encode(s)) << s;
}

TEST(TokenizerLoad, AddedTokenStripFlags) {
  json j = tiny_json();
  j["added_tokens"][1]["lstrip"] = true;  // <|im_start|>
  j["added_tokens"][2]["rstrip"] = true;  // <|im_end|>
  Tokenizer t = parse_tokenizer(j.dump(), "strip");
  int32_t start = *t.token_id("<|im_start|>"), end = *t.token_id("<|im_end|>");
  EXPECT_EQ(t.encode("  <|im_start|>"), std::vector<int32_t>{start});
  EXPECT_EQ(t.encode("<|im_end|> \n "), std::vector<int32_t>{end});
}

// Added tokens are found longest first, then in the file's order, a single_word one only
// as a whole word; with thousands of them (a merged checkpoint's GPU tokens) as well.
TEST(TokenizerLoad, AddedTokensLongestFirstAndSingleWord) {
  json j = tiny_json();
  int32_t next = 0;
  for (const json& a : j["added_tokens"]) next = std::max(next, a["id"].get<int32_t>() + 1);
  auto add = [&](const std::string& content, bool single_word) {
    j["added_tokens"].push_back({{"id", next}, {"content", content}, {"single_word", single_word}, {"lstrip", false},
                                 {"rstrip", false}, {"normalized", false}, {"special", true}});
    return next++;
  };
  const int32_t x = add("<x>", false), xy = add("<x>y", false), cat = add("cat", true);
  for (int i = 0; i < 5000; ++i) add(fmt::format("<|g:{}|>", i), false);
  const int32_t g4999 = next - 1;
  Tokenizer t = parse_tokenizer(j.dump(), "added");
  auto has = [](const std::vector<int32_t>& ids, int32_t id) { return std::count(ids.begin(), ids.end(), id); };
  const std::vector<int32_t> a = t.encode("a<x>yb<x>z<|g:4999|><|g:49|>");
  EXPECT_EQ(has(a, xy), 1);
  EXPECT_EQ(has(a, x), 1);
  EXPECT_EQ(has(a, g4999), 1);
  EXPECT_EQ(has(a, g4999 - 4950), 1);  // <|g:49|>
  EXPECT_EQ(has(t.encode("a cat"), cat), 1);
  EXPECT_EQ(has(t.encode("concat cats"), cat), 0);
  EXPECT_EQ(t.encode("<|g:12|>"), std::vector<int32_t>{g4999 - 4987});
}

TEST(TokenizerLoad, ErrorsNameTheFileAndTheProblem) {
  EXPECT_EQ(load_error("a string"), "t.json: tokenizer.json has no \"normalizer\" in the file; is this a Hugging Face tokenizer.json?");
  try {
    parse_tokenizer("{", "t.json");
  } catch (const Error& e) {
    EXPECT_TRUE(std::string(e.what()).starts_with("t.json: not valid JSON (")) << e.what();
  }
  json j = tiny_json();
  j.erase("model");
  EXPECT_EQ(load_error(j), "t.json: tokenizer.json has no \"model\" in the file; is this a Hugging Face tokenizer.json?");
  j = tiny_json();
  j["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = "\\s+";
  EXPECT_EQ(load_error(j), "t.json: pre_tokenizer split regex \"\\\\s+\" is not one qgpu knows (the Qwen2/Qwen3 or the Qwen3.5 pattern); add a matcher for it in src/engine/pretokenize.cpp");
  j = tiny_json();
  j["model"]["merges"][3] = json::array({"zz", "q"});
  EXPECT_EQ(load_error(j), "t.json: model.merges[3] uses \"zz\", which is not in model.vocab");
  j = tiny_json();
  j["model"]["byte_fallback"] = true;
  EXPECT_EQ(load_error(j), "t.json: model has byte_fallback true; qgpu reads byte-level BPE");
  j = json::parse(make_tiny_tokenizer_json(0));
  j["model"]["vocab"].erase("!");
  EXPECT_EQ(load_error(j), "t.json: model.vocab has no token for byte 0x21; byte-level BPE needs all 256");
  j = tiny_json();
  j["normalizer"] = {{"type", "NFKC"}};
  EXPECT_EQ(load_error(j), "t.json: normalizer {\"type\":\"NFKC\"} is not supported; qgpu reads Qwen's NFC normalizer or null");
}

TEST(TokenizerLoad, MissingFileIsAnError) {
  try {
    load_tokenizer("/nonexistent/tokenizer.json");
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/tokenizer.json: cannot read the tokenizer.json (No such file or directory)");
  }
}

// ---- the tiny tokenizer ----

TEST(TinyTokenizer, MatchesTheCommittedFile) {
  std::string json_text = make_tiny_tokenizer_json(kTinyMerges);
  std::string path = kGoldens + "tiny_tokenizer.json";
  if (std::getenv("QGPU_UPDATE_GOLDENS")) std::ofstream(path, std::ios::binary) << json_text;
  EXPECT_EQ(test_util::read_file(path), json_text)
      << "tiny_tokenizer.json is stale: run with QGPU_UPDATE_GOLDENS=1, then regenerate the goldens";
}

TEST(TinyTokenizer, LayoutIsQwen35) {
  const Tokenizer& t = tiny();
  EXPECT_EQ(t.pattern, SplitPattern::kQwen35);
  EXPECT_TRUE(t.nfc);
  EXPECT_EQ(t.token_text(0), "!");  // GPT-2 byte order, as in Qwen's vocab
  EXPECT_EQ(t.added.size(), 9u);
  EXPECT_EQ(t.added.front().id, static_cast<int32_t>(t.vocab.size()));
  EXPECT_EQ(t.vocab_size(), static_cast<int32_t>(t.vocab.size() + 9));
  EXPECT_GT(t.merges.size(), 250u);
  EXPECT_EQ(t.encode("<|im_start|>user\n<think>"),
            (std::vector<int32_t>{*t.token_id("<|im_start|>"), *t.token_id("user"), *t.token_id("\u010A"),
                                  *t.token_id("<think>")}));
}

TEST(TinyTokenizer, ZeroMergesIsPureBytes) {
  Tokenizer t = parse_tokenizer(make_tiny_tokenizer_json(0), "tiny0");
  EXPECT_EQ(t.vocab_size(), 256 + 9);
  EXPECT_EQ(t.encode("hi!").size(), 3u);
}

}  // namespace
}  // namespace qgpu::engine
