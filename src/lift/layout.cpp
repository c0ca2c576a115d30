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
  for (const Field& f : fields) CHECK(f.name != name);
  fields.push_back({name, used, size});
  used += size;
  return fields.back();
}

const Field& Layout::add_over(const std::string& name, int size, const std::string& region, int at) {
  CHECK(size > 0 && at >= 0);
  for (const Field& f : fields) CHECK(f.name != name);
  const Field r = (*this)[region];
  CHECK(at + size <= r.size);
  fields.push_back({name, r.offset + at, size});
  return fields.back();
}

const Field& Layout::operator[](const std::string& name) const {
  for (const Field& f : fields)
    if (f.name == name) return f;
  CHECK(!"no such residual field");
  return fields.front();
}

}  // namespace qgpu::lift
