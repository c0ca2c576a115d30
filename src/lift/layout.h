// The residual stream as named fields: each field is a contiguous run of dims handed out
// once (or recycled over a region whose codes a layer has cleared). Weights are written by field name, so the construction, the divergence finder and
// the panel all speak of "img_addr[5]", never of dim 312.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

namespace qgpu::lift {

struct Field {
  std::string name;
  int offset = 0;
  int size = 0;
  int dim(int i) const;  // offset + i, CHECKed in range
};

struct Layout {
  std::vector<Field> fields;
  int used = 0;
  std::unordered_map<std::string, size_t> index;  // name -> position in fields (add keeps it)

  const Field& add(const std::string& name, int size);  // next free dims
  // A field on dims [at, at + size) of `region`, an earlier field whose codes a layer
  // clears before this one's writer runs (dims recycled along the depth).
  const Field& add_over(const std::string& name, int size, const std::string& region, int at);
  const Field& operator[](const std::string& name) const;  // CHECKs that it exists
};

}  // namespace qgpu::lift
