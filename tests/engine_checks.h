// Checks more than one engine test makes.
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "engine/forward.h"

namespace qgpu::test_util {

// Prefill (in batches of 5 tokens) and one-token decode give the same logits bit for bit.
inline void expect_prefill_equals_decode(const engine::Model& m, engine::RuntimeOptions o,
                                         const std::vector<int32_t>& tokens) {
  const int64_t V = m.config.vocab_size;
  std::vector<float> all, logits;
  o.max_batch = 5;
  engine::Runtime prefill(m, o);
  engine::State p = engine::make_state(m.config);
  prefill.forward(p, tokens, all, /*all_logits=*/true);
  engine::Runtime rt(m, o);
  engine::State s = engine::make_state(m.config);
  for (size_t t = 0; t < tokens.size(); ++t) {
    rt.forward(s, std::span<const int32_t>(&tokens[t], 1), logits);
    for (int64_t v = 0; v < V; ++v)
      ASSERT_EQ(logits[v], all[t * V + v]) << "position " << t << " token " << v;
  }
  EXPECT_EQ(s.n_past, static_cast<int64_t>(tokens.size()));
}

}  // namespace qgpu::test_util
