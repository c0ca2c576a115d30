// Tensors as the engine sees them: a dtype, a shape and a pointer into someone's bytes.
//
// Weights stay where they were loaded (an mmap'd safetensors or GGUF file): a TensorView
// never owns. TensorData owns its bytes, for tensors we compute (converted dtypes, random
// test checkpoints) before they are written. Shapes are PyTorch order: shape[0] is the
// outermost (slowest) dimension, so an nn.Linear weight is [out, in], row-major.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace qgpu::engine {

enum class DType : uint8_t { f32, bf16, f16 };

size_t dtype_size(DType t);                             // bytes per element
const char* dtype_name(DType t);                        // "f32", "bf16", "f16"
const char* torch_dtype_name(DType t);                  // config.json's "float32", "bfloat16", "float16"
std::optional<DType> parse_dtype(std::string_view s);   // accepts f32/bf16/f16 (lowercase)

// bf16 and f16 conversions, round-to-nearest-even (what torch and ggml do); NaN stays NaN.
float bf16_to_f32(uint16_t h);
uint16_t f32_to_bf16(float f);
float f16_to_f32(uint16_t h);
uint16_t f32_to_f16(float f);
// Rounds an f32 to the nearest value representable in t (identity for f32).
float round_to(DType t, float f);

// A view of a tensor's bytes; data points into memory owned elsewhere.
struct TensorView {
  std::string name;
  DType dtype = DType::f32;
  std::vector<int64_t> shape;
  const void* data = nullptr;
  // Writers only: when data is null, produce(out) writes the nbytes() bytes instead (a
  // tensor made while it is written: the compiled machine's weights are held sparse).
  std::function<void(std::ostream&)> produce;

  int64_t numel() const;
  size_t nbytes() const { return static_cast<size_t>(numel()) * dtype_size(dtype); }
  float at(int64_t i) const;  // element i (flat index) as f32
};

// A tensor that owns its bytes.
struct TensorData {
  std::string name;
  DType dtype = DType::f32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;

  TensorView view() const { return {name, dtype, shape, bytes.data()}; }
};

// f32 values stored as dtype t (rounded to nearest even).
TensorData make_tensor(std::string name, DType t, std::vector<int64_t> shape,
                       const std::vector<float>& values);
// All elements of v as f32.
std::vector<float> to_f32(const TensorView& v);

// "[2048, 6144]"
std::string shape_string(const std::vector<int64_t>& shape);

}  // namespace qgpu::engine
