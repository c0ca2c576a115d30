// GGUF read and write.
//
// Reading walks the mapped bytes with a Cursor whose every read is checked against the end
// of the file, so a truncated or lying header fails with the byte position and what was
// being read. Counts (tensors, key/values, array items) are capped by the bytes that remain
// (each item needs at least its minimum encoded size), n_dims by ggml's 4, strings by a
// fixed cap; nested arrays are rejected (llama.cpp has none). Tensor data must start at an
// offset aligned to general.alignment, lie inside the file and not overlap another tensor;
// sizes are overflow-checked. Only F32, F16 and BF16 tensors are accepted. Writing emits
// version 3 with the key/values and tensors in the order given, each tensor aligned.
#include "engine/gguf.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "base/error.h"

namespace qgpu::engine {
namespace {

enum : uint32_t {
  kU8 = 0, kI8 = 1, kU16 = 2, kI16 = 3, kU32 = 4, kI32 = 5, kF32 = 6, kBool = 7,
  kString = 8, kArray = 9, kU64 = 10, kI64 = 11, kF64 = 12,
};
constexpr uint32_t kGgmlF32 = 0, kGgmlF16 = 1, kGgmlBf16 = 30;
constexpr uint32_t kMaxGgufDims = 4;                       // GGML_MAX_DIMS
constexpr uint64_t kMaxStringBytes = uint64_t{1} << 28;  // 256 MiB; real files need < 1 MiB
constexpr uint32_t kDefaultAlignment = 32;

const char* value_type_name(uint32_t t) {
  static constexpr const char* kNames[] = {"u8", "i8", "u16", "i16", "u32", "i32", "f32",
                                           "bool", "string", "array", "u64", "i64", "f64"};
  return t <= kF64 ? kNames[t] : "unknown";
}

// Bytes a value of type t needs at least (strings: their 8-byte length).
uint64_t min_value_bytes(uint32_t t) {
  switch (t) {
    case kU8: case kI8: case kBool: return 1;
    case kU16: case kI16: return 2;
    case kU32: case kI32: case kF32: return 4;
    default: return 8;
  }
}

const char* ggml_type_name(uint32_t t) {
  static constexpr const char* kNames[] = {"F32", "F16", "Q4_0", "Q4_1", "Q4_2", "Q4_3", "Q5_0",
                                           "Q5_1", "Q8_0", "Q8_1", "Q2_K", "Q3_K", "Q4_K", "Q5_K",
                                           "Q6_K", "Q8_K"};
  if (t < std::size(kNames)) return kNames[t];
  return t == kGgmlBf16 ? "BF16" : "unknown";
}

std::optional<DType> ggml_dtype(uint32_t t) {
  if (t == kGgmlF32) return DType::f32;
  if (t == kGgmlF16) return DType::f16;
  if (t == kGgmlBf16) return DType::bf16;
  return std::nullopt;
}

uint32_t ggml_type_of(DType t) {
  switch (t) {
    case DType::f32: return kGgmlF32;
    case DType::f16: return kGgmlF16;
    case DType::bf16: return kGgmlBf16;
  }
  return kGgmlF32;
}

// Checked little-endian reads over the mapped file.
struct Cursor {
  const MappedFile& f;
  uint64_t pos = 0;

