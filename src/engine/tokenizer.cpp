// Byte-level BPE: loading tokenizer.json, encode and decode.
//
// Approach: loading checks every field we depend on and refuses anything else with one Error
// naming the file and the field (a tokenizer that silently differs from HF is worse than none).
// The vocab maps spellings to ids; merges are keyed by the id pair, so the merge loop works on
// ints. encode follows HF's order: added tokens are split out of the raw text first (leftmost,
// then longest), the rest is NFC-normalized, split by the pattern (pretokenize.cpp), and each
// piece's bytes go through BPE. BPE merges the lowest-ranked adjacent pair first (leftmost on
// ties) using a heap with lazy invalidation, as HF's Word::merge_all does, so long pieces
// (a page of CJK has no spaces) stay O(n log n); results per piece are cached.
#include "engine/tokenizer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <functional>
#include <fstream>
#include <mutex>
#include <queue>
#include <sstream>
#include <unordered_map>

#include "base/error.h"
#include "base/text_file.h"

namespace qgpu::engine {

struct BpeCache {
  static constexpr size_t kMaxEntries = 1 << 16;
  static constexpr size_t kMaxPieceBytes = 256;
  std::mutex mutex;
  std::unordered_map<std::string, std::vector<int32_t>> ids;
};

namespace {

using json = nlohmann::json;

uint64_t pair_key(int32_t left, int32_t right) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
}

std::string dump_short(const json& j) {
  std::string s = j.dump();
  return s.size() > 200 ? s.substr(0, 200) + "..." : s;
}

// The field `key` of object `obj` (at `path`), or an Error naming both.
const json& field(const json& obj, const char* key, std::string_view path, std::string_view where) {
  if (!obj.is_object() || !obj.contains(key))
    fail("{}: tokenizer.json has no \"{}\" in {}; is this a Hugging Face tokenizer.json?", where, key,
         path);
  return obj.at(key);
}

bool flag(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_boolean() && it->get<bool>();
}

bool is_null_or_empty(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it == obj.end() || it->is_null() || (it->is_string() && it->get<std::string>().empty());
}

bool parse_normalizer(const json& n, std::string_view where) {
  if (n.is_null()) return false;
  std::string type = n.value("type", "");
  if (type == "NFC") return true;
  if (type == "Sequence" && n.contains("normalizers") && n["normalizers"].size() == 1 &&
      n["normalizers"][0].value("type", "") == "NFC")
    return true;
  fail("{}: normalizer {} is not supported; qgpu reads Qwen's NFC normalizer or null", where,
       dump_short(n));
}

SplitPattern parse_split(const json& split, std::string_view where) {
  const json& pattern = field(split, "pattern", "pre_tokenizer Split", where);
  if (!pattern.contains("Regex") || !pattern["Regex"].is_string())
    fail("{}: pre_tokenizer Split pattern {} is not a regex; qgpu knows only Qwen's split regexes",
         where, dump_short(pattern));
  std::string regex = pattern["Regex"].get<std::string>();
  if (split.value("behavior", "") != "Isolated" || flag(split, "invert"))
    fail("{}: pre_tokenizer Split must have behavior Isolated and invert false, got {}", where,
         dump_short(split));
  auto known = split_pattern_for(regex);
  if (!known)
    fail("{}: pre_tokenizer split regex {} is not one qgpu knows (the Qwen2/Qwen3 or the Qwen3.5 "
         "pattern); add a matcher for it in src/engine/pretokenize.cpp",
         where, json(regex).dump());
  return *known;
}

void check_byte_level(const json& b, std::string_view what, std::string_view where) {
  if (b.value("type", "") != "ByteLevel")
    fail("{}: {} must be ByteLevel, got {}", where, what, dump_short(b));
  if (flag(b, "add_prefix_space"))
    fail("{}: {} ByteLevel has add_prefix_space true; Qwen tokenizers do not", where, what);
}

SplitPattern parse_pre_tokenizer(const json& p, std::string_view where) {
  const json* list = p.is_object() && p.value("type", "") == "Sequence" && p.contains("pretokenizers")
                         ? &p["pretokenizers"]
                         : nullptr;
  if (!list || list->size() != 2 || (*list)[0].value("type", "") != "Split")
    fail("{}: pre_tokenizer {} is not Sequence[Split, ByteLevel] as in Qwen's tokenizer.json",
         where, dump_short(p));
  check_byte_level((*list)[1], "pre_tokenizer", where);
  if (flag((*list)[1], "use_regex"))
    fail("{}: pre_tokenizer ByteLevel has use_regex true; expected false after a Split", where);
  return parse_split((*list)[0], where);
}

void check_model(const json& m, std::string_view where) {
  if (m.value("type", "BPE") != "BPE")
    fail("{}: model type {} is not supported; qgpu reads byte-level BPE", where, dump_short(m["type"]));
  if (flag(m, "byte_fallback")) fail("{}: model has byte_fallback true; qgpu reads byte-level BPE", where);
  if (m.contains("dropout") && !m["dropout"].is_null())
    fail("{}: model has BPE dropout {}; only null is supported", where, m["dropout"].dump());
  if (!is_null_or_empty(m, "continuing_subword_prefix") || !is_null_or_empty(m, "end_of_word_suffix"))
    fail("{}: model has a continuing_subword_prefix or end_of_word_suffix; Qwen's BPE has neither",
         where);
}

void set_id_text(Tokenizer& t, int32_t id, const std::string& text) {
  if (id < 0) fail("{}: token {} has negative id {}", t.where, json(text).dump(), id);
  if (static_cast<size_t>(id) >= t.id_text.size()) {
    t.id_text.resize(id + 1);
    t.id_added.resize(id + 1, -1);
  }
  t.id_text[id] = text;
}

void parse_vocab(Tokenizer& t, const json& vocab) {
  if (!vocab.is_object()) fail("{}: model.vocab is not an object of token -> id", t.where);
  for (const auto& [text, id] : vocab.items()) {
    if (!id.is_number_integer()) fail("{}: model.vocab[{}] is not an integer id", t.where, json(text).dump());
    int32_t v = id.get<int32_t>();
    if (v >= 0 && static_cast<size_t>(v) < t.id_text.size() && !t.id_text[v].empty())
      fail("{}: model.vocab gives id {} to both {} and {}", t.where, v, json(t.id_text[v]).dump(),
           json(text).dump());
    set_id_text(t, v, text);
    t.vocab.emplace(text, v);
  }
}

// One merge as its two parts; merges are "a b" strings (older files) or [a, b] arrays.
std::pair<std::string, std::string> merge_parts(const json& m, size_t i, std::string_view where) {
  if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string())
    return {m[0].get<std::string>(), m[1].get<std::string>()};
  if (m.is_string()) {
    std::string s = m.get<std::string>();
    size_t space = s.find(' ');
    if (space != std::string::npos && s.find(' ', space + 1) == std::string::npos)
      return {s.substr(0, space), s.substr(space + 1)};
  }
  fail("{}: model.merges[{}] is {}; expected \"a b\" or [\"a\", \"b\"]", where, i, dump_short(m));
}

