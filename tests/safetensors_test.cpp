// safetensors: round trips (dtypes, 0-d to 3-d shapes, metadata, sharded directories) and the
// hardened reader: each kind of corruption gives its one exact message, and a sweep of byte
// flips and truncations over a small valid file either loads or throws qgpu::Error.
#include "engine/safetensors.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "base/error.h"
#include "base/mapped_file.h"
#include "test_util.h"

namespace qgpu::engine {
namespace {

namespace fs = std::filesystem;
using test_util::TempFile;

std::vector<TensorData> sample_tensors() {
  return {
      make_tensor("a.f32", DType::f32, {2, 3}, {1, -2, 3.5f, 4, 5, 6}),
      make_tensor("b.bf16", DType::bf16, {3}, {0.5f, -1.25f, 3e5f}),
      make_tensor("c.f16", DType::f16, {1, 2, 2}, {0.1f, 2, -3, 65504}),
      make_tensor("scalar", DType::f32, {}, {42}),
      make_tensor("empty", DType::bf16, {0, 4}, {}),
  };
}

std::vector<TensorView> views(const std::vector<TensorData>& ts) {
  std::vector<TensorView> v;
  for (const TensorData& t : ts) v.push_back(t.view());
  return v;
}

void expect_same(const TensorView& got, const TensorData& want) {
  EXPECT_EQ(got.name, want.name);
  EXPECT_EQ(got.dtype, want.dtype) << want.name;
  EXPECT_EQ(got.shape, want.shape) << want.name;
  ASSERT_EQ(got.nbytes(), want.bytes.size()) << want.name;
  if (want.bytes.empty()) return;  // data() may be null: nothing to compare
  EXPECT_EQ(std::memcmp(got.data, want.bytes.data(), want.bytes.size()), 0) << want.name;
}

// The file: u64 header length, the header, the data.
std::string raw_file(const std::string& header, const std::string& data = "") {
  std::string s(8, '\0');
  uint64_t n = header.size();
  std::memcpy(s.data(), &n, 8);
  return s + header + data;
}

// The error message of loading these bytes, with the temp path replaced by "F".
std::string load_error(const std::string& bytes) {
  TempFile f(bytes, ".safetensors");
  try {
    load_safetensors(f.path.string());
  } catch (const Error& e) {
    std::string m = e.what();
    for (size_t at; (at = m.find(f.path.string())) != std::string::npos;)
      m.replace(at, f.path.string().size(), "F");
    return m;
  }
  return "loaded";
}

TEST(Safetensors, RoundTripKeepsOrderDtypesShapesAndMetadata) {
  std::vector<TensorData> ts = sample_tensors();
  TempFile f("", ".safetensors");
  write_safetensors(f.path.string(), views(ts), {{"format", "pt"}, {"note", "x"}});
  SafetensorsFile st = load_safetensors(f.path.string());
  ASSERT_EQ(st.tensors.size(), ts.size());
  for (size_t i = 0; i < ts.size(); ++i) expect_same(st.tensors[i], ts[i]);
  EXPECT_EQ(st.metadata, (std::map<std::string, std::string>{{"format", "pt"}, {"note", "x"}}));
  EXPECT_EQ(st.find("c.f16")->at(3), 65504.0f);
  EXPECT_EQ(st.find("nope"), nullptr);
  uint64_t header = 0;
  std::memcpy(&header, st.file.data(), 8);
  EXPECT_EQ((8 + header) % 8, 0u) << "data starts 8-byte aligned";
}

// Every file is written through write_file_atomic, which leaves a hole where a whole 4 KiB
// block of the file is zero: the bytes read back are the bytes written (zero runs that
// start and end inside blocks, at the buffer's 1 MiB edges, at the end of the file), and a
// mostly-zero file takes little disk where the file system has holes.
TEST(Safetensors, ZeroBlocksAreHolesAndReadBackAsZeros) {
  test_util::TempDir dir;
  std::string bytes(3 * (size_t{1} << 20) + 5000, '\0');
  for (size_t at : {size_t{0}, size_t{4095}, size_t{4096}, size_t{70000}, (size_t{1} << 20) - 1, size_t{1} << 20,
                    2 * (size_t{1} << 20) + 8191, bytes.size() - 5000})
    bytes[at] = static_cast<char>(at % 251 + 1);
  const std::string path = (dir / "f.bin");
  // Written in pieces of odd sizes, as the checkpoint writers do.
  write_file_atomic(path, [&](std::ostream& out) {
    for (size_t at = 0; at < bytes.size();) {
      const size_t n = std::min<size_t>(bytes.size() - at, 1 + at % 300000);
      out.write(bytes.data() + at, static_cast<std::streamsize>(n));
      at += n;
    }
  });
  std::ifstream in(path, std::ios::binary);
  const std::string back((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_EQ(back.size(), bytes.size());
  EXPECT_TRUE(back == bytes);
  // A zero tail is a hole too: the size is set at the end.
  const std::string tail = (dir / "tail.bin");
  write_file_atomic(tail, [&](std::ostream& out) { out << "x" << std::string(100000, '\0'); });
  EXPECT_EQ(fs::file_size(tail), 100001u);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  if (static_cast<uint64_t>(st.st_blocks) * 512 >= bytes.size()) GTEST_SKIP() << "this file system keeps no holes";
  EXPECT_LE(static_cast<uint64_t>(st.st_blocks) * 512, 16u * 4096) << "8 nonzero blocks, the rest holes";
}

TEST(Safetensors, DirectoryWithOneFile) {
  std::vector<TensorData> ts = sample_tensors();
  TempFile dir_marker;
  fs::path dir = dir_marker.path.string() + ".d";
  write_safetensors_dir(dir.string(), views(ts));
  EXPECT_TRUE(fs::exists(dir / "model.safetensors"));
  EXPECT_FALSE(fs::exists(dir / "model.safetensors.index.json"));
  SafetensorsDir d = load_safetensors_dir(dir.string());
  for (const TensorData& t : ts) expect_same(*d.find(t.name), t);
  fs::remove_all(dir);
}

TEST(Safetensors, ShardedDirectoryWithIndex) {
  std::vector<TensorData> ts = sample_tensors();
  TempFile dir_marker;
  fs::path dir = dir_marker.path.string() + ".d";
  write_safetensors_dir(dir.string(), views(ts), 16);  // a.f32 (24 bytes) alone, then groups
  EXPECT_TRUE(fs::exists(dir / "model.safetensors.index.json"));
  EXPECT_TRUE(fs::exists(dir / "model-00001-of-00003.safetensors"));
  EXPECT_FALSE(fs::exists(dir / "model.safetensors"));
  SafetensorsDir d = load_safetensors_dir(dir.string());
  EXPECT_EQ(d.shards.size(), 3u);
  EXPECT_EQ(d.by_name.size(), ts.size());
  for (const TensorData& t : ts) expect_same(*d.find(t.name), t);
  SafetensorsDir moved = std::move(d);  // views stay valid when the directory moves
  expect_same(*moved.find("b.bf16"), ts[1]);
  fs::remove_all(dir);
}

TEST(Safetensors, HeaderErrors) {
  EXPECT_EQ(load_error("abc"),
            "F: not a safetensors file: 3 bytes, shorter than the 8-byte header length; the file "
            "is truncated");
  EXPECT_EQ(load_error(raw_file("{}").substr(0, 9)),
            "F: header length 2 runs past the end of the file (9 bytes); the file is truncated");
  std::string huge = raw_file("{}");
  huge[5] = 1;  // 2^40 + 2
  EXPECT_EQ(load_error(huge),
            "F: header length 1099511627778 exceeds the 100000000 byte limit; the file is corrupt "
            "or not safetensors");
  EXPECT_EQ(load_error(raw_file("[1]")), "F: header is not a JSON object; the file is corrupt");
  EXPECT_EQ(load_error(raw_file("{\"a\":")).rfind("F: header is not valid JSON ([json.exception.parse_error", 0), 0u);
  EXPECT_EQ(load_error(raw_file(R"({"__metadata__": {"k": 1}})")),
            "F: '__metadata__' value 'k' is not a string; the file is corrupt");
  EXPECT_EQ(load_error(raw_file(R"({"__metadata__": {}})")), "loaded");
}

TEST(Safetensors, TensorEntryErrors) {
  auto one = [](const std::string& entry, const std::string& data = std::string(8, '\0')) {
    return load_error(raw_file("{\"w\": " + entry + "}", data));
  };
  EXPECT_EQ(one(R"({"dtype": "F32", "shape": [2]})"),
            "F: tensor 'w': entry must be an object with dtype, shape and data_offsets; the file is corrupt");
  EXPECT_EQ(one(R"({"dtype": "I64", "shape": [1], "data_offsets": [0, 8]})"),
            "F: tensor 'w': unsupported dtype 'I64'; qgpu reads F32, BF16 and F16 only (convert the checkpoint)");
  EXPECT_EQ(one(R"({"dtype": 3, "shape": [1], "data_offsets": [0, 8]})"),
            "F: tensor 'w': 'dtype' is not a string; the file is corrupt");
  EXPECT_EQ(one(R"({"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]})"),
            "F: tensor 'w': shape entry -2 is negative or too large; the file is corrupt");
  EXPECT_EQ(one(R"({"dtype": "F32", "shape": [1.5], "data_offsets": [0, 8]})"),
            "F: tensor 'w': shape entry 1.5 is not an integer; the file is corrupt");
  EXPECT_EQ(one(R"({"dtype": "F32", "shape": [4294967296, 4294967296, 16], "data_offsets": [0, 8]})"),
            "F: tensor 'w': shape [4294967296, 4294967296, 16] has more elements than fit in 64 "
            "bits; the file is corrupt");
  EXPECT_EQ(one(R"({"dtype": "F32", "shape": [1,1,1,1,1,1,1,1,1], "data_offsets": [0, 4]})"),
            "F: tensor 'w': 'shape' must be an array of at most 8 integers; the file is corrupt");
  EXPECT_EQ(one(R"({"dtype": "F32", "shape": [2], "data_offsets": [0, -8]})"),
            "F: tensor 'w': 'data_offsets' must be two non-negative integers; the file is corrupt");
  EXPECT_EQ(one(R"({"dtype": "F32", "shape": [4], "data_offsets": [0, 16]})"),
            "F: tensor 'w': data_offsets [0, 16] are not an ordered range inside the 8 byte data "
            "region; the file is truncated or corrupt");
  EXPECT_EQ(one(R"({"dtype": "F32", "shape": [0], "data_offsets": [8, 4]})"),
            "F: tensor 'w': data_offsets [8, 4] are not an ordered range inside the 8 byte data "
            "region; the file is truncated or corrupt");
  EXPECT_EQ(one(R"({"dtype": "BF16", "shape": [2], "data_offsets": [0, 8]})"),
            "F: tensor 'w': data_offsets [0, 8] hold 8 bytes but BF16 [2] needs 4; the file is corrupt");
  EXPECT_EQ(one(R"({"dtype": "BF16", "shape": [4], "data_offsets": [0, 8]})"), "loaded");
}

// Found by fuzz/safetensors.cpp: an F32 tensor after an odd number of BF16 elements (valid:
// the format promises contiguous tensors, not aligned ones; qgpu's own writer makes such
// files) was read in place through a misaligned float* (undefined behaviour; UBSan stopped).
TEST(Safetensors, MisalignedTensorsReadTheirValues) {
  const float w[2] = {1.5f, -2.25f};
  std::string data(12, '\0');
  data[0] = '\x80', data[1] = '\x3f';  // BF16 1.0
  std::memcpy(data.data() + 2, w, 8);
  for (const std::string pad : {"", " "}) {  // the data after an odd or an even header length
    TempFile f(raw_file(R"({"h": {"dtype": "BF16", "shape": [1], "data_offsets": [0, 2]},)"
                        R"( "w": {"dtype": "F32", "shape": [2], "data_offsets": [2, 10]}})" + pad, data),
               ".safetensors");
    const SafetensorsFile s = load_safetensors(f.path.string());
    EXPECT_EQ(s.find("h")->at(0), 1.0f);
    EXPECT_EQ(s.find("w")->at(0), 1.5f);
    EXPECT_EQ(s.find("w")->at(1), -2.25f);
    float row[2];
    widen_row(*s.find("w"), 0, 2, row);
    EXPECT_EQ(row[1], -2.25f);
  }
}

TEST(Safetensors, OverlapsAndDuplicates) {
  std::string data(12, '\0');
  EXPECT_EQ(load_error(raw_file(R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                                    "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}})", data)),
            "F: tensors 'a' and 'b' overlap in the data region; the file is corrupt");
  EXPECT_EQ(load_error(raw_file(R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
                                    "a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}})", data)),
            "F: tensor 'a' appears twice in the header; the file is corrupt");
  // Unordered but disjoint, and empty tensors sharing an offset, are fine.
  EXPECT_EQ(load_error(raw_file(R"({"b": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]},
                                    "a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
                                    "e": {"dtype": "F32", "shape": [0], "data_offsets": [4, 4]},
                                    "f": {"dtype": "F32", "shape": [0], "data_offsets": [4, 4]}})", data)),
            "loaded");
}

// A directory written by hand: shard files and an index text.
struct Dir {
  fs::path path;
  Dir() {
    TempFile marker;
    path = marker.path.string() + ".d";
    fs::create_directories(path);
  }
  ~Dir() { fs::remove_all(path); }
  void shard(const std::string& name, const std::vector<TensorData>& ts) {
    write_safetensors((path / name).string(), views(ts));
  }
  void index(const std::string& text) { std::ofstream(path / "model.safetensors.index.json") << text; }
  std::string load_error() {
    try {
      load_safetensors_dir(path.string());
    } catch (const Error& e) {
      std::string m = e.what();
      for (size_t at; (at = m.find(path.string())) != std::string::npos;) m.replace(at, path.string().size(), "D");
      return m;
    }
    return "loaded";
  }
};

TEST(Safetensors, DirectoryErrors) {
  TensorData a = make_tensor("a", DType::f32, {1}, {1}), b = make_tensor("b", DType::f32, {1}, {2});
  Dir d;
  EXPECT_EQ(d.load_error(),
            "D: neither model.safetensors nor model.safetensors.index.json found; pass a HF "
            "checkpoint directory");
  d.index("{\"weight_map\": ");
  EXPECT_EQ(d.load_error().rfind("D/model.safetensors.index.json: not valid JSON (", 0), 0u);
  d.index(R"({"weight_map": {"a": "../x.safetensors"}})");
  EXPECT_EQ(d.load_error(),
            "D/model.safetensors.index.json: weight_map entry 'a' names '../x.safetensors', not a "
            "file beside the index; the index is corrupt");
  d.shard("s1.safetensors", {a});
  d.shard("s2.safetensors", {b, make_tensor("c", DType::f32, {1}, {3})});
  d.index(R"({"weight_map": {"a": "s1.safetensors", "b": "s2.safetensors"}})");
  EXPECT_EQ(d.load_error(),
            "D/model.safetensors.index.json: tensor 'c' in s2.safetensors is not listed for that "
            "file in the weight_map; the index is stale or corrupt");
  d.index(R"({"weight_map": {"a": "s1.safetensors", "b": "s2.safetensors", "c": "s2.safetensors", "z": "s1.safetensors"}})");
  EXPECT_EQ(d.load_error(),
            "D/model.safetensors.index.json: tensor 'z' is listed for s1.safetensors but not in it; "
            "the checkpoint is incomplete");
  d.shard("s2.safetensors", {a});
  d.index(R"({"weight_map": {"a": "s1.safetensors", "b": "s2.safetensors"}})");
  EXPECT_EQ(d.load_error(),
            "D/s2.safetensors: tensor 'a' is also in another shard; the checkpoint is corrupt");
  d.shard("s2.safetensors", {b});
  d.index(R"({"weight_map": {"a": "s1.safetensors", "b": "s3.safetensors"}})");
  EXPECT_EQ(d.load_error().rfind("cannot open 'D/s3.safetensors'", 0), 0u);
  d.index(R"({"weight_map": {"a": "s1.safetensors", "b": "s2.safetensors"}})");
  EXPECT_EQ(d.load_error(), "loaded");
}

// Every single-byte corruption and every truncation of a small valid file either loads or
// throws qgpu::Error; anything else (a crash, another exception type) fails the test.
TEST(Safetensors, ByteFlipAndTruncationSweep) {
  std::vector<TensorData> ts = {make_tensor("w", DType::bf16, {2, 2}, {1, 2, 3, 4}),
                                make_tensor("n", DType::f32, {3}, {1, 2, 3})};
  TempFile f("", ".safetensors");
  write_safetensors(f.path.string(), views(ts), {{"format", "pt"}});
  std::string good = test_util::read_file(f.path);
  int loaded = 0, rejected = 0;
  auto attempt = [&](const std::string& bytes) {
    std::string m = load_error(bytes);
    (m == "loaded" ? loaded : rejected)++;
  };
  for (size_t i = 0; i < good.size(); ++i)
    for (uint8_t x : {0x01, 0x20, 0xff}) {
      std::string bad = good;
      bad[i] = static_cast<char>(bad[i] ^ x);
      attempt(bad);
    }
  for (size_t n = 0; n < good.size(); ++n) attempt(good.substr(0, n));
  EXPECT_GT(loaded, 0);
  EXPECT_GT(rejected, static_cast<int>(good.size()));
}

}  // namespace
}  // namespace qgpu::engine
