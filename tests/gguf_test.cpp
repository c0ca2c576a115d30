// GGUF: round trips (every value type, arrays, f32/f16/bf16 tensors of 0 to 4 dims, custom
// alignment) and the hardened reader: hand-built files with one defect each give their one
// exact message, and a sweep of byte flips and truncations either loads or throws Error.
#include "engine/gguf.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstring>

#include "base/error.h"
#include "test_util.h"

namespace qgpu::engine {
namespace {

using test_util::TempFile;

// A GGUF written field by field, so each test can put one defect in it.
struct Bytes {
  std::string s;
  template <typename T>
  Bytes& put(T v) {
    s.append(reinterpret_cast<const char*>(&v), sizeof v);
    return *this;
  }
  Bytes& str(const std::string& v) {
    put<uint64_t>(v.size());
    s += v;
    return *this;
  }
  Bytes& header(uint64_t n_tensors, uint64_t n_kv, uint32_t version = 3) {
    s += "GGUF";
    return put(version).put(n_tensors).put(n_kv);
  }
  Bytes& kv_u32(const std::string& key, uint32_t v) { return str(key).put<uint32_t>(4).put(v); }
  Bytes& info(const std::string& name, std::vector<uint64_t> ne, uint32_t type, uint64_t offset) {
    str(name).put<uint32_t>(static_cast<uint32_t>(ne.size()));
    for (uint64_t n : ne) put(n);
    return put(type).put(offset);
  }
  Bytes& pad(size_t align = 32) {
    s.append((align - s.size() % align) % align, '\0');
    return *this;
  }
  Bytes& data(size_t n) {
    s.append(n, '\x01');
    return *this;
  }
};

// A valid file: one key, two f32 tensors of 4 elements.
Bytes valid() {
  Bytes b;
  b.header(2, 1).kv_u32("k", 7).info("a", {4}, 0, 0).info("b", {2, 2}, 0, 32).pad().data(48);
  return b;
}

// A value as text, type code first, arrays item by item.
std::string show(const GgufValue& v) {
  std::string s = fmt::format("{}:", v.type);
  std::visit([&](const auto& x) {
    if constexpr (std::is_same_v<std::decay_t<decltype(x)>, GgufArray>) {
      s += fmt::format("{}[", x.type);
      for (const GgufValue& item : x.items) s += show(item) + ",";
      s += "]";
    } else {
      s += fmt::format("{}", x);
    }
  }, v.value);
  return s;
}

std::string load_error(const std::string& bytes) {
  TempFile f(bytes, ".gguf");
  try {
    load_gguf(f.path.string());
  } catch (const Error& e) {
    std::string m = e.what();
    for (size_t at; (at = m.find(f.path.string())) != std::string::npos;) m.replace(at, f.path.string().size(), "F");
    return m;
  }
  return "loaded";
}

TEST(Gguf, RoundTripKeysOfEveryType) {
  std::vector<std::pair<std::string, GgufValue>> kv = {
      {"general.architecture", gguf_str("qwen35")},
      {"u8", {0, uint64_t{200}}}, {"i8", {1, int64_t{-100}}}, {"u16", {2, uint64_t{60000}}},
      {"i16", {3, int64_t{-30000}}}, {"u32", gguf_u32(4000000000u)}, {"i32", gguf_i32(-7)},
      {"f32", gguf_f32(1.5f)}, {"bool", gguf_bool(true)}, {"u64", {10, uint64_t{1} << 40}},
      {"i64", {11, int64_t{-1} << 40}}, {"f64", {12, 0.1}},
      {"arr.bool", gguf_array(7, {gguf_bool(true), gguf_bool(false)})},
      {"arr.str", gguf_array(8, {gguf_str("a b"), gguf_str("")})},
      {"arr.i32", gguf_array(5, {gguf_i32(11), gguf_i32(-1), gguf_i32(10), gguf_i32(0)})},
      {"arr.empty", gguf_array(4, {})},
  };
  TempFile f("", ".gguf");
  write_gguf(f.path.string(), kv, {});
  GgufFile g = load_gguf(f.path.string());
  EXPECT_EQ(g.version, 3u);
  ASSERT_EQ(g.kv.size(), kv.size());
  for (size_t i = 0; i < kv.size(); ++i) {
    EXPECT_EQ(g.kv[i].first, kv[i].first);
    EXPECT_EQ(g.kv[i].second.type, kv[i].second.type) << kv[i].first;
    EXPECT_EQ(show(g.kv[i].second), show(kv[i].second));
  }
  const GgufArray& strs = std::get<GgufArray>(g.find_kv("arr.str")->value);
  ASSERT_EQ(strs.items.size(), 2u);
  EXPECT_EQ(std::get<std::string>(strs.items[0].value), "a b");
  const GgufArray& ints = std::get<GgufArray>(g.find_kv("arr.i32")->value);
  EXPECT_EQ(ints.type, 5u);
  EXPECT_EQ(std::get<int64_t>(ints.items[1].value), -1);
  EXPECT_EQ(g.get_uint("u32"), 4000000000u);
  EXPECT_EQ(g.get_uint("u8"), 200u);
  EXPECT_EQ(g.get_float("f32"), 1.5);
  EXPECT_EQ(g.get_string("general.architecture"), "qwen35");
  EXPECT_EQ(g.find_kv("nope"), nullptr);
}

TEST(Gguf, TypedGetterErrors) {
  TempFile f("", ".gguf");
  write_gguf(f.path.string(), {{"s", gguf_str("x")}, {"neg", gguf_i32(-1)}, {"n", gguf_u32(1)}}, {});
  GgufFile g = load_gguf(f.path.string());
  std::string p = f.path.string();
  auto msg = [&](auto fn) {
    try {
      fn();
    } catch (const Error& e) {
      std::string m = e.what();
      return m.replace(m.find(p), p.size(), "F");
    }
    return std::string("no error");
  };
  EXPECT_EQ(msg([&] { g.get_uint("missing"); }),
            "F: key 'missing' is missing; the model was written without it");
  EXPECT_EQ(msg([&] { g.get_uint("s"); }), "F: key 's' has type string, not a non-negative integer");
  EXPECT_EQ(msg([&] { g.get_uint("neg"); }), "F: key 'neg' has type i32, not a non-negative integer");
  EXPECT_EQ(msg([&] { g.get_float("n"); }), "F: key 'n' has type u32, not a float");
  EXPECT_EQ(msg([&] { g.get_string("n"); }), "F: key 'n' has type u32, not a string");
}

TEST(Gguf, RoundTripTensorsAligned) {
  std::vector<TensorData> ts = {
      make_tensor("w.f32", DType::f32, {3, 2}, {1, 2, 3, 4, 5, -6}),
      make_tensor("w.bf16", DType::bf16, {5}, {1, 2, 3, 4, 5}),
      make_tensor("w.f16", DType::f16, {1, 2, 1, 3}, {0.5f, 1, 2, 3, 4, 65504}),
      make_tensor("scalar", DType::f32, {}, {9}),
  };
  std::vector<TensorView> vs;
  for (const TensorData& t : ts) vs.push_back(t.view());
  for (uint32_t align : {32u, 64u}) {
    TempFile f("", ".gguf");
    write_gguf(f.path.string(), {{"general.architecture", gguf_str("x")}}, vs, align);
    GgufFile g = load_gguf(f.path.string());
    ASSERT_EQ(g.tensors.size(), ts.size());
    for (size_t i = 0; i < ts.size(); ++i) {
      const TensorView& t = g.tensors[i];
      EXPECT_EQ(t.name, ts[i].name);
      EXPECT_EQ(t.dtype, ts[i].dtype);
      EXPECT_EQ(t.shape, ts[i].shape);
      EXPECT_EQ(std::memcmp(t.data, ts[i].bytes.data(), ts[i].bytes.size()), 0) << t.name;
      EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data) % align, 0u) << t.name;
    }
    EXPECT_EQ(g.find_kv("general.alignment") != nullptr, align != 32);
  }
}