int32_t vocab_id(const Tokenizer& t, const std::string& text, size_t merge_index) {
  auto it = t.vocab.find(text);
  if (it == t.vocab.end())
    fail("{}: model.merges[{}] uses {}, which is not in model.vocab", t.where, merge_index,
         json(text).dump());
  return it->second;
}

void parse_merges(Tokenizer& t, const json& merges) {
  if (!merges.is_array()) fail("{}: model.merges is not an array", t.where);
  t.merges.reserve(merges.size());
  for (size_t i = 0; i < merges.size(); ++i) {
    auto [a, b] = merge_parts(merges[i], i, t.where);
    int32_t left = vocab_id(t, a, i), right = vocab_id(t, b, i), merged = vocab_id(t, a + b, i);
    t.merges.emplace(pair_key(left, right), BpeMerge{static_cast<int32_t>(i), merged});  // first wins
  }
}

void find_byte_ids(Tokenizer& t) {
  t.byte_ids.resize(256);
  for (unsigned b = 0; b < 256; ++b) {
    auto it = t.vocab.find(bytes_to_vocab_text(std::string(1, static_cast<char>(b))));
    if (it == t.vocab.end())
      fail("{}: model.vocab has no token for byte 0x{:02x}; byte-level BPE needs all 256", t.where, b);
    t.byte_ids[b] = it->second;
  }
}

void parse_added_tokens(Tokenizer& t, const json& list) {
  if (!list.is_array()) fail("{}: added_tokens is not an array", t.where);
  for (const json& a : list) {
    const json& id = field(a, "id", "an added_tokens entry", t.where);
    const json& content = field(a, "content", "an added_tokens entry", t.where);
    if (!id.is_number_integer() || !content.is_string() || content.get<std::string>().empty())
      fail("{}: added token {} needs an integer id and non-empty content", t.where, dump_short(a));
    AddedToken tok{.id = id.get<int32_t>(), .content = content.get<std::string>(),
                   .special = flag(a, "special"), .normalized = flag(a, "normalized"),
                   .lstrip = flag(a, "lstrip"), .rstrip = flag(a, "rstrip"),
                   .single_word = flag(a, "single_word")};
    set_id_text(t, tok.id, tok.content);
    t.id_added[tok.id] = static_cast<int32_t>(t.added.size());
    t.added.push_back(std::move(tok));
  }
}

