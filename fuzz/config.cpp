// config.json (engine::parse_config): every field's type and range, the layer types, the
// multimodal wrapper, qgpu's placement block. An accepted config survives config_to_json
// and a second parse unchanged.
#include <nlohmann/json.hpp>

#include "engine/config.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const nlohmann::json j = nlohmann::json::parse(data, data + size, nullptr, false);
  if (j.is_discarded()) return 0;  // load_config rejects unparsable JSON before parse_config
  qgpu::fuzz::accepted([&] {
    const qgpu::engine::Config c = qgpu::engine::parse_config(j, "config.json");
    const nlohmann::json once = qgpu::engine::config_to_json(c);
    const nlohmann::json twice = qgpu::engine::config_to_json(qgpu::engine::parse_config(once, "round trip"));
    FUZZ_REQUIRE(once == twice, "config_to_json changes on a round trip:\n{}\n{}", once.dump(), twice.dump());
  });
  return 0;
}
