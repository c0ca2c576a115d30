// The command line's lists: `--arg NAME=VALUE` / `NAME=[1,-2,0x3]` (parse_kernel_arg) and
// `--grid`/`--block X[,Y]` (parse_dims). An accepted argument printed back in decimal parses
// to the same name and values, each within 32 bits, and its value texts (floats: `1.5`,
// `nan`, `0f3fc00000`) printed back parse to the same texts.
#include "compiler/compile.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(qgpu::fuzz::text_of(data, size));
  qgpu::fuzz::accepted([&] {
    const auto [x, y] = qgpu::parse_dims(text, "grid");
    FUZZ_REQUIRE(x >= 1 && y >= 1, "--grid '{}' gave {},{}", text, x, y);
  });
  qgpu::fuzz::accepted([&] {
    const qgpu::KernelArg a = qgpu::parse_kernel_arg(text);
    std::string again = a.name + "=";
    for (size_t i = 0; i < a.values.size(); ++i) {
      FUZZ_REQUIRE(a.values[i] >= INT32_MIN && a.values[i] <= UINT32_MAX, "{}: value {}", a.name, a.values[i]);
      again += fmt::format("{}{}", i ? "," : "", a.values[i]);
    }
    if (a.is_array) again.insert(a.name.size() + 1, "[").append("]");
    const qgpu::KernelArg b = qgpu::parse_kernel_arg(again);
    FUZZ_REQUIRE(b.name == a.name && b.values == a.values && b.is_array == a.is_array, "'{}' printed as '{}'", text,
                 again);
    // The texts (what a float parameter reads) as written, trimmed: they parse again to themselves.
    std::string texts = a.name + "=" + (a.is_array ? "[" : "");
    for (size_t i = 0; i < a.items.size(); ++i) texts += (i ? "," : "") + a.items[i];
    const qgpu::KernelArg c = qgpu::parse_kernel_arg(texts + (a.is_array ? "]" : ""));
    FUZZ_REQUIRE(c.items == a.items && c.values == a.values, "'{}' printed as '{}'", text, texts);
  });
  return 0;
}
