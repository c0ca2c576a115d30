// A GGUF file: header, key/values (strings, nested arrays), tensor infos, alignment and data
// bounds (src/engine/gguf.cpp); then, when it loads, the model in it (engine::load_gguf_model:
// the qwen35.* keys as a config, every tensor's name and shape against it).
#include "engine/gguf.h"
#include "engine/model.h"
#include "fuzz_util.h"
#include "tensors_in_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static qgpu::fuzz::MemFile file;
  const std::string path = file.write(qgpu::fuzz::text_of(data, size));
  qgpu::fuzz::accepted([&] {
    const qgpu::engine::GgufFile g = qgpu::engine::load_gguf(path);
    qgpu::fuzz::check_tensors_in_file(g.file, g.tensors);
    for (const auto& [key, value] : g.kv) FUZZ_REQUIRE(g.find_kv(key) == &value, "{}: find_kv", key);
    for (const qgpu::engine::TensorView& t : g.tensors) FUZZ_REQUIRE(g.find(t.name) == &t, "{}: find", t.name);
  }) && qgpu::fuzz::accepted([&] { qgpu::engine::load_gguf_model(path); });
  return 0;
}
