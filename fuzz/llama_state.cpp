// llama.cpp's sequence state as tests/llamacpp/llama_state.mjs writes it (QLS1:
// host::read_llama_state), for a tiny Qwen3.5 model's config (three DeltaNet layers and one
// attention layer): counts, sizes and truncation against the model.
#include "engine/config.h"
#include "engine/tiny_model.h"
#include "fuzz_util.h"
#include "host/llama_state.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const qgpu::engine::Config config = [] {
    qgpu::fuzz::ScratchDir dir;
    qgpu::engine::write_tiny_model(dir.path().string(), {});
    return qgpu::engine::load_config(dir.path().string());
  }();
  static qgpu::fuzz::MemFile file;
  const std::string path = file.write(qgpu::fuzz::text_of(data, size));
  for (bool tiled : {false, true})
    qgpu::fuzz::accepted([&] { qgpu::host::read_llama_state(config, path, tiled); });
  return 0;
}
