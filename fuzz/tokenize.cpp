// The tokenizer on arbitrary bytes (a Qwen3.5-layout tokenizer.json: NFC, the Qwen3.5 split,
// byte-level BPE, ChatML added tokens): encoding never fails, every id is in the vocabulary,
// and decoding gives back the NFC form of the text, byte for byte (invalid UTF-8 included),
// with special tokens parsed or not. Where the text holds an added token, the pieces around
// it are normalized apart (as in HF tokenizers: "<think>" then U+0338 does not compose into
// U+226F), so there the decoded text is canonically equivalent to it: the same NFC.
#include "engine/pretokenize.h"
#include "engine/tiny_tokenizer.h"
#include "engine/tokenizer.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const qgpu::engine::Tokenizer t =
      qgpu::engine::parse_tokenizer(qgpu::engine::make_tiny_tokenizer_json(343), "tiny tokenizer.json");
  const std::string_view text = qgpu::fuzz::text_of(data, size);
  const std::string nfc = qgpu::engine::normalize_nfc(text);
  bool has_added = false;
  for (const qgpu::engine::AddedToken& a : t.added) has_added |= text.find(a.content) != std::string_view::npos;
  for (bool parse_special : {false, true}) {
    const std::vector<int32_t> ids = t.encode(text, parse_special);
    for (int32_t id : ids) FUZZ_REQUIRE(id >= 0 && id < t.vocab_size(), "id {} of {}", id, t.vocab_size());
    const std::string back = t.decode(ids);
    FUZZ_REQUIRE((has_added ? qgpu::engine::normalize_nfc(back) : back) == nfc,
                 "parse_special {}: {} ids decode to {} bytes, the NFC text has {}", parse_special, ids.size(),
                 back.size(), nfc.size());
  }
  return 0;
}
