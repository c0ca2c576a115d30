// A .safetensors file: the header (length, JSON, dtypes, shapes, offsets) and the data
// region's bounds (src/engine/safetensors.cpp).
#include "engine/safetensors.h"
#include "fuzz_util.h"
#include "tensors_in_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static qgpu::fuzz::MemFile file;
  const std::string path = file.write(qgpu::fuzz::text_of(data, size));
  qgpu::fuzz::accepted([&] {
    const qgpu::engine::SafetensorsFile f = qgpu::engine::load_safetensors(path);
    qgpu::fuzz::check_tensors_in_file(f.file, f.tensors);
    for (const qgpu::engine::TensorView& t : f.tensors) FUZZ_REQUIRE(f.find(t.name) == &t, "{}: find", t.name);
  });
  return 0;
}
