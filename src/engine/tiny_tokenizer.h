// A small, valid Qwen3.5-layout tokenizer.json for tiny test checkpoints.
#pragma once

#include <string>

namespace qgpu::engine {

// tokenizer.json text in Qwen3.5's layout: NFC, the Qwen3.5 split regex, ByteLevel, 256 byte
// tokens (ids 0..255 in GPT-2 byte-alphabet order), then at most n_merges BPE merges learned
// deterministically from a built-in English text (training stops early once every word of
// that text is one token: at most 343 merges), then the ChatML added tokens
// <|endoftext|>, <|im_start|>, <|im_end|> (special), <think>, </think>, <tool_call>,
// </tool_call>, <tool_response>, </tool_response>. The same n_merges always gives the same
// bytes. Loads in qgpu's Tokenizer and in HF tokenizers (checked by the goldens).
std::string make_tiny_tokenizer_json(int n_merges);

}  // namespace qgpu::engine
