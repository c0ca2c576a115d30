// Qwen3.5 models to and from GGUF: the qwen35 keys llama.cpp needs, the tensor dtypes it
// demands, the grouped -> tiled value-head reorder (checked tensor by tensor against the
// HF weights), a load-back whose forward equals the HF model's, the gpt2 vocabulary, and
// the binder's errors for missing, unexpected and misshapen tensors.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "engine/forward.h"
#include "engine/model.h"
#include "engine/tiny_model.h"
#include "test_util.h"

namespace qgpu::engine {
namespace {

using test_util::TempDir;

// A tiny HF model with 4 value heads over 2 key heads, loaded.
struct Fixture {
  TempDir dir;
  Model hf;
  explicit Fixture(TinySpec spec = {.layers = "LLLF", .tie_word_embeddings = true}) {
    write_tiny_model(dir / "hf", spec);
    hf = load_model(dir / "hf");
  }
};

std::string message_of(const std::function<void()>& fn, const std::string& path) {
  try {
    fn();
  } catch (const Error& e) {
    std::string m = e.what();
    for (size_t at; (at = m.find(path)) != std::string::npos;) m.replace(at, path.size(), "F");
    return m;
  }
  return "no error";
}

std::vector<int64_t> ints(const GgufValue& v) {
  std::vector<int64_t> out;
  for (const GgufValue& x : std::get<GgufArray>(v.value).items) {
    if (const int64_t* i = std::get_if<int64_t>(&x.value)) out.push_back(*i);
    else if (const bool* b = std::get_if<bool>(&x.value)) out.push_back(*b);
    else out.push_back(static_cast<int64_t>(std::get<uint64_t>(x.value)));
  }
  return out;
}

TEST(GgufModel, WritesTheKeysLlamaCppNeeds) {
  Fixture f;
  write_gguf_model(f.hf, f.dir / "m.gguf", DType::bf16);
  GgufFile g = load_gguf(f.dir / "m.gguf");
  EXPECT_EQ(g.get_string("general.architecture"), "qwen35");
  EXPECT_EQ(g.get_string("tokenizer.ggml.model"), "none");
  EXPECT_EQ(g.get_uint("qwen35.vocab_size"), uint64_t(f.hf.config.vocab_size));
  EXPECT_EQ(g.get_uint("qwen35.block_count"), 4u);
  EXPECT_EQ(g.get_uint("qwen35.embedding_length"), 64u);
  EXPECT_EQ(g.get_uint("qwen35.attention.key_length"), 16u);
  EXPECT_EQ(g.get_uint("qwen35.attention.value_length"), 16u);
  EXPECT_EQ(g.get_uint("qwen35.rope.dimension_count"), 4u);
  EXPECT_EQ(ints(*g.find_kv("qwen35.rope.dimension_sections")), (std::vector<int64_t>{1, 1, 0, 0}));
  EXPECT_EQ(ints(*g.find_kv("qwen35.attention.recurrent_layers")), (std::vector<int64_t>{1, 1, 1, 0}));
  EXPECT_EQ(g.get_uint("qwen35.ssm.group_count"), 2u);
  EXPECT_EQ(g.get_uint("qwen35.ssm.time_step_rank"), 4u);
  EXPECT_EQ(g.get_uint("qwen35.ssm.inner_size"), 64u);
  EXPECT_EQ(g.get_uint("qwen35.ssm.state_size"), 16u);
  EXPECT_EQ(g.get_uint("general.file_type"), 32u);
  EXPECT_FLOAT_EQ(static_cast<float>(g.get_float("qwen35.rope.freq_base")), float(f.hf.config.rope_theta));
}

TEST(GgufModel, VectorsAndConvInF32MatricesInTheAskedDtype) {
  Fixture f;
  write_gguf_model(f.hf, f.dir / "m.gguf", DType::bf16);
  GgufFile g = load_gguf(f.dir / "m.gguf");
  EXPECT_EQ(g.find("output.weight"), nullptr) << "tied: no separate head";
  EXPECT_EQ(g.tensors.size(), 2u + 3 * 14 + 11);
  for (const TensorView& t : g.tensors) {
    bool f32 = t.shape.size() == 1 || t.name.ends_with("ssm_conv1d.weight");
    EXPECT_EQ(t.dtype, f32 ? DType::f32 : DType::bf16) << t.name;
  }
  EXPECT_EQ(g.find("blk.0.ssm_conv1d.weight")->shape, (std::vector<int64_t>{128, 4}));
  EXPECT_EQ(g.find("blk.3.attn_q.weight")->shape, (std::vector<int64_t>{64, 64}));
}

// GGUF value head p (tiled) is HF value head order(p) (grouped): p = v*Hk + k <- k*r + v.
int grouped_of(int p) { return (p % 2) * 2 + p / 2; }

TEST(GgufModel, ValueHeadsAreTiledInEveryTensorThatHasThem) {
  Fixture f;
  write_gguf_model(f.hf, f.dir / "m.gguf", DType::f32);
  GgufFile g = load_gguf(f.dir / "m.gguf");
  const DeltaNetWeights& w = f.hf.layers[0].linear_attn;
  const int64_t H = 64, dv = 16, K = 4, qk = 64, VD = 64;
  std::vector<float> qkv = to_f32(*g.find("blk.0.attn_qkv.weight")), z = to_f32(*g.find("blk.0.attn_gate.weight"));
  std::vector<float> beta = to_f32(*g.find("blk.0.ssm_beta.weight")), a = to_f32(*g.find("blk.0.ssm_a"));
  std::vector<float> dt = to_f32(*g.find("blk.0.ssm_dt.bias")), conv = to_f32(*g.find("blk.0.ssm_conv1d.weight"));
  std::vector<float> out = to_f32(*g.find("blk.0.ssm_out.weight"));
  for (int64_t i = 0; i < qk * H; ++i) ASSERT_EQ(qkv[i], w.in_proj_qkv.w.at(i)) << "q and k rows stay";
  for (int p = 0; p < 4; ++p) {
    int j = grouped_of(p);
    EXPECT_EQ(a[p], w.a[j]);
    EXPECT_EQ(dt[p], w.dt_bias[j]);
    for (int64_t h = 0; h < H; ++h) EXPECT_EQ(beta[p * H + h], w.in_proj_b.w.at(j * H + h));
    for (int64_t e = 0; e < dv * H; ++e) {
      ASSERT_EQ(qkv[(qk + p * dv) * H + e], w.in_proj_qkv.w.at((qk + j * dv) * H + e));
      ASSERT_EQ(z[p * dv * H + e], w.in_proj_z.w.at(j * dv * H + e));
    }
    for (int64_t e = 0; e < dv * K; ++e) ASSERT_EQ(conv[(qk + p * dv) * K + e], w.conv1d[(qk + j * dv) * K + e]);
    for (int64_t r = 0; r < H; ++r)
      for (int64_t e = 0; e < dv; ++e) ASSERT_EQ(out[r * VD + p * dv + e], w.out_proj.w.at(r * VD + j * dv + e));
  }
}

std::vector<float> all_logits(const Model& m, const std::vector<int32_t>& tokens) {
  Runtime rt(m, {.threads = 1});
  State s = make_state(m.config);
  std::vector<float> logits;
  rt.forward(s, tokens, logits, true);
  return logits;
}

TEST(GgufModel, LoadBackGivesTheSameModel) {
  Fixture f({.layers = "LFLL", .tie_word_embeddings = false, .seed = 7});
  write_gguf_model(f.hf, f.dir / "m.gguf", DType::f32);
  Model g = load_gguf_model(f.dir / "m.gguf");
  EXPECT_TRUE(g.v_heads_tiled);
  nlohmann::json got_config = config_to_json(g.config), want_config = config_to_json(f.hf.config);
  want_config.erase("eos_token_id");  // a GGUF without a vocabulary has no special tokens
  EXPECT_EQ(got_config.dump(), want_config.dump());
  EXPECT_EQ(g.layers[1].self_attn.q_norm, f.hf.layers[1].self_attn.q_norm);
  EXPECT_EQ(g.layers[0].input_layernorm, f.hf.layers[0].input_layernorm);
  for (int p = 0; p < 4; ++p) {
    EXPECT_EQ(g.layers[2].linear_attn.a[p], f.hf.layers[2].linear_attn.a[grouped_of(p)]);
    EXPECT_EQ(g.key_head_of(p), f.hf.key_head_of(grouped_of(p)));
  }
  std::vector<int32_t> tokens = {5, 77, 3, 200, 9, 9, 41};
  std::vector<float> want = all_logits(f.hf, tokens), got = all_logits(g, tokens);
  ASSERT_EQ(got.size(), want.size());
  double max_diff = 0;  // reordered heads sum out_proj's columns in another order: ~1e-5
  for (size_t i = 0; i < want.size(); ++i) max_diff = std::max(max_diff, double(std::fabs(got[i] - want[i])));
  EXPECT_LT(max_diff, 1e-4);
  // Written again from the tiled model: no second reorder, byte-identical tensors.
  write_gguf_model(g, f.dir / "again.gguf", DType::f32);
  GgufFile a = load_gguf(f.dir / "m.gguf"), b = load_gguf(f.dir / "again.gguf");
  ASSERT_EQ(a.tensors.size(), b.tensors.size());
  for (size_t i = 0; i < a.tensors.size(); ++i)
    EXPECT_EQ(std::memcmp(a.tensors[i].data, b.tensors[i].data, a.tensors[i].nbytes()), 0) << a.tensors[i].name;
}

TEST(GgufModel, Gpt2VocabularyFromTokenizerJson) {
  Fixture f;
  write_gguf_model(f.hf, f.dir / "m.gguf", DType::f32, f.dir / "hf/tokenizer.json");
  GgufFile g = load_gguf(f.dir / "m.gguf");
  nlohmann::json tok = nlohmann::json::parse(test_util::read_file(f.dir / "hf/tokenizer.json"));
  int64_t n_vocab = tok["model"]["vocab"].size(), n_added = tok["added_tokens"].size(), V = f.hf.config.vocab_size;
  ASSERT_LT(n_vocab + n_added, V) << "the fixture must have padding entries";
  EXPECT_EQ(g.get_string("tokenizer.ggml.model"), "gpt2");
  EXPECT_EQ(g.get_string("tokenizer.ggml.pre"), "qwen35");
  const GgufArray& tokens = std::get<GgufArray>(g.find_kv("tokenizer.ggml.tokens")->value);
  std::vector<int64_t> types = ints(*g.find_kv("tokenizer.ggml.token_type"));
  ASSERT_EQ(tokens.items.size(), size_t(V));
  EXPECT_EQ(std::get<std::string>(tokens.items[V - 1].value), fmt::format("[PAD{}]", V - 1));
  EXPECT_EQ(types[V - 1], 5);
  EXPECT_EQ(types[0], 1);
  for (const auto& a : tok["added_tokens"])
    EXPECT_EQ(types[a["id"].get<int64_t>()], a["special"].get<bool>() ? 3 : 4) << a["content"];
  EXPECT_EQ(std::get<GgufArray>(g.find_kv("tokenizer.ggml.merges")->value).items.size(), tok["model"]["merges"].size());
  EXPECT_EQ(g.get_uint("tokenizer.ggml.eos_token_id"), uint64_t(f.hf.config.eos_token_id[0]));
  EXPECT_FALSE(std::get<bool>(g.find_kv("tokenizer.ggml.add_bos_token")->value));
}

// Rewrites m.gguf with the tensors passed through `edit`.
void rewrite(const std::string& path, const std::string& out,
             const std::function<void(std::vector<std::pair<std::string, GgufValue>>&, std::vector<TensorView>&)>& edit) {
  GgufFile g = load_gguf(path);
  std::vector<std::pair<std::string, GgufValue>> kv = g.kv;
  std::vector<TensorView> tensors = g.tensors;
  edit(kv, tensors);
  write_gguf(out, kv, tensors);
}

TEST(GgufModel, LoadErrorsNameFileAndTensor) {
  Fixture f;
  std::string src = f.dir / "m.gguf", bad = f.dir / "bad.gguf";
  write_gguf_model(f.hf, src, DType::f32);
  auto load_error = [&] { return message_of([&] { load_gguf_model(bad); }, bad); };
  rewrite(src, bad, [](auto&, auto& ts) { std::erase_if(ts, [](auto& t) { return t.name == "blk.1.ssm_a"; }); });
  EXPECT_EQ(load_error(), "F: missing tensor 'blk.1.ssm_a' (shape [4])");
  rewrite(src, bad, [](auto&, auto& ts) { ts.push_back(ts[0]); ts.back().name = "blk.0.attn_q.weight"; });
  EXPECT_EQ(load_error(),
            "F: unexpected tensor 'blk.0.attn_q.weight' (not part of a Qwen3.5 text model with this "
            "config; a DeltaNet layer has no attention tensors and vice versa)");
  rewrite(src, bad, [](auto&, auto& ts) {
    for (auto& t : ts)
      if (t.name == "blk.3.attn_k_norm.weight") t.shape = {2, 8};
  });
  EXPECT_EQ(load_error(), "F: tensor 'blk.3.attn_k_norm.weight' has shape [2, 8] (PyTorch order), the config needs [16]");
  rewrite(src, bad, [](auto& kv, auto&) { kv[0].second = gguf_str("llama"); });
  EXPECT_EQ(load_error(), "F: architecture 'llama' is not qwen35 (a Qwen3.5 text model)");
  rewrite(src, bad, [](auto& kv, auto&) {
    std::erase_if(kv, [](auto& p) { return p.first == "qwen35.ssm.conv_kernel"; });
  });
  EXPECT_EQ(load_error(), "F: key 'qwen35.ssm.conv_kernel' is missing; the model was written without it");
  rewrite(src, bad, [](auto& kv, auto&) {
    for (auto& [k, v] : kv)
      if (k == "qwen35.vocab_size") v = gguf_u32(7);
  });
  EXPECT_EQ(load_error(), fmt::format("F: qwen35.vocab_size is 7 but token_embd.weight has {} rows",
                                      f.hf.config.vocab_size));
}

}  // namespace
}  // namespace qgpu::engine
