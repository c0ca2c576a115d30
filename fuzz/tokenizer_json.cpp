// tokenizer.json (engine::parse_tokenizer): normalizer, pre-tokenizer, the BPE model's vocab
// and merges, the decoder, added tokens. An accepted tokenizer encodes and decodes a fixed
// text with special tokens and invalid UTF-8 in it without failing.
#include "engine/tokenizer.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  qgpu::fuzz::accepted([&] {
    const qgpu::engine::Tokenizer t = qgpu::engine::parse_tokenizer(qgpu::fuzz::text_of(data, size), "tokenizer.json");
    const std::vector<int32_t> ids = t.encode("<|im_start|>user\nHello, wörld  42\xff\xfe!<|im_end|>");
    for (int32_t id : ids) FUZZ_REQUIRE(id >= 0 && id < t.vocab_size(), "id {} of {}", id, t.vocab_size());
    t.decode(ids);
  });
  return 0;
}
