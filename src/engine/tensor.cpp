// dtype conversions and small tensor helpers. The bf16/f16 rounding is round-to-nearest-even
// on the bit pattern, exactly as torch's and ggml's converters do it.
#include "engine/tensor.h"

#include <fmt/format.h>

#include <sys/mman.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <ostream>

#include "base/error.h"

namespace qgpu::engine {

size_t dtype_size(DType t) { return t == DType::f32 ? 4 : 2; }

const char* dtype_name(DType t) {
  switch (t) {
    case DType::f32: return "f32";
    case DType::bf16: return "bf16";
    case DType::f16: return "f16";
  }
  return "?";
}

const char* torch_dtype_name(DType t) {
  switch (t) {
    case DType::f32: return "float32";
    case DType::bf16: return "bfloat16";
    case DType::f16: return "float16";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view s) {
  if (s == "f32") return DType::f32;
  if (s == "bf16") return DType::bf16;
  if (s == "f16") return DType::f16;
  return std::nullopt;
}

float bf16_to_f32(uint16_t h) { return std::bit_cast<float>(uint32_t{h} << 16); }

uint16_t f32_to_bf16(float f) {
  uint32_t u = std::bit_cast<uint32_t>(f);
  if ((u & 0x7fffffff) > 0x7f800000) return static_cast<uint16_t>((u >> 16) | 0x40);  // quiet NaN
  u += 0x7fff + ((u >> 16) & 1);
  return static_cast<uint16_t>(u >> 16);
}

float f16_to_f32(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  if (exp == 0x1f) return std::bit_cast<float>(sign | 0x7f800000 | (man << 13));
  if (exp == 0) {  // zero or subnormal: man * 2^-24
    float v = std::ldexp(static_cast<float>(man), -24);
    return sign ? -v : v;
  }
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (man << 13));
}

uint16_t f32_to_f16(float f) {
  uint32_t u = std::bit_cast<uint32_t>(f);
  uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000);
  uint32_t a = u & 0x7fffffff;
  if (a > 0x7f800000) return sign | 0x7e00;                 // NaN
  if (a >= 0x477ff000) return sign | 0x7c00;                // rounds to inf (>= 65520)
  if (a < 0x38800000) {                                     // subnormal or zero in f16
    float v = std::bit_cast<float>(a);
    // v * 2^24 rounded to nearest even is the subnormal mantissa.
    float m = std::nearbyint(v * 16777216.0f);
    return sign | static_cast<uint16_t>(m);
  }
  uint32_t r = a + 0xfff + ((a >> 13) & 1);                 // round mantissa to 10 bits
  return sign | static_cast<uint16_t>(((r >> 13) - (112 << 10)));
}

float round_to(DType t, float f) {
  switch (t) {
    case DType::f32: return f;
    case DType::bf16: return bf16_to_f32(f32_to_bf16(f));
    case DType::f16: return f16_to_f32(f32_to_f16(f));
  }
  return f;
}

int64_t TensorView::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

// Element i of type T at p, which need not be aligned: safetensors promises contiguous
// tensors, not aligned ones (an F32 tensor after an odd number of BF16 elements is valid).
template <typename T>
T load_unaligned(const void* p, int64_t i) {
  T v;
  std::memcpy(&v, static_cast<const char*>(p) + static_cast<size_t>(i) * sizeof(T), sizeof(T));
  return v;
}

float TensorView::at(int64_t i) const {
  switch (dtype) {
    case DType::f32: return load_unaligned<float>(data, i);
    case DType::bf16: return bf16_to_f32(load_unaligned<uint16_t>(data, i));
    case DType::f16: return f16_to_f32(load_unaligned<uint16_t>(data, i));
  }
  return 0;
}

void widen_row(const TensorView& v, int64_t first, int64_t n, float* out) {
  switch (v.dtype) {
    case DType::f32:
      std::memcpy(out, static_cast<const float*>(v.data) + first, static_cast<size_t>(n) * sizeof(float));
      return;
    case DType::bf16:
      for (int64_t i = 0; i < n; ++i)
        out[i] = std::bit_cast<float>(uint32_t{load_unaligned<uint16_t>(v.data, first + i)} << 16);
      return;
    case DType::f16:
      for (int64_t i = 0; i < n; ++i) out[i] = f16_to_f32(load_unaligned<uint16_t>(v.data, first + i));
      return;
  }
}

