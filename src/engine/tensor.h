// Tensors as the engine sees them: a dtype, a shape and a pointer into someone's bytes.
//
// Weights stay where they were loaded (an mmap'd safetensors or GGUF file): a TensorView
// never owns. TensorData owns its bytes, for tensors we compute (converted dtypes, random
// test checkpoints) before they are written. Shapes are PyTorch order: shape[0] is the
// outermost (slowest) dimension, so an nn.Linear weight is [out, in], row-major.
#pragma once

#include <algorithm>
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
// x[0..n) as t's little-endian bytes (bf16/f16 rounded to nearest even; f32 copied) into
// out, n * dtype_size(t) bytes.
void encode_floats(DType t, const float* x, size_t n, void* out);

// A rows x cols matrix as t's bytes into out, a chunk of rows at a time from two reused
// buffers (about 1 MB), the bytes make_tensor would hold: row(r, f) writes row r's values
// into f (cols floats, all +0 on entry) and returns true, or returns false for a row of +0
// (f untouched). Rows are asked for in order. For matrices held sparse: making one dense
// first (4.6 GB of fresh pages for the machine in f32) was most of an export's time.
void write_rows(std::ostream& out, DType t, int64_t rows, int64_t cols,
                const std::function<bool(int64_t, float*)>& row);

// A view of a tensor's bytes; data points into memory owned elsewhere.
struct TensorView {
  std::string name;
  DType dtype = DType::f32;
  std::vector<int64_t> shape;
  const void* data = nullptr;
  // Writers only: when data is null, produce(out) writes the nbytes() bytes instead (a
  // tensor made while it is written: the compiled machine's weights are held sparse).
  std::function<void(std::ostream&)> produce;
  // Optional, for tensors converted into zeroed memory (convert_tensor): bit c of word c / 64
  // is clear only when bytes [64 c, 64 c + 64) are all zero, so scans need not read them
  // (reading a page that was never written would make the kernel allocate it).
  const uint64_t* nonzero_chunks = nullptr;

  int64_t numel() const;
  size_t nbytes() const { return static_cast<size_t>(numel()) * dtype_size(dtype); }
  float at(int64_t i) const;  // element i (flat index) as f32
};

// Elements [first, first + n) of v as f32 into out: v.at over a row, one dtype switch.
void widen_row(const TensorView& v, int64_t first, int64_t n, float* out);

// A tensor that owns its bytes.
struct TensorData {
  std::string name;
  DType dtype = DType::f32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;

  TensorView view() const { return {name, dtype, shape, bytes.data()}; }
};

// Bytes of an anonymous private mapping: they read as zero, and a page takes memory only
// once written, so a mostly-zero tensor written into them costs its nonzero pages alone.
class ZeroedBytes {
 public:
  ZeroedBytes() = default;
  explicit ZeroedBytes(size_t n);
  ZeroedBytes(ZeroedBytes&& o) noexcept : p_(o.p_), n_(o.n_) { o.p_ = nullptr, o.n_ = 0; }
  ZeroedBytes& operator=(ZeroedBytes&& o) noexcept;
  ZeroedBytes(const ZeroedBytes&) = delete;
  ZeroedBytes& operator=(const ZeroedBytes&) = delete;
  ~ZeroedBytes();
  uint8_t* data() const { return static_cast<uint8_t*>(p_); }
  size_t size() const { return n_; }
  // For bytes that will all be written: transparent huge pages where the system allows
  // them (a 2 MB page faulted at once instead of 512 small ones).
  void prefer_huge_pages() const;

 private:
  void* p_ = nullptr;
  size_t n_ = 0;
};

// A tensor converted to another dtype, owning its bytes and the map of its written chunks.
struct ConvertedTensor {
  ZeroedBytes bytes;
  std::vector<uint64_t> chunks;  // view.nonzero_chunks
  TensorView view;
};
// v as dtype t, the same bits as make_tensor(v.name, t, v.shape, to_f32(v)); only elements
// that are not +0 are written, found 64 bytes at a time, so converting the compiled
// machine's weights (almost all +0) costs a read of v and its nonzero pages.
ConvertedTensor convert_tensor(const TensorView& v, DType t);

// Calls fn(i, x) for every element i in [begin, end) of v that is not +0 or -0 (NaN
// included), in order, with its value as f32; with keep_negative_zero, -0 too. Runs of
// zeros are skipped 64 bytes at a time.
template <typename Fn>
void for_each_nonzero(const TensorView& v, int64_t begin, int64_t end, Fn fn, bool keep_negative_zero = false);

// The dtype a checkpoint we write stores a tensor of this shape in, for weights in t:
// 1-D tensors (norms, A_log, dt_bias) stay f32, as the official checkpoints keep A_log and
// llama.cpp keeps every norm (a compensated norm multiplier rounded to bf16 would be up to
// 0.4% off, and the GPU's norms are exact only to f32's last bits); the others are t.
inline DType export_dtype(const std::vector<int64_t>& shape, DType t) { return shape.size() == 1 ? DType::f32 : t; }

// f32 values stored as dtype t (rounded to nearest even).
TensorData make_tensor(std::string name, DType t, std::vector<int64_t> shape,
                       const std::vector<float>& values);
// All elements of v as f32.
std::vector<float> to_f32(const TensorView& v);

namespace detail {
// for_each_nonzero for elements of kSize bytes (a constant, so the chunk arithmetic is shifts).
template <size_t kSize, typename Fn>
void for_each_nonzero_sized(const TensorView& v, int64_t begin, int64_t end, Fn& fn, bool keep_negative_zero) {
  const auto* bytes = static_cast<const uint8_t*>(v.data);
  // Every bit but the signs: a word masked with it is 0 when all its elements are +-0.
  const uint64_t magnitude = keep_negative_zero ? ~0ull : kSize == 4 ? 0x7fffffff7fffffffull : 0x7fff7fff7fff7fffull;
  constexpr int64_t kPerChunk = 64 / kSize;
  int64_t i = begin;
  while (i < end) {
    const int64_t chunk = i / kPerChunk, next = (chunk + 1) * kPerChunk;
    if (v.nonzero_chunks && !(v.nonzero_chunks[chunk / 64] >> (chunk % 64) & 1)) {
      i = next;  // all zero, and never read
      continue;
    }
    if (i % kPerChunk == 0 && next <= end) {  // a whole chunk of 64 bytes
      uint64_t any = 0;
      for (int j = 0; j < 8; ++j) {
        uint64_t word;
        std::memcpy(&word, bytes + static_cast<size_t>(i) * kSize + 8 * j, 8);
        any |= word & magnitude;
      }
      if (any == 0) {
        i = next;
        continue;
      }
    }
    for (const int64_t stop = std::min(end, next); i < stop; ++i) {
      uint32_t b = 0;
      std::memcpy(&b, bytes + static_cast<size_t>(i) * kSize, kSize);
      if ((b & static_cast<uint32_t>(magnitude)) != 0) fn(i, v.at(i));
    }
  }
}
}  // namespace detail

template <typename Fn>
void for_each_nonzero(const TensorView& v, int64_t begin, int64_t end, Fn fn, bool keep_negative_zero) {
  if (dtype_size(v.dtype) == 4)
    detail::for_each_nonzero_sized<4>(v, begin, end, fn, keep_negative_zero);
  else
    detail::for_each_nonzero_sized<2>(v, begin, end, fn, keep_negative_zero);
}

// "[2048, 6144]"
std::string shape_string(const std::vector<int64_t>& shape);

}  // namespace qgpu::engine