TEST(Gguf, ShapesAreReversedNe) {
  TensorData t = make_tensor("w", DType::f32, {3, 2}, {1, 2, 3, 4, 5, 6});
  TempFile f("", ".gguf");
  write_gguf(f.path.string(), {}, {t.view()});
  std::string bytes = test_util::read_file(f.path);
  // header 24, name (8 + 1), n_dims 4, then ne[0] = 2 (the contiguous dim), ne[1] = 3.
  uint64_t ne0, ne1;
  std::memcpy(&ne0, bytes.data() + 24 + 9 + 4, 8);
  std::memcpy(&ne1, bytes.data() + 24 + 9 + 12, 8);
  EXPECT_EQ(ne0, 2u);
  EXPECT_EQ(ne1, 3u);
}

TEST(Gguf, HeaderErrors) {
  EXPECT_EQ(load_error(valid().s), "loaded");
  std::string s = valid().s;
  s[0] = 'X';
  EXPECT_EQ(load_error(s), "F: not a GGUF file (magic is not 'GGUF'); pass a .gguf model");
  EXPECT_EQ(load_error("GG"),
            "F: truncated at byte 0 while reading the magic (4 bytes needed, 2 left); the file is "
            "incomplete or corrupt");
  Bytes v1;
  v1.header(0, 0, 1);
  EXPECT_EQ(load_error(v1.s),
            "F: GGUF version 1 is not supported (2 and 3 are); re-export the model with a current converter");
  Bytes many_kv;
  many_kv.header(0, uint64_t{1} << 60);
  EXPECT_EQ(load_error(many_kv.s),
            "F: the key/value count is 1152921504606846976, more than the remaining 0 bytes can "
            "hold; the file is corrupt");
  Bytes many_t;
  many_t.header(uint64_t{1} << 50, 0).data(100);
  EXPECT_EQ(load_error(many_t.s),
            "F: tensor count 1125899906842624 is more than the remaining 100 bytes can hold; the "
            "file is corrupt");
}

