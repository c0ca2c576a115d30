// GGUF v3: read (mmap'd, hardened) and write (atomic), the container llama.cpp loads.
//
// Layout: magic "GGUF", u32 version (2 or 3 read, 3 written), u64 tensor count, u64 kv count,
// the key/values, the tensor infos (name, n_dims, ne[] with ne[0] the contiguous dim, ggml
// type, offset), padding to general.alignment (default 32), the data.
// TensorView shapes are PyTorch order (outermost first): ne is shape reversed.
// Accepted tensor types: F32 (0), F16 (1), BF16 (30); anything else is an Error naming the
// tensor and its type. Hardening: string and array lengths, counts and n_dims capped and
// checked against the file; offsets aligned, inside the file, non-overlapping sizes checked
// with overflow-safe arithmetic; duplicate keys and tensor names rejected; every failure
// names the file and the key or tensor.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "base/mapped_file.h"
#include "engine/tensor.h"

namespace qgpu::engine {

// A GGUF metadata value. Arrays keep their element type.
struct GgufValue;
struct GgufArray {
  uint32_t type = 0;  // GGUF value type code of the elements
  std::vector<GgufValue> items;
};
struct GgufValue {
  // Integers of every width are held as int64/uint64 with their original type code kept in
  // `type` (so the writer reproduces u32 vs i32 etc.).
  uint32_t type = 0;  // GGUF value type code: 0 u8, 1 i8, 2 u16, 3 i16, 4 u32, 5 i32, 6 f32,
                      // 7 bool, 8 string, 9 array, 10 u64, 11 i64, 12 f64
  std::variant<uint64_t, int64_t, double, bool, std::string, GgufArray> value;
};

// Convenience constructors.
GgufValue gguf_u32(uint32_t v);
GgufValue gguf_i32(int32_t v);
GgufValue gguf_f32(float v);
GgufValue gguf_bool(bool v);
GgufValue gguf_str(std::string v);
GgufValue gguf_array(uint32_t item_type, std::vector<GgufValue> items);

struct GgufFile {
  MappedFile file;
  uint32_t version = 3;
  std::vector<std::pair<std::string, GgufValue>> kv;  // in file order
  std::vector<TensorView> tensors;                    // views into file, PyTorch-order shapes

  const GgufValue* find_kv(const std::string& key) const;   // nullptr when absent
  const TensorView* find(const std::string& name) const;    // nullptr when absent
  // Typed getters: Error naming the file and key when absent or of another type.
  uint64_t get_uint(const std::string& key) const;   // any unsigned/signed int type, >= 0
  double get_float(const std::string& key) const;    // f32/f64
  std::string get_string(const std::string& key) const;
};

GgufFile load_gguf(const std::string& path);

void write_gguf(const std::string& path, const std::vector<std::pair<std::string, GgufValue>>& kv,
                const std::vector<TensorView>& tensors, uint32_t alignment = 32);

}  // namespace qgpu::engine
