// The tiny tokenizer.json: byte-level BPE trained on a built-in paragraph.
//
// Approach: plain BPE training, the textbook loop. The built-in text is pre-tokenized with
// the Qwen3.5 split pattern (so merges never cross piece boundaries, as in the real
// tokenizer), each piece is spelled in the byte alphabet, and each round merges the most
// frequent adjacent pair; ties go to the lexicographically smallest pair so the output is
// fully deterministic. The JSON mirrors the field layout of Qwen's own tokenizer.json.
#include "engine/tiny_tokenizer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

#include "base/error.h"
#include "engine/pretokenize.h"

namespace qgpu::engine {
namespace {

using ojson = nlohmann::ordered_json;

// Training text: plain English with some code, numbers and punctuation, so the merges
// cover common words, spaces before words, and newlines.
constexpr std::string_view kTrainingText = R"(The quick brown fox jumps over the lazy dog.
A small machine runs inside the weights of a language model. You write a kernel; the
compiler turns it into blocks, and the model generates the execution records token by token.
The host reads the results out of the recurrent state. It is slow, but it is exact, and
every step can be checked against the reference interpreter.

We test the tokenizer against the real one: the same text must give the same tokens.
Numbers like 12345 and 2024 are split into single digits; words like don't and we'll keep
their endings apart. Whitespace runs, tabs	and new lines
are pieces of their own.

for (int i = 0; i < n; i += 1) { out[i] = a[i] + b[i]; }
if (x > 0) return x; else return -x;

The user asks a question and the assistant answers it. The assistant may call a tool,
and the tool's response comes back to the assistant in the next turn. Then the assistant
thinks, and then it writes the answer for the user. That is the whole conversation.
)";

constexpr const char* kAddedTokens[] = {"<|endoftext|>", "<|im_start|>", "<|im_end|>",
                                        "<think>",       "</think>",     "<tool_call>",
                                        "</tool_call>",  "<tool_response>", "</tool_response>"};

// A training word: its symbols (vocab spellings) and how often it occurs.
struct Word {
  std::vector<std::string> symbols;
  int count = 0;
};

std::vector<Word> training_words() {
  std::map<std::string, int> counts;  // ordered, for determinism
  for (std::string_view piece : split_pieces(kTrainingText, SplitPattern::kQwen35))
    counts[std::string(piece)] += 1;
  std::vector<Word> words;
  for (const auto& [piece, count] : counts) {
    Word w{.count = count};
    for (char c : piece) w.symbols.push_back(bytes_to_vocab_text(std::string(1, c)));
    words.push_back(std::move(w));
  }
  return words;
}

// The most frequent adjacent pair (smallest on ties), or nullopt when every word is one symbol.
std::optional<std::pair<std::string, std::string>> best_pair(const std::vector<Word>& words) {
  std::map<std::pair<std::string, std::string>, int> counts;
  for (const Word& w : words)
    for (size_t i = 0; i + 1 < w.symbols.size(); ++i) counts[{w.symbols[i], w.symbols[i + 1]}] += w.count;
  const std::pair<std::string, std::string>* best = nullptr;
  int best_count = 0;
  for (const auto& [pair, count] : counts)
    if (count > best_count) best = &pair, best_count = count;
  if (!best) return std::nullopt;
  return *best;
}

void apply_merge(std::vector<Word>& words, const std::string& a, const std::string& b) {
  for (Word& w : words) {
    std::vector<std::string> merged;
    for (size_t i = 0; i < w.symbols.size(); ++i) {
      if (i + 1 < w.symbols.size() && w.symbols[i] == a && w.symbols[i + 1] == b) {
        merged.push_back(a + b);
        ++i;
      } else {
        merged.push_back(w.symbols[i]);
      }
    }
    w.symbols = std::move(merged);
  }
}

// The 256 byte tokens in GPT-2 order: printable bytes first, then the remapped ones.
ojson byte_vocab() {
  ojson vocab = ojson::object();
  std::vector<std::pair<char32_t, unsigned>> by_code_point;
  for (unsigned b = 0; b < 256; ++b) by_code_point.push_back({byte_to_unicode()[b], b});
  std::sort(by_code_point.begin(), by_code_point.end());
  for (const auto& [cp, b] : by_code_point) {
    size_t id = vocab.size();
    vocab[bytes_to_vocab_text(std::string(1, static_cast<char>(b)))] = id;
  }
  return vocab;
}

ojson byte_level(bool with_use_regex) {
  ojson b = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", false}};
  if (with_use_regex) b["use_regex"] = false;
  return b;
}

ojson added_tokens(size_t first_id) {
  ojson list = ojson::array();
  for (size_t k = 0; k < std::size(kAddedTokens); ++k)
    list.push_back({{"id", first_id + k}, {"content", kAddedTokens[k]}, {"single_word", false},
                    {"lstrip", false}, {"rstrip", false}, {"normalized", false},
                    {"special", k < 3}});  // as in Qwen3: <think> and the tool tags are not special
  return list;
}

ojson pre_tokenizer() {
  ojson split = {{"type", "Split"},
                 {"pattern", {{"Regex", std::string(kQwen35SplitRegex)}}},
                 {"behavior", "Isolated"},
                 {"invert", false}};
  return {{"type", "Sequence"}, {"pretokenizers", ojson::array({split, byte_level(true)})}};
}

}  // namespace

std::string make_tiny_tokenizer_json(int n_merges) {
  if (n_merges < 0) fail("make_tiny_tokenizer_json: n_merges is {}; it must be >= 0", n_merges);
  ojson vocab = byte_vocab();
  ojson merges = ojson::array();
  std::vector<Word> words = training_words();
  for (int k = 0; k < n_merges; ++k) {
    auto pair = best_pair(words);
    if (!pair) break;
    apply_merge(words, pair->first, pair->second);
    merges.push_back(ojson::array({pair->first, pair->second}));
    std::string merged = pair->first + pair->second;
    size_t id = vocab.size();
    if (!vocab.contains(merged)) vocab[merged] = id;
  }
  ojson model = {{"type", "BPE"}, {"dropout", nullptr}, {"unk_token", nullptr},
                 {"continuing_subword_prefix", ""}, {"end_of_word_suffix", ""},
                 {"fuse_unk", false}, {"byte_fallback", false}, {"ignore_merges", false},
                 {"vocab", vocab}, {"merges", merges}};
  ojson j = {{"version", "1.0"}, {"truncation", nullptr}, {"padding", nullptr},
             {"added_tokens", added_tokens(vocab.size())}, {"normalizer", {{"type", "NFC"}}},
             {"pre_tokenizer", pre_tokenizer()}, {"post_processor", byte_level(true)},
             {"decoder", byte_level(true)}, {"model", model}};
  return j.dump(2) + "\n";
}

}  // namespace qgpu::engine