  uint64_t left() const { return f.size() - pos; }
  const uint8_t* take(uint64_t n, const std::string& what) {
    if (n > left())
      fail("{}: truncated at byte {} while reading {} ({} bytes needed, {} left); the file is "
           "incomplete or corrupt", f.path(), pos, what, n, left());
    const uint8_t* p = f.data() + pos;
    pos += n;
    return p;
  }
  template <typename T>
  T read(const std::string& what) {
    T v;
    std::memcpy(&v, take(sizeof v, what), sizeof v);
    return v;
  }
  std::string string(const std::string& what) {
    uint64_t n = read<uint64_t>(what);
    if (n > kMaxStringBytes)
      fail("{}: {} has length {} at byte {}, over the {} byte limit; the file is corrupt",
           f.path(), what, n, pos - 8, kMaxStringBytes);
    const uint8_t* p = take(n, what);
    return std::string(reinterpret_cast<const char*>(p), n);
  }
  // A count of items of at least min_bytes each, capped by the bytes left.
  uint64_t count(const std::string& what, uint64_t min_bytes) {
    uint64_t n = read<uint64_t>(what);
    if (n > left() / min_bytes)
      fail("{}: {} is {}, more than the remaining {} bytes can hold; the file is corrupt",
           f.path(), what, n, left());
    return n;
  }
};

GgufValue read_value(Cursor& c, uint32_t type, const std::string& key, bool in_array);

GgufValue read_array(Cursor& c, const std::string& key) {
  uint32_t item_type = c.read<uint32_t>(fmt::format("the item type of key '{}'", key));
  if (item_type == kArray)
    fail("{}: key '{}' is an array of arrays, which GGUF readers do not support; the file is corrupt",
         c.f.path(), key);
  if (item_type > kF64)
    fail("{}: key '{}' has unknown array item type {}; the file is corrupt", c.f.path(), key, item_type);
  uint64_t n = c.count(fmt::format("the item count of key '{}'", key), min_value_bytes(item_type));
  GgufArray a{item_type, {}};
  a.items.reserve(n);
  for (uint64_t i = 0; i < n; ++i) a.items.push_back(read_value(c, item_type, key, true));
  return {kArray, std::move(a)};
}

template <typename T>
GgufValue read_int(Cursor& c, uint32_t type, const std::string& what) {
  T v = c.read<T>(what);
  if constexpr (std::is_signed_v<T>) return {type, int64_t{v}};
  else return {type, uint64_t{v}};
}

GgufValue read_value(Cursor& c, uint32_t type, const std::string& key, bool in_array) {
  std::string what = fmt::format("the value of key '{}'", key);
  switch (type) {
    case kU8: return read_int<uint8_t>(c, type, what);
    case kI8: return read_int<int8_t>(c, type, what);
    case kU16: return read_int<uint16_t>(c, type, what);
    case kI16: return read_int<int16_t>(c, type, what);
    case kU32: return read_int<uint32_t>(c, type, what);
    case kI32: return read_int<int32_t>(c, type, what);
    case kU64: return read_int<uint64_t>(c, type, what);
    case kI64: return read_int<int64_t>(c, type, what);
    case kF32: return {type, double{c.read<float>(what)}};
    case kF64: return {type, c.read<double>(what)};
    case kBool: return {type, c.read<uint8_t>(what) != 0};
    case kString: return {type, c.string(what)};
    case kArray: if (!in_array) return read_array(c, key); break;
  }
  fail("{}: key '{}' has unknown value type {}; the file is corrupt or from a newer GGUF version",
       c.f.path(), key, type);
}

void read_kv(Cursor& c, GgufFile& g) {
  uint64_t n_kv = c.count("the key/value count", 12);  // key length + type
  std::set<std::string> seen;
  for (uint64_t i = 0; i < n_kv; ++i) {
    std::string key = c.string(fmt::format("key {}", i));
    if (!seen.insert(key).second)
      fail("{}: key '{}' appears twice; the file is corrupt", c.f.path(), key);
    uint32_t type = c.read<uint32_t>(fmt::format("the type of key '{}'", key));
    g.kv.emplace_back(key, read_value(c, type, key, false));
  }
}

struct TensorInfo {
  std::string name;
  std::vector<int64_t> shape;  // PyTorch order
  DType dtype;
  uint64_t offset, nbytes;
};

std::vector<int64_t> read_shape(Cursor& c, const std::string& name, uint64_t& numel) {
  uint32_t n_dims = c.read<uint32_t>(fmt::format("n_dims of tensor '{}'", name));
  if (n_dims > kMaxGgufDims)
    fail("{}: tensor '{}' has {} dimensions, more than ggml's {}; the file is corrupt",
         c.f.path(), name, n_dims, kMaxGgufDims);
  std::vector<int64_t> shape(n_dims);
  numel = 1;
  for (uint32_t i = 0; i < n_dims; ++i) {
    uint64_t ne = c.read<uint64_t>(fmt::format("ne[{}] of tensor '{}'", i, name));
    if (ne > uint64_t(INT64_MAX) || __builtin_mul_overflow(numel, ne, &numel) || numel > uint64_t(INT64_MAX))
      fail("{}: tensor '{}' has a shape whose element count overflows 64 bits; the file is corrupt",
           c.f.path(), name);
    shape[n_dims - 1 - i] = static_cast<int64_t>(ne);
  }
  return shape;
}

TensorInfo read_tensor_info(Cursor& c, uint64_t i) {
  TensorInfo t;
  t.name = c.string(fmt::format("the name of tensor {}", i));
  uint64_t numel = 0;
  t.shape = read_shape(c, t.name, numel);
  uint32_t type = c.read<uint32_t>(fmt::format("the type of tensor '{}'", t.name));
  std::optional<DType> d = ggml_dtype(type);
  if (!d)
    fail("{}: tensor '{}' has type {} ({}); qgpu reads F32, F16 and BF16 only (convert the model "
         "without quantization)", c.f.path(), t.name, ggml_type_name(type), type);
  t.dtype = *d;
  t.offset = c.read<uint64_t>(fmt::format("the offset of tensor '{}'", t.name));
  if (__builtin_mul_overflow(numel, dtype_size(t.dtype), &t.nbytes))
    fail("{}: tensor '{}' is larger than 2^64 bytes; the file is corrupt", c.f.path(), t.name);
  return t;
}

uint32_t alignment_of(const GgufFile& g) {
  const GgufValue* v = g.find_kv("general.alignment");
  if (!v) return kDefaultAlignment;
  const uint64_t* a = std::get_if<uint64_t>(&v->value);
  // The GGUF spec: a multiple of 8 (so every tensor's elements are aligned in the mapping).
  if (v->type != kU32 || *a < 8 || (*a & (*a - 1)) != 0)
    fail("{}: key 'general.alignment' must be a u32 power of two of at least 8; the file is corrupt", g.file.path());
  return static_cast<uint32_t>(*a);
}

// Places each tensor in the data region, checking alignment, bounds and overlaps.
void place_tensors(GgufFile& g, std::vector<TensorInfo> infos, uint64_t header_end) {
  const std::string& path = g.file.path();
  uint64_t align = alignment_of(g);
  uint64_t data_start = (header_end + align - 1) / align * align;
  uint64_t data_size = data_start <= g.file.size() ? g.file.size() - data_start : 0;
  for (const TensorInfo& t : infos) {
    if (t.offset % align != 0)
      fail("{}: tensor '{}' has offset {}, not a multiple of the alignment {}; the file is corrupt",
           path, t.name, t.offset, align);
    if (t.offset > data_size || t.nbytes > data_size - t.offset)
      fail("{}: tensor '{}' ({} bytes at data offset {}) runs past the end of the file ({} data "
           "bytes); the file is truncated", path, t.name, t.nbytes, t.offset, data_size);
    g.tensors.push_back({t.name, t.dtype, t.shape, g.file.data() + data_start + t.offset});
  }
  std::sort(infos.begin(), infos.end(), [](const TensorInfo& a, const TensorInfo& b) {
    return std::tie(a.offset, a.nbytes) < std::tie(b.offset, b.nbytes);
  });
  for (size_t i = 1; i < infos.size(); ++i)
    if (infos[i].offset < infos[i - 1].offset + infos[i - 1].nbytes)
      fail("{}: tensors '{}' and '{}' overlap in the data region; the file is corrupt", path,
           infos[i - 1].name, infos[i].name);
}

void check_header(Cursor& c, GgufFile& g) {
  const uint8_t* magic = c.take(4, "the magic");
  if (std::memcmp(magic, "GGUF", 4) != 0)
    fail("{}: not a GGUF file (magic is not 'GGUF'); pass a .gguf model", c.f.path());
  g.version = c.read<uint32_t>("the version");
  if (g.version != 2 && g.version != 3)
    fail("{}: GGUF version {} is not supported (2 and 3 are); re-export the model with a current "
         "converter", c.f.path(), g.version);
}

// Writers: little-endian raw bytes.
template <typename T>
void put(std::ostream& out, T v) {
  out.write(reinterpret_cast<const char*>(&v), sizeof v);
}

void put_string(std::ostream& out, const std::string& s) {
  put<uint64_t>(out, s.size());
  out.write(s.data(), static_cast<std::streamsize>(s.size()));
}

void put_value(std::ostream& out, const GgufValue& v, const std::string& key);

void put_array(std::ostream& out, const GgufArray& a, const std::string& key) {
  put<uint32_t>(out, a.type);
  put<uint64_t>(out, a.items.size());
  for (const GgufValue& item : a.items) {
    if (item.type != a.type || item.type == kArray)
      fail("write_gguf: key '{}': array of {} holds an item of type {}", key, value_type_name(a.type),
           value_type_name(item.type));
    put_value(out, item, key);
  }
}

template <typename T>
T int_of(const GgufValue& v) {
  if (const uint64_t* u = std::get_if<uint64_t>(&v.value)) return static_cast<T>(*u);
  return static_cast<T>(std::get<int64_t>(v.value));
}

void put_value(std::ostream& out, const GgufValue& v, const std::string& key) {
  switch (v.type) {
    case kU8: return put(out, int_of<uint8_t>(v));
    case kI8: return put(out, int_of<int8_t>(v));
    case kU16: return put(out, int_of<uint16_t>(v));
    case kI16: return put(out, int_of<int16_t>(v));
    case kU32: return put(out, int_of<uint32_t>(v));
    case kI32: return put(out, int_of<int32_t>(v));
    case kU64: return put(out, int_of<uint64_t>(v));
    case kI64: return put(out, int_of<int64_t>(v));
    case kF32: return put(out, static_cast<float>(std::get<double>(v.value)));
    case kF64: return put(out, std::get<double>(v.value));
    case kBool: return put<uint8_t>(out, std::get<bool>(v.value) ? 1 : 0);
    case kString: return put_string(out, std::get<std::string>(v.value));
    case kArray: return put_array(out, std::get<GgufArray>(v.value), key);
  }
  fail("write_gguf: key '{}' has unknown value type {}", key, v.type);
}

void pad_to(std::ostream& out, uint64_t& at, uint64_t align) {
  for (; at % align != 0; ++at) out.put(0);
}

// Data offsets (relative to the data start) of each tensor, each aligned.
std::vector<uint64_t> data_offsets(const std::vector<TensorView>& tensors, uint64_t align) {
  std::vector<uint64_t> offsets;
  uint64_t at = 0;
  for (const TensorView& t : tensors) {
    offsets.push_back(at);
    at = (at + t.nbytes() + align - 1) / align * align;
  }
  return offsets;
}

void put_tensor_info(std::ostream& out, const TensorView& t, uint64_t offset) {
  put_string(out, t.name);
  put<uint32_t>(out, static_cast<uint32_t>(t.shape.size()));
  for (auto it = t.shape.rbegin(); it != t.shape.rend(); ++it) put<uint64_t>(out, uint64_t(*it));
  put<uint32_t>(out, ggml_type_of(t.dtype));
  put<uint64_t>(out, offset);
}

void check_writable(const std::vector<std::pair<std::string, GgufValue>>& kv,
                    const std::vector<TensorView>& tensors, uint32_t alignment) {
  if (alignment < 8 || (alignment & (alignment - 1)) != 0)
    fail("write_gguf: alignment {} is not a power of two of at least 8", alignment);
  std::set<std::string> seen;
  for (const auto& [k, v] : kv) {
    if (!seen.insert(k).second) fail("write_gguf: key '{}' given twice", k);
    if (k == "general.alignment" && (v.type != kU32 || int_of<uint32_t>(v) != alignment))
      fail("write_gguf: key 'general.alignment' disagrees with alignment {}", alignment);
  }
  seen.clear();
  for (const TensorView& t : tensors) {
    if (!seen.insert(t.name).second) fail("write_gguf: tensor '{}' given twice", t.name);
    if (t.shape.size() > kMaxGgufDims)
      fail("write_gguf: tensor '{}' has shape {}, more than {} dimensions", t.name,
           shape_string(t.shape), kMaxGgufDims);
  }
}

}  // namespace

GgufValue gguf_u32(uint32_t v) { return {kU32, uint64_t{v}}; }
GgufValue gguf_i32(int32_t v) { return {kI32, int64_t{v}}; }
GgufValue gguf_f32(float v) { return {kF32, double{v}}; }
GgufValue gguf_bool(bool v) { return {kBool, v}; }
GgufValue gguf_str(std::string v) { return {kString, std::move(v)}; }
GgufValue gguf_array(uint32_t item_type, std::vector<GgufValue> items) {
  return {kArray, GgufArray{item_type, std::move(items)}};
}

const GgufValue* GgufFile::find_kv(const std::string& key) const {
  for (const auto& [k, v] : kv)
    if (k == key) return &v;
  return nullptr;
}

const TensorView* GgufFile::find(const std::string& name) const {
  for (const TensorView& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

uint64_t GgufFile::get_uint(const std::string& key) const {
  const GgufValue* v = find_kv(key);
  if (!v) fail("{}: key '{}' is missing; the model was written without it", file.path(), key);
  if (const uint64_t* u = std::get_if<uint64_t>(&v->value)) return *u;
  const int64_t* i = std::get_if<int64_t>(&v->value);
  if (!i || *i < 0)
    fail("{}: key '{}' has type {}, not a non-negative integer", file.path(), key, value_type_name(v->type));
  return static_cast<uint64_t>(*i);
}

double GgufFile::get_float(const std::string& key) const {
  const GgufValue* v = find_kv(key);
  if (!v) fail("{}: key '{}' is missing; the model was written without it", file.path(), key);
  if (v->type != kF32 && v->type != kF64)
    fail("{}: key '{}' has type {}, not a float", file.path(), key, value_type_name(v->type));
  return std::get<double>(v->value);
}

std::string GgufFile::get_string(const std::string& key) const {
  const GgufValue* v = find_kv(key);
  if (!v) fail("{}: key '{}' is missing; the model was written without it", file.path(), key);
  if (v->type != kString)
    fail("{}: key '{}' has type {}, not a string", file.path(), key, value_type_name(v->type));
  return std::get<std::string>(v->value);
}

GgufFile load_gguf(const std::string& path) {
  GgufFile g{MappedFile(path), 3, {}, {}};
  Cursor c{g.file};
  check_header(c, g);
  uint64_t n_tensors = c.read<uint64_t>("the tensor count");
  read_kv(c, g);
  if (n_tensors > c.left() / 24)  // name length + n_dims + type + offset
    fail("{}: tensor count {} is more than the remaining {} bytes can hold; the file is corrupt",
         path, n_tensors, c.left());
  std::vector<TensorInfo> infos;
  std::set<std::string> names;
  for (uint64_t i = 0; i < n_tensors; ++i) {
    infos.push_back(read_tensor_info(c, i));
    if (!names.insert(infos.back().name).second)
      fail("{}: tensor '{}' appears twice; the file is corrupt", path, infos.back().name);
  }
  place_tensors(g, std::move(infos), c.pos);
  return g;
}

void write_gguf(const std::string& path, const std::vector<std::pair<std::string, GgufValue>>& kv,
                const std::vector<TensorView>& tensors, uint32_t alignment) {
  check_writable(kv, tensors, alignment);
  std::vector<std::pair<std::string, GgufValue>> all = kv;
  bool has_alignment = std::any_of(kv.begin(), kv.end(), [](const auto& p) { return p.first == "general.alignment"; });
  if (!has_alignment && alignment != kDefaultAlignment) all.emplace_back("general.alignment", gguf_u32(alignment));
  std::vector<uint64_t> offsets = data_offsets(tensors, alignment);
  write_file_atomic(path, [&](std::ostream& out) {
    out.write("GGUF", 4);
    put<uint32_t>(out, 3);
    put<uint64_t>(out, tensors.size());
    put<uint64_t>(out, all.size());
    for (const auto& [k, v] : all) {
      put_string(out, k);
      put<uint32_t>(out, v.type);
      put_value(out, v, k);
    }
    for (size_t i = 0; i < tensors.size(); ++i) put_tensor_info(out, tensors[i], offsets[i]);
    uint64_t at = static_cast<uint64_t>(out.tellp());
    pad_to(out, at, alignment);
    for (const TensorView& t : tensors) {
      if (t.data || !t.produce)
        out.write(static_cast<const char*>(t.data), static_cast<std::streamsize>(t.nbytes()));
      else  // made while it is written (a sparse weight's dense export): one tensor at a time
        t.produce(out);
      at += t.nbytes();
      pad_to(out, at, alignment);
    }
  });
}

}  // namespace qgpu::engine