TEST(Gguf, KeyValueErrors) {
  Bytes huge_key;
  huge_key.header(0, 1).put<uint64_t>(uint64_t{1} << 40).data(16);
  EXPECT_EQ(load_error(huge_key.s),
            "F: key 0 has length 1099511627776 at byte 24, over the 268435456 byte limit; the file is corrupt");
  Bytes long_key;
  long_key.header(0, 1).put<uint64_t>(1000).data(16);
  EXPECT_EQ(load_error(long_key.s),
            "F: truncated at byte 32 while reading key 0 (1000 bytes needed, 16 left); the file is "
            "incomplete or corrupt");
  Bytes dup;
  dup.header(0, 2).kv_u32("k", 1).kv_u32("k", 2);
  EXPECT_EQ(load_error(dup.s), "F: key 'k' appears twice; the file is corrupt");
  Bytes bad_type;
  bad_type.header(0, 1).str("k").put<uint32_t>(13).put<uint32_t>(0);
  EXPECT_EQ(load_error(bad_type.s),
            "F: key 'k' has unknown value type 13; the file is corrupt or from a newer GGUF version");
  Bytes huge_array;
  huge_array.header(0, 1).str("k").put<uint32_t>(9).put<uint32_t>(4).put<uint64_t>(uint64_t{1} << 62).data(8);
  EXPECT_EQ(load_error(huge_array.s),
            "F: the item count of key 'k' is 4611686018427387904, more than the remaining 8 bytes "
            "can hold; the file is corrupt");
  Bytes nested;
  nested.header(0, 1).str("k").put<uint32_t>(9).put<uint32_t>(9).put<uint64_t>(1);
  EXPECT_EQ(load_error(nested.s),
            "F: key 'k' is an array of arrays, which GGUF readers do not support; the file is corrupt");
  Bytes huge_str;
  huge_str.header(0, 1).str("k").put<uint32_t>(8).put<uint64_t>(uint64_t{1} << 33);
  EXPECT_EQ(load_error(huge_str.s),
            "F: the value of key 'k' has length 8589934592 at byte 37, over the 268435456 byte "
            "limit; the file is corrupt");
  Bytes align;
  align.header(0, 1).kv_u32("general.alignment", 24);
  EXPECT_EQ(load_error(align.s), "F: key 'general.alignment' must be a u32 power of two of at least 8; the file is corrupt");
  // An alignment of 1 or 2 would let an F32 tensor sit at an odd address (the spec says a
  // multiple of 8).
  Bytes small;
  small.header(0, 1).kv_u32("general.alignment", 2);
  EXPECT_EQ(load_error(small.s), "F: key 'general.alignment' must be a u32 power of two of at least 8; the file is corrupt");
}