bool is_ascii_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
bool is_word_byte(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  return u >= 0x80 || std::isalnum(u) || c == '_';
}

// A piece of input: plain text, or an added token's id with the text it covers.
struct Segment {
  std::string_view text;
  int32_t added_id = -1;
};

// Added tokens by their text, for finding them in a text: a merged checkpoint's tokenizer
// has 34,722 GPU tokens, and trying each at every byte took 7 s to encode the chat's
// system prompt. A position is tried only when its byte starts some token, and then one
// lookup per distinct token length, longest first.
struct AddedIndex {
  std::array<bool, 256> starts{};
  std::vector<size_t> lengths;  // distinct content lengths, longest first
  std::unordered_map<std::string_view, std::vector<const AddedToken*>> by_text;  // in the tokens' order

  explicit AddedIndex(const std::vector<const AddedToken*>& tokens) {
    for (const AddedToken* tok : tokens) {
      if (tok->content.empty()) continue;
      starts[static_cast<unsigned char>(tok->content[0])] = true;
      std::vector<const AddedToken*>& same = by_text[tok->content];
      if (same.empty()) lengths.push_back(tok->content.size());
      same.push_back(tok);
    }
    std::sort(lengths.begin(), lengths.end(), std::greater<>());
    lengths.erase(std::unique(lengths.begin(), lengths.end()), lengths.end());
  }
  bool empty() const { return by_text.empty(); }
};

// The first (then longest; then the first listed) match of an added token in text at or
// after `from`.
std::optional<Segment> find_added(std::string_view text, size_t from, const AddedIndex& index, size_t& begin) {
  for (size_t pos = from; pos < text.size(); ++pos) {
    if (!index.starts[static_cast<unsigned char>(text[pos])]) continue;
    const AddedToken* best = nullptr;
    for (size_t length : index.lengths) {
      if (length > text.size() - pos) continue;
      const auto it = index.by_text.find(text.substr(pos, length));
      if (it == index.by_text.end()) continue;
      const size_t end = pos + length;
      const bool inside_word = (pos > 0 && is_word_byte(text[pos - 1])) || (end < text.size() && is_word_byte(text[end]));
      for (const AddedToken* tok : it->second)
        if (!(tok->single_word && inside_word)) {
          best = tok;
          break;
        }
      if (best) break;
    }
    if (!best) continue;
    size_t b = pos, e = pos + best->content.size();
    while (best->lstrip && b > from && is_ascii_space(text[b - 1])) --b;
    while (best->rstrip && e < text.size() && is_ascii_space(text[e])) ++e;
    begin = b;
    return Segment{text.substr(b, e - b), best->id};
  }
  return std::nullopt;
}

// Splits text into plain segments and added-token segments.
std::vector<Segment> split_added(std::string_view text, const AddedIndex& index) {
  std::vector<Segment> out;
  size_t from = 0;
  while (!index.empty() && from < text.size()) {
    size_t begin = 0;
    auto match = find_added(text, from, index, begin);
    if (!match) break;
    if (begin > from) out.push_back({text.substr(from, begin - from)});
    out.push_back(*match);
    from = begin + match->text.size();
  }
  if (from < text.size()) out.push_back({text.substr(from)});
  return out;
}

std::vector<const AddedToken*> added_matching(const Tokenizer& t, bool normalized, bool parse_special) {
  std::vector<const AddedToken*> out;
  for (const AddedToken& a : t.added)
    if (a.normalized == normalized && (parse_special || !a.special)) out.push_back(&a);
  return out;
}

// Merges the lowest-ranked adjacent pair (leftmost on ties) until none merges.
void merge_all(const Tokenizer& t, std::vector<int32_t>& ids) {
  struct Candidate {
    int32_t rank;
    size_t pos;
    int32_t merged;
    bool operator>(const Candidate& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
  };
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> heap;
  std::vector<size_t> next(ids.size()), prev(ids.size());
  std::vector<bool> alive(ids.size(), true);
  auto push = [&](size_t left, size_t right) {
    auto it = t.merges.find(pair_key(ids[left], ids[right]));
    if (it != t.merges.end()) heap.push({it->second.rank, left, it->second.merged});
  };
  for (size_t i = 0; i < ids.size(); ++i) {
    next[i] = i + 1;
    prev[i] = i - 1;  // wraps to SIZE_MAX for i == 0, which reads as 'none' below
    if (i + 1 < ids.size()) push(i, i + 1);
  }
  while (!heap.empty()) {
    Candidate c = heap.top();
    heap.pop();
    size_t right = next[c.pos];
    if (!alive[c.pos] || right >= ids.size()) continue;
    auto it = t.merges.find(pair_key(ids[c.pos], ids[right]));
    if (it == t.merges.end() || it->second.merged != c.merged) continue;  // stale entry
    ids[c.pos] = c.merged;
    alive[right] = false;
    next[c.pos] = next[right];
    if (next[c.pos] < ids.size()) prev[next[c.pos]] = c.pos;
    if (prev[c.pos] < ids.size()) push(prev[c.pos], c.pos);
    if (next[c.pos] < ids.size()) push(c.pos, next[c.pos]);
  }
  std::vector<int32_t> kept;
  for (size_t i = 0; i < ids.size(); i = next[i]) kept.push_back(ids[i]);
  ids = std::move(kept);
}

}  // namespace

