// Pre-tokenization for byte-level BPE: NFC, the Qwen split patterns, the byte alphabet.
//
// The tokenizer works on UTF-8 bytes. Text is first normalized (NFC), then split into
// pieces by one of the known split regexes (matched by hand, not by a regex engine), and
// each piece's bytes are spelled in GPT-2's byte alphabet (bytes_to_unicode) before BPE.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace qgpu::engine {

// The split regexes we recognise, by exact pattern string.
enum class SplitPattern {
  kQwen2,   // Qwen2 / Qwen2.5 / Qwen3: letters are \p{L}
  kQwen35,  // Qwen3.5: letters are [\p{L}\p{M}] (combining marks stay with their letters)
};

// The pattern strings exactly as tokenizer.json spells them.
inline constexpr std::string_view kQwen2SplitRegex =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
inline constexpr std::string_view kQwen35SplitRegex =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

// The pattern for a regex string, or nullopt when it is not one we know.
std::optional<SplitPattern> split_pattern_for(std::string_view regex);

// NFC of `text`. Invalid UTF-8 bytes are kept as they are and split the text into
// separately normalized runs (HF never sees such bytes; we must not crash on them).
std::string normalize_nfc(std::string_view text);

// Splits `text` into the pieces the pattern's regex would match, left to right (the
// pieces concatenate back to `text`). Invalid UTF-8 bytes count as symbols (like '!').
std::vector<std::string_view> split_pieces(std::string_view text, SplitPattern pattern);

// GPT-2's bytes_to_unicode: byte -> the code point that spells it in vocab strings.
const std::array<char32_t, 256>& byte_to_unicode();

// The vocab spelling of raw bytes (each byte -> its code point, UTF-8 encoded).
std::string bytes_to_vocab_text(std::string_view bytes);

// Raw bytes from a vocab spelling; nullopt when a character is outside the byte alphabet.
std::optional<std::string> vocab_text_to_bytes(std::string_view text);

// Appends the UTF-8 encoding of `cp` to `out`.
void append_utf8(std::string& out, char32_t cp);

}  // namespace qgpu::engine