TEST(Gguf, TensorErrors) {
  Bytes quant;
  quant.header(1, 0).info("blk.0.ffn_up.weight", {32}, 2, 0).pad().data(32);
  EXPECT_EQ(load_error(quant.s),
            "F: tensor 'blk.0.ffn_up.weight' has type Q4_0 (2); qgpu reads F32, F16 and BF16 only "
            "(convert the model without quantization)");
  Bytes unknown;
  unknown.header(1, 0).info("t", {4}, 99, 0).pad().data(32);
  EXPECT_EQ(load_error(unknown.s),
            "F: tensor 't' has type unknown (99); qgpu reads F32, F16 and BF16 only (convert the "
            "model without quantization)");
  Bytes misaligned;
  misaligned.header(1, 0).info("t", {1}, 0, 4).pad().data(32);
  EXPECT_EQ(load_error(misaligned.s),
            "F: tensor 't' has offset 4, not a multiple of the alignment 32; the file is corrupt");
  Bytes past;
  past.header(1, 0).info("t", {16}, 0, 0).pad().data(32);
  EXPECT_EQ(load_error(past.s),
            "F: tensor 't' (64 bytes at data offset 0) runs past the end of the file (32 data "
            "bytes); the file is truncated");
  Bytes far;
  far.header(1, 0).info("t", {1}, 0, uint64_t{1} << 63).pad().data(32);
  EXPECT_EQ(load_error(far.s),
            "F: tensor 't' (4 bytes at data offset 9223372036854775808) runs past the end of the "
            "file (32 data bytes); the file is truncated");
  Bytes overlap;
  overlap.header(2, 0).info("a", {16}, 0, 0).info("b", {8}, 0, 32).pad().data(64);
  EXPECT_EQ(load_error(overlap.s), "F: tensors 'a' and 'b' overlap in the data region; the file is corrupt");
  Bytes dup;
  dup.header(2, 0).info("a", {1}, 0, 0).info("a", {1}, 0, 32).pad().data(64);
  EXPECT_EQ(load_error(dup.s), "F: tensor 'a' appears twice; the file is corrupt");
  Bytes dims;
  dims.header(1, 0).info("t", {1, 1, 1, 1, 1}, 0, 0).pad().data(32);
  EXPECT_EQ(load_error(dims.s), "F: tensor 't' has 5 dimensions, more than ggml's 4; the file is corrupt");
  Bytes overflow;
  overflow.header(1, 0).info("t", {uint64_t{1} << 32, uint64_t{1} << 32}, 0, 0).pad().data(32);
  EXPECT_EQ(load_error(overflow.s),
            "F: tensor 't' has a shape whose element count overflows 64 bits; the file is corrupt");
  Bytes bytes_overflow;
  bytes_overflow.header(1, 0).info("t", {uint64_t{1} << 62}, 0, 0).pad().data(32);
  EXPECT_EQ(load_error(bytes_overflow.s), "F: tensor 't' is larger than 2^64 bytes; the file is corrupt");
}

TEST(Gguf, WriterRejectsBadInput) {
  TempFile f("", ".gguf");
  TensorData t = make_tensor("t", DType::f32, {1}, {1});
  auto msg = [&](auto fn) {
    try {
      fn();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(msg([&] { write_gguf(f.path.string(), {{"k", gguf_u32(1)}, {"k", gguf_u32(1)}}, {}); }),
            "write_gguf: key 'k' given twice");
  EXPECT_EQ(msg([&] { write_gguf(f.path.string(), {}, {t.view(), t.view()}); }),
            "write_gguf: tensor 't' given twice");
  EXPECT_EQ(msg([&] { write_gguf(f.path.string(), {}, {}, 48); }), "write_gguf: alignment 48 is not a power of two of at least 8");
  EXPECT_EQ(msg([&] { write_gguf(f.path.string(), {{"a", gguf_array(4, {gguf_i32(1)})}}, {}); }),
            "write_gguf: key 'a': array of u32 holds an item of type i32");
}

// Every single-byte corruption and every truncation of a small valid file either loads or
// throws qgpu::Error; anything else (a crash, another exception type) fails the test.
TEST(Gguf, ByteFlipAndTruncationSweep) {
  TensorData w = make_tensor("blk.0.w", DType::bf16, {2, 2}, {1, 2, 3, 4});
  TensorData n = make_tensor("n", DType::f32, {3}, {1, 2, 3});
  TempFile f("", ".gguf");
  write_gguf(f.path.string(),
             {{"general.architecture", gguf_str("qwen35")}, {"c", gguf_u32(4)},
              {"arr", gguf_array(7, {gguf_bool(true), gguf_bool(false)})},
              {"toks", gguf_array(8, {gguf_str("a"), gguf_str("bc")})}},
             {w.view(), n.view()});
  std::string good = test_util::read_file(f.path);
  int loaded = 0, rejected = 0;
  auto attempt = [&](const std::string& bytes) { (load_error(bytes) == "loaded" ? loaded : rejected)++; };
  for (size_t i = 0; i < good.size(); ++i)
    for (uint8_t x : {0x01, 0x40, 0xff}) {
      std::string bad = good;
      bad[i] = static_cast<char>(bad[i] ^ x);
      attempt(bad);
    }
  for (size_t len = 0; len < good.size(); ++len) attempt(good.substr(0, len));
  EXPECT_GT(loaded, 0);
  EXPECT_GT(rejected, static_cast<int>(good.size()));
}

}  // namespace
}  // namespace qgpu::engine
