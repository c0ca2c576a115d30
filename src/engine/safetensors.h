// safetensors: read (mmap'd, hardened) and write (atomic).
//
// Format: u64 little-endian header length N, N bytes of JSON {name: {dtype, shape,
// data_offsets: [begin, end]}, "__metadata__": {str: str}}, then the data. Offsets are
// relative to the end of the header. Only F32, BF16 and F16 tensors are accepted.
// Hardening: header length capped (100 MB) and checked against the file size; every offset
// pair ordered, inside the data region and equal to numel * dtype size (checked arithmetic);
// shapes non-negative; duplicate names rejected. Every failure is one Error naming the file
// and, where there is one, the tensor.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/mapped_file.h"
#include "engine/tensor.h"

namespace qgpu::engine {

struct SafetensorsFile {
  MappedFile file;
  std::vector<TensorView> tensors;                 // in header order; views into file
  std::map<std::string, std::string> metadata;     // "__metadata__"

  const TensorView* find(const std::string& name) const;  // nullptr when absent
};

SafetensorsFile load_safetensors(const std::string& path);

// Writes tensors (in the given order, 8-byte aligned data) and metadata atomically.
void write_safetensors(const std::string& path, const std::vector<TensorView>& tensors,
                       const std::map<std::string, std::string>& metadata = {});

// A HF checkpoint directory's weights: model.safetensors, or the shards listed by
// model.safetensors.index.json (weight_map: name -> shard file). Tensor names are unique
// across shards; the index must name every tensor in the shards it lists and nothing else.
struct SafetensorsDir {
  std::vector<SafetensorsFile> shards;
  std::map<std::string, const TensorView*> by_name;  // points into shards

  const TensorView* find(const std::string& name) const;
};

SafetensorsDir load_safetensors_dir(const std::string& dir);

// Writes tensors into DIR as shards of at most max_shard_bytes each (one file named
// model.safetensors when they fit in one; else model-00001-of-0000N.safetensors plus
// model.safetensors.index.json), each file atomically.
void write_safetensors_dir(const std::string& dir, const std::vector<TensorView>& tensors,
                           size_t max_shard_bytes = size_t{4} << 30);

}  // namespace qgpu::engine
