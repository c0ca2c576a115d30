// The Qwen tokenizer: byte-level BPE loaded from a Hugging Face tokenizer.json.
//
// Supports exactly what Qwen2 / Qwen3 / Qwen3.5 tokenizer.json files hold: an NFC (or null)
// normalizer; a Split (known regex, Isolated) + ByteLevel pre-tokenizer; a BPE model without
// byte fallback; a ByteLevel decoder; added tokens (special or not). Anything else is one
// clear qgpu::Error naming the file and the field.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/pretokenize.h"

namespace qgpu::engine {

// One entry of tokenizer.json's "added_tokens", flags spelled as HF spells them.
struct AddedToken {
  int32_t id = 0;
  std::string content;
  bool special = false;      // dropped by decode(skip_special); not matched when !parse_special
  bool normalized = false;   // matched in normalized text rather than raw text
  bool lstrip = false;       // the match also takes the whitespace on its left
  bool rstrip = false;       // ... and on its right
  bool single_word = false;  // matched only when not inside a word
};

// A BPE merge: (left, right) -> merged, with its priority (lower merges first).
struct BpeMerge {
  int32_t rank = 0;
  int32_t merged = 0;
};

struct BpeCache;  // word -> ids, shared by copies of a Tokenizer (thread-safe)

struct Tokenizer {
  std::string where;  // the file it came from, for messages
  bool nfc = false;   // normalizer NFC (else none)
  SplitPattern pattern = SplitPattern::kQwen2;
  bool ignore_merges = false;  // a whole piece found in the vocab is one token

  std::unordered_map<std::string, int32_t> vocab;      // vocab spelling -> id (BPE model)
  std::unordered_map<uint64_t, BpeMerge> merges;       // (left << 32 | right) -> merge
  std::vector<int32_t> byte_ids;                       // raw byte -> its BPE id (256)
  std::vector<AddedToken> added;                       // in file order
  std::vector<std::string> id_text;                    // id -> vocab spelling or added content
  std::vector<int32_t> id_added;                       // id -> index into added, or -1
  std::shared_ptr<BpeCache> cache;

  // Token ids of `text`. Added tokens are matched first (longest at the leftmost position,
  // as HF does); with parse_special false, special tokens are plain text. Invalid UTF-8 is
  // tokenized as its raw bytes.
  std::vector<int32_t> encode(std::string_view text, bool parse_special = true) const;

  // The bytes the ids stand for (not necessarily valid UTF-8 when a multi-byte character
  // is cut between ids). skip_special drops special added tokens. Unknown ids are an Error.
  std::string decode(std::span<const int32_t> ids, bool skip_special = false) const;

  // The token's spelling: the vocab string (byte alphabet) or the added token's content.
  std::string token_text(int32_t id) const;

  // The id of a vocab spelling or added token content, if any.
  std::optional<int32_t> token_id(std::string_view token) const;

  // Max id + 1 over the vocab and the added tokens.
  int32_t vocab_size() const { return static_cast<int32_t>(id_text.size()); }

  // The ids of one pre-tokenized piece (raw bytes) by BPE; exposed for tests and tools.
  std::vector<int32_t> bpe(std::string_view piece) const;
};

// Loads tokenizer.json from a file; Error names the file and what is wrong.
Tokenizer load_tokenizer(const std::string& tokenizer_json_path);

// Parses tokenizer.json text; `where` names its source in messages.
Tokenizer parse_tokenizer(std::string_view json_text, std::string_view where);

}  // namespace qgpu::engine