std::vector<int32_t> Tokenizer::bpe(std::string_view piece) const {
  if (ignore_merges) {
    auto it = vocab.find(bytes_to_vocab_text(piece));
    if (it != vocab.end()) return {it->second};
  }
  bool cacheable = cache && piece.size() <= BpeCache::kMaxPieceBytes;
  if (cacheable) {
    std::lock_guard lock(cache->mutex);
    auto it = cache->ids.find(std::string(piece));
    if (it != cache->ids.end()) return it->second;
  }
  std::vector<int32_t> ids;
  ids.reserve(piece.size());
  for (char c : piece) ids.push_back(byte_ids[static_cast<unsigned char>(c)]);
  merge_all(*this, ids);
  if (cacheable) {
    std::lock_guard lock(cache->mutex);
    if (cache->ids.size() >= BpeCache::kMaxEntries) cache->ids.clear();
    cache->ids.emplace(std::string(piece), ids);
  }
  return ids;
}

std::vector<int32_t> Tokenizer::encode(std::string_view text, bool parse_special) const {
  std::vector<int32_t> out;
  const AddedIndex raw_tokens(added_matching(*this, false, parse_special));
  const AddedIndex normalized_tokens(added_matching(*this, true, parse_special));
  for (const Segment& seg : split_added(text, raw_tokens)) {
    if (seg.added_id >= 0) {
      out.push_back(seg.added_id);
      continue;
    }
    std::string normalized = nfc ? normalize_nfc(seg.text) : std::string(seg.text);
    for (const Segment& inner : split_added(normalized, normalized_tokens)) {
      if (inner.added_id >= 0) {
        out.push_back(inner.added_id);
        continue;
      }
      for (std::string_view piece : split_pieces(inner.text, pattern)) {
        std::vector<int32_t> ids = bpe(piece);
        out.insert(out.end(), ids.begin(), ids.end());
      }
    }
  }
  return out;
}

std::string Tokenizer::token_text(int32_t id) const {
  if (id < 0 || id >= vocab_size() || id_text[id].empty())
    fail("{}: token id {} is not in the vocabulary (size {})", where, id, vocab_size());
  return id_text[id];
}

std::string Tokenizer::decode(std::span<const int32_t> ids, bool skip_special) const {
  std::string out;
  for (int32_t id : ids) {
    std::string text = token_text(id);
    int32_t added_index = id_added[id];
    if (added_index >= 0) {
      if (!(skip_special && added[added_index].special)) out += text;
      continue;
    }
    auto bytes = vocab_text_to_bytes(text);
    out += bytes ? *bytes : text;  // a spelling outside the byte alphabet decodes as itself
  }
  return out;
}

std::optional<int32_t> Tokenizer::token_id(std::string_view token) const {
  for (const AddedToken& a : added)
    if (a.content == token) return a.id;
  auto it = vocab.find(std::string(token));
  if (it == vocab.end()) return std::nullopt;
  return it->second;
}

Tokenizer parse_tokenizer(std::string_view json_text, std::string_view where) {
  json j;
  try {
    j = json::parse(json_text);
  } catch (const json::exception& e) {
    fail("{}: not valid JSON ({}); expected a Hugging Face tokenizer.json", where, e.what());
  }
  Tokenizer t{.where = std::string(where)};
  t.nfc = parse_normalizer(field(j, "normalizer", "the file", where), where);
  t.pattern = parse_pre_tokenizer(field(j, "pre_tokenizer", "the file", where), where);
  check_byte_level(field(j, "decoder", "the file", where), "decoder", where);
  const json& model = field(j, "model", "the file", where);
  check_model(model, where);
  t.ignore_merges = flag(model, "ignore_merges");
  parse_vocab(t, field(model, "vocab", "model", where));
  parse_merges(t, field(model, "merges", "model", where));
  find_byte_ids(t);
  parse_added_tokens(t, j.contains("added_tokens") ? j["added_tokens"] : json::array());
  t.cache = std::make_shared<BpeCache>();
  return t;
}

Tokenizer load_tokenizer(const std::string& tokenizer_json_path) {
  return parse_tokenizer(read_text_file(tokenizer_json_path, kMaxJsonBytes, "tokenizer.json"), tokenizer_json_path);
}

}  // namespace qgpu::engine