TensorData make_tensor(std::string name, DType t, std::vector<int64_t> shape,
                       const std::vector<float>& values) {
  TensorData d{std::move(name), t, std::move(shape), {}};
  CHECK(static_cast<int64_t>(values.size()) == d.view().numel());
  d.bytes.resize(values.size() * dtype_size(t));
  encode_floats(t, values.data(), values.size(), d.bytes.data());
  return d;
}

void write_rows(std::ostream& out, DType t, int64_t rows, int64_t cols,
                const std::function<bool(int64_t, float*)>& row) {
  const size_t row_bytes = static_cast<size_t>(cols) * dtype_size(t);
  const size_t per_chunk = std::max<size_t>(1, (size_t{1} << 20) / std::max<size_t>(row_bytes, 1));
  std::vector<float> f(static_cast<size_t>(cols), 0.0f);
  std::vector<char> bytes(per_chunk * row_bytes);
  for (int64_t first = 0; first < rows; first += static_cast<int64_t>(per_chunk)) {
    const int64_t n = std::min<int64_t>(rows - first, static_cast<int64_t>(per_chunk));
    for (int64_t r = 0; r < n; ++r) {
      char* dst = bytes.data() + static_cast<size_t>(r) * row_bytes;
      if (!row(first + r, f.data())) {
        std::memset(dst, 0, row_bytes);
        continue;
      }
      encode_floats(t, f.data(), f.size(), dst);
      std::fill(f.begin(), f.end(), 0.0f);
    }
    out.write(bytes.data(), static_cast<std::streamsize>(static_cast<size_t>(n) * row_bytes));
  }
}

void encode_floats(DType t, const float* x, size_t n, void* out) {
  if (t == DType::f32) {
    std::memcpy(out, x, n * 4);
    return;
  }
  auto* h = static_cast<uint16_t*>(out);
  if (t == DType::bf16)
    for (size_t i = 0; i < n; ++i) h[i] = f32_to_bf16(x[i]);
  else
    for (size_t i = 0; i < n; ++i) h[i] = f32_to_f16(x[i]);
}

ZeroedBytes::ZeroedBytes(size_t n) : n_(n) {
  if (n == 0) return;
  p_ = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p_ == MAP_FAILED) {
    p_ = nullptr;
    fail("cannot map {} bytes for a converted tensor (out of memory?)", n);
  }
}

void ZeroedBytes::prefer_huge_pages() const {
  if (p_) ::madvise(p_, n_, MADV_HUGEPAGE);
}

ZeroedBytes& ZeroedBytes::operator=(ZeroedBytes&& o) noexcept {
  std::swap(p_, o.p_);
  std::swap(n_, o.n_);
  return *this;
}

ZeroedBytes::~ZeroedBytes() {
  if (p_) munmap(p_, n_);
}

ConvertedTensor convert_tensor(const TensorView& v, DType t) {
  const size_t n = static_cast<size_t>(v.numel()) * dtype_size(t);
  ConvertedTensor c{ZeroedBytes(n), std::vector<uint64_t>((n + 64 * 64 - 1) / (64 * 64), 0), {v.name, t, v.shape, nullptr}};
  uint8_t* out = c.bytes.data();
  for_each_nonzero(v, 0, v.numel(), [&](int64_t i, float x) {
    const size_t at = static_cast<size_t>(i) * dtype_size(t);
    if (t == DType::f32) {
      std::memcpy(out + at, &x, 4);
    } else {
      const uint16_t h = t == DType::bf16 ? f32_to_bf16(x) : f32_to_f16(x);
      std::memcpy(out + at, &h, 2);
    }
    c.chunks[at / 64 / 64] |= uint64_t{1} << (at / 64 % 64);
  }, /*keep_negative_zero=*/true);
  c.view.data = out;
  c.view.nonzero_chunks = c.chunks.data();
  return c;
}

std::vector<float> to_f32(const TensorView& v) {
  std::vector<float> out(static_cast<size_t>(v.numel()));
  for (size_t i = 0; i < out.size(); ++i) out[i] = v.at(static_cast<int64_t>(i));
  return out;
}

std::string shape_string(const std::vector<int64_t>& shape) {
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

}  // namespace qgpu::engine
