// model.safetensors.index.json: the weight map of a sharded checkpoint, its shard names (no
// path escapes), every tensor listed once and in the shard that holds it
// (engine::load_safetensors_dir), over two fixed shards.
#include <fstream>

#include "engine/safetensors.h"
#include "fuzz_util.h"

namespace {

// Two shards of two small tensors each, written once.
const std::filesystem::path& shard_dir() {
  static qgpu::fuzz::ScratchDir dir;
  static const bool written = [] {
    static const float values[4] = {1, 2, 3, 4};
    for (int s = 1; s <= 2; ++s) {
      std::vector<qgpu::engine::TensorView> t;
      for (const char* n : {"a", "b"})
        t.push_back({.name = fmt::format("model.layers.{}.{}.weight", s - 1, n), .shape = {2, 2}, .data = values});
      qgpu::engine::write_safetensors((dir.path() / fmt::format("model-0000{}-of-00002.safetensors", s)).string(), t);
    }
    return true;
  }();
  (void)written;
  return dir.path();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::filesystem::path& dir = shard_dir();
  std::ofstream(dir / "model.safetensors.index.json", std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  qgpu::fuzz::accepted([&] {
    const qgpu::engine::SafetensorsDir d = qgpu::engine::load_safetensors_dir(dir.string());
    FUZZ_REQUIRE(d.by_name.size() <= 4, "{} tensors from two shards of two", d.by_name.size());
    for (const auto& [name, view] : d.by_name) FUZZ_REQUIRE(view->name == name, "{} maps to {}", name, view->name);
  });
  return 0;
}
