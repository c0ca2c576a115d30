// Field allocation: first fit from the bottom among the fields alive at the same time.
#include "lift/layout.h"

#include <algorithm>
#include <functional>

#include <fmt/format.h>

#include "base/error.h"

namespace qgpu::lift {

std::string sublayer_name(int s) {
  if (s == kEmbedding) return "embedding";
  return fmt::format("L{}.{}", s / 2, s % 2 ? "mlp" : "mixer");
}

int Field::dim(int i) const {
  CHECK(i >= 0 && i < size);
  return offset + i;
}

bool overlap(const Life& a, const Life& b) {
  auto meet = [](int born_a, int cleared_a, int born_b, int cleared_b) { return !(cleared_a <= born_b || cleared_b <= born_a); };
  const Life input{.born = kEmbedding, .cleared = kHeadPatternCleared};  // the head pattern's
  return meet(a.born, a.cleared, b.born, b.cleared) || (a.head && meet(input.born, input.cleared, b.born, b.cleared)) ||
         (b.head && meet(a.born, a.cleared, input.born, input.cleared)) || (a.head && b.head);
}

int Field::dim(int group, int digit) const { return offset + code.dim(group, digit); }

void Layout::add(const std::string& name, Code code, Life life, std::string meaning) {
  const int size = code.size();
  CHECK(size > 0);
  life.hots = code.hots();
  CHECK(life.born >= kEmbedding && life.born < life.cleared);
  CHECK(life.cleared == kNever || life.cleared % 2 == 1);  // an MLP clears
  CHECK(index.emplace(name, fields.size()).second);
  fields.push_back({.name = name, .size = size, .life = life, .code = std::move(code), .meaning = std::move(meaning)});
}

void Layout::place() {
  // First fit, in the order that gives the narrowest residual of a few: the longest-lived
  // first (a field never cleared holds to the last sublayer any life names), the widest
  // first among equals; or, among equals, the earliest born; or by dims x sublayers held.
  // The machine's is one dim over the most alive at once.
  int last = 0;
  for (const Field& f : fields) last = std::max({last, f.life.born + 1, f.life.cleared == kNever ? 0 : f.life.cleared});
  auto held = [&](const Field* f) { return std::min(f->life.cleared, last) - f->life.born; };
  using Before = std::function<bool(const Field*, const Field*)>;
  const Before orders[] = {
      [&](const Field* a, const Field* b) { return held(a) != held(b) ? held(a) > held(b) : a->size > b->size; },
      [&](const Field* a, const Field* b) {
        if (held(a) != held(b)) return held(a) > held(b);
        return a->life.born != b->life.born ? a->life.born < b->life.born : a->size > b->size;
      },
      [&](const Field* a, const Field* b) { return held(a) * a->size > held(b) * b->size; }};
  std::vector<int> best;
  for (const Before& before : orders) {
    std::vector<Field*> order;
    for (Field& f : fields) order.push_back(&f);
    std::stable_sort(order.begin(), order.end(), before);
    used = 0;
    std::vector<const Field*> placed;
    for (Field* f : order) {
      int at = shared ? 0 : used;
      for (bool moved = shared; moved;) {
        moved = false;
        for (const Field* p : placed)
          if (overlap(p->life, f->life) && at < p->offset + p->size && p->offset < at + f->size)
            at = p->offset + p->size, moved = true;
      }
      f->offset = at;
      used = std::max(used, at + f->size);
      placed.push_back(f);
    }
    if (best.empty() || used < best.back()) {
      best.clear();
      for (const Field& f : fields) best.push_back(f.offset);
      best.push_back(used);
    }
  }
  for (size_t i = 0; i < fields.size(); ++i) fields[i].offset = best[i];
  used = best.back();
}

int Layout::alive(int sublayer) const {
  int dims = 0;
  for (const Field& f : fields)
    if (overlap(f.life, {.born = sublayer, .cleared = sublayer + 1})) dims += f.size;
  return dims;
}

const Field& Layout::operator[](const std::string& name) const {
  auto it = index.find(name);
  CHECK(it != index.end() && "no such residual field");
  return fields[it->second];
}

}  // namespace qgpu::lift
