// Field allocation: first fit from the bottom; add_over recycles a cleared region's dims.
#include "lift/layout.h"

#include "base/error.h"

namespace qgpu::lift {

int Field::dim(int i) const {
  CHECK(i >= 0 && i < size);
  return offset + i;
}

const Field& Layout::add(const std::string& name, int size) {
  CHECK(size > 0);
  CHECK(index.emplace(name, fields.size()).second);
  fields.push_back({name, used, size});
  used += size;
  return fields.back();
}

const Field& Layout::add_over(const std::string& name, int size, const std::string& region, int at) {
  CHECK(size > 0 && at >= 0);
  const Field r = (*this)[region];
  CHECK(at + size <= r.size);
  CHECK(index.emplace(name, fields.size()).second);
  fields.push_back({name, r.offset + at, size});
  return fields.back();
}

const Field& Layout::operator[](const std::string& name) const {
  auto it = index.find(name);
  CHECK(it != index.end() && "no such residual field");
  return fields[it->second];
}

}  // namespace qgpu::lift
