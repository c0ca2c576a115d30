// safetensors read and write, single files and HF checkpoint directories.
//
// Reading maps the file, checks the 8-byte header length against a cap and the file size,
// parses the JSON header in file order (ordered_json, with a callback that records duplicate
// top-level names, which plain JSON parsing would silently merge), and turns each entry into
// a TensorView after checking dtype, shape (non-negative, product overflow-checked) and the
// offset pair (ordered, inside the data region, length = numel * dtype size). A final pass
// sorts the ranges and rejects overlaps. Every failure is one Error that starts with the file
// name and names the tensor. Writing lays tensors out contiguously (what HF's reader demands)
// after a header padded with spaces so the data starts 8-byte aligned. A directory is either
// model.safetensors or model.safetensors.index.json plus the shards its weight_map names.
#include "engine/safetensors.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "base/error.h"

namespace qgpu::engine {
namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

constexpr uint64_t kMaxHeaderBytes = 100'000'000;  // HF's own reader caps at 100 MB
constexpr size_t kMaxSafetensorsDims = 8;
constexpr const char* kSingleName = "model.safetensors";
constexpr const char* kIndexName = "model.safetensors.index.json";

std::optional<DType> st_dtype(const std::string& s) {
  if (s == "F32") return DType::f32;
  if (s == "BF16") return DType::bf16;
  if (s == "F16") return DType::f16;
  return std::nullopt;
}

const char* st_dtype_name(DType t) {
  switch (t) {
    case DType::f32: return "F32";
    case DType::bf16: return "BF16";
    case DType::f16: return "F16";
  }
  return "?";
}

uint64_t read_u64_le(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// The header length, checked against the cap and the file.
uint64_t header_length(const MappedFile& f) {
  if (f.size() < 8)
    fail("{}: not a safetensors file: {} bytes, shorter than the 8-byte header length; the file "
         "is truncated", f.path(), f.size());
  uint64_t n = read_u64_le(f.data());
  if (n > kMaxHeaderBytes)
    fail("{}: header length {} exceeds the {} byte limit; the file is corrupt or not safetensors",
         f.path(), n, kMaxHeaderBytes);
  if (n > f.size() - 8)
    fail("{}: header length {} runs past the end of the file ({} bytes); the file is truncated",
         f.path(), n, f.size());
  return n;
}

// Parses the header JSON in file order; duplicate top-level names are an Error.
ojson parse_header(const MappedFile& f, uint64_t n) {
  std::string_view text(reinterpret_cast<const char*>(f.data()) + 8, n);
  std::set<std::string> seen;
  std::string duplicate;
  auto on_event = [&](int depth, ojson::parse_event_t ev, ojson& parsed) {
    if (ev == ojson::parse_event_t::key && depth == 1 && !seen.insert(parsed.get<std::string>()).second &&
        duplicate.empty())
      duplicate = parsed.get<std::string>();
    return true;
  };
  ojson j;
  try {
    j = ojson::parse(text, on_event);
  } catch (const ojson::exception& e) {
    fail("{}: header is not valid JSON ({}); the file is corrupt", f.path(), e.what());
  }
  if (!j.is_object()) fail("{}: header is not a JSON object; the file is corrupt", f.path());
  if (!duplicate.empty())
    fail("{}: tensor '{}' appears twice in the header; the file is corrupt", f.path(), duplicate);
  return j;
}

int64_t checked_numel(const std::string& where, const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    if (__builtin_mul_overflow(n, d, &n))
      fail("{}: shape {} has more elements than fit in 64 bits; the file is corrupt", where,
           shape_string(shape));
  return n;
}

std::vector<int64_t> parse_shape(const std::string& where, const ojson& s) {
  if (!s.is_array() || s.size() > kMaxSafetensorsDims)
    fail("{}: 'shape' must be an array of at most {} integers; the file is corrupt", where, kMaxSafetensorsDims);
  std::vector<int64_t> shape;
  for (const ojson& d : s) {
    if (!d.is_number_integer())
      fail("{}: shape entry {} is not an integer; the file is corrupt", where, d.dump());
    if (d.is_number_unsigned() ? d.get<uint64_t>() > uint64_t(INT64_MAX) : d.get<int64_t>() < 0)
      fail("{}: shape entry {} is negative or too large; the file is corrupt", where, d.dump());
    shape.push_back(d.get<int64_t>());
  }
  return shape;
}

struct Range {
  uint64_t begin, end;
  std::string name;
};

// One header entry as a view into the data region [base, base + data_size).
TensorView parse_entry(const std::string& path, const std::string& name, const ojson& e,
                       const uint8_t* base, uint64_t data_size, Range& range) {
  std::string where = fmt::format("{}: tensor '{}'", path, name);
  if (!e.is_object() || !e.contains("dtype") || !e.contains("shape") || !e.contains("data_offsets"))
    fail("{}: entry must be an object with dtype, shape and data_offsets; the file is corrupt", where);
  if (!e["dtype"].is_string()) fail("{}: 'dtype' is not a string; the file is corrupt", where);
  std::optional<DType> t = st_dtype(e["dtype"].get<std::string>());
  if (!t)
    fail("{}: unsupported dtype '{}'; qgpu reads F32, BF16 and F16 only (convert the checkpoint)",
         where, e["dtype"].get<std::string>());
  std::vector<int64_t> shape = parse_shape(where, e["shape"]);
  const ojson& off = e["data_offsets"];
  if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() || !off[1].is_number_unsigned())
    fail("{}: 'data_offsets' must be two non-negative integers; the file is corrupt", where);
  uint64_t begin = off[0].get<uint64_t>(), end = off[1].get<uint64_t>();
  if (begin > end || end > data_size)
    fail("{}: data_offsets [{}, {}] are not an ordered range inside the {} byte data region; the "
         "file is truncated or corrupt", where, begin, end, data_size);
  uint64_t want = 0;
  if (__builtin_mul_overflow(uint64_t(checked_numel(where, shape)), dtype_size(*t), &want) ||
      want != end - begin)
    fail("{}: data_offsets [{}, {}] hold {} bytes but {} {} needs {}; the file is corrupt", where,
         begin, end, end - begin, st_dtype_name(*t), shape_string(shape), want);
  range = {begin, end, name};
  return {name, *t, std::move(shape), base + begin};
}

void check_no_overlap(const std::string& path, std::vector<Range> ranges) {
  std::sort(ranges.begin(), ranges.end(),
            [](const Range& a, const Range& b) { return std::tie(a.begin, a.end) < std::tie(b.begin, b.end); });
  for (size_t i = 1; i < ranges.size(); ++i)
    if (ranges[i].begin < ranges[i - 1].end)
      fail("{}: tensors '{}' and '{}' overlap in the data region; the file is corrupt", path,
           ranges[i - 1].name, ranges[i].name);
}

std::map<std::string, std::string> parse_metadata(const std::string& path, const ojson& m) {
  if (!m.is_object()) fail("{}: '__metadata__' is not an object; the file is corrupt", path);
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : m.items()) {
    if (!v.is_string())
      fail("{}: '__metadata__' value '{}' is not a string; the file is corrupt", path, k);
    out[k] = v.get<std::string>();
  }
  return out;
}

ojson header_json(const std::vector<TensorView>& tensors,
                  const std::map<std::string, std::string>& metadata) {
  ojson h = ojson::object();
  if (!metadata.empty()) h["__metadata__"] = metadata;
  uint64_t at = 0;
  for (const TensorView& t : tensors) {
    if (h.contains(t.name)) fail("write_safetensors: tensor '{}' given twice", t.name);
    h[t.name] = {{"dtype", st_dtype_name(t.dtype)}, {"shape", t.shape}, {"data_offsets", {at, at + t.nbytes()}}};
    at += t.nbytes();
  }
  return h;
}

std::string shard_name(size_t i, size_t n) {
  return fmt::format("model-{:05d}-of-{:05d}.safetensors", i + 1, n);
}

// Groups tensors greedily into shards of at most max_bytes (a larger tensor is alone).
std::vector<std::vector<TensorView>> split_shards(const std::vector<TensorView>& tensors, size_t max_bytes) {
  std::vector<std::vector<TensorView>> shards(1);
  size_t bytes = 0;
  for (const TensorView& t : tensors) {
    if (!shards.back().empty() && bytes + t.nbytes() > max_bytes) {
      shards.emplace_back();
      bytes = 0;
    }
    shards.back().push_back(t);
    bytes += t.nbytes();
  }
  return shards;
}

ojson read_index(const std::string& path) {
  MappedFile f(path);
  ojson j;
  try {
    j = ojson::parse(std::string_view(reinterpret_cast<const char*>(f.data()), f.size()));
  } catch (const ojson::exception& e) {
    fail("{}: not valid JSON ({}); the index is corrupt", path, e.what());
  }
  if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object())
    fail("{}: no 'weight_map' object; the index is corrupt", path);
  return j;
}

// The shard files an index names (each a plain file name), in order of first mention.
std::vector<std::string> index_shards(const std::string& path, const ojson& weight_map) {
  std::vector<std::string> files;
  for (const auto& [name, file] : weight_map.items()) {
    if (!file.is_string())
      fail("{}: weight_map entry '{}' is not a file name; the index is corrupt", path, name);
    std::string s = file.get<std::string>();
    if (s.empty() || s.find('/') != std::string::npos || s == "." || s == "..")
      fail("{}: weight_map entry '{}' names '{}', not a file beside the index; the index is corrupt",
           path, name, s);
    if (std::find(files.begin(), files.end(), s) == files.end()) files.push_back(s);
  }
  return files;
}

void add_shard_tensors(SafetensorsDir& d, const SafetensorsFile& shard) {
  for (const TensorView& t : shard.tensors)
    if (!d.by_name.emplace(t.name, &t).second)
      fail("{}: tensor '{}' is also in another shard; the checkpoint is corrupt", shard.file.path(), t.name);
}

// Checks that the weight_map and the shards agree, both ways.
void check_index(const std::string& path, const ojson& weight_map, const SafetensorsDir& d) {
  for (const auto& [name, file] : weight_map.items())
    if (!d.find(name))
      fail("{}: tensor '{}' is listed for {} but not in it; the checkpoint is incomplete", path,
           name, file.get<std::string>());
  for (const SafetensorsFile& shard : d.shards)
    for (const TensorView& t : shard.tensors) {
      std::string file = fs::path(shard.file.path()).filename().string();
      if (!weight_map.contains(t.name) || weight_map[t.name].get<std::string>() != file)
        fail("{}: tensor '{}' in {} is not listed for that file in the weight_map; the index is "
             "stale or corrupt", path, t.name, file);
    }
}

}  // namespace

const TensorView* SafetensorsFile::find(const std::string& name) const {
  for (const TensorView& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

SafetensorsFile load_safetensors(const std::string& path) {
  SafetensorsFile out{MappedFile(path), {}, {}};
  const MappedFile& f = out.file;
  uint64_t n = header_length(f);
  ojson header = parse_header(f, n);
  const uint8_t* base = f.data() + 8 + n;
  uint64_t data_size = f.size() - 8 - n;
  std::vector<Range> ranges;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") {
      out.metadata = parse_metadata(path, entry);
      continue;
    }
    ranges.emplace_back();
    out.tensors.push_back(parse_entry(path, name, entry, base, data_size, ranges.back()));
  }
  check_no_overlap(path, std::move(ranges));
  return out;
}

void write_safetensors(const std::string& path, const std::vector<TensorView>& tensors,
                       const std::map<std::string, std::string>& metadata) {
  std::string header = header_json(tensors, metadata).dump();
  header.append((8 - header.size() % 8) % 8, ' ');  // data starts 8-byte aligned
  write_file_atomic(path, [&](std::ostream& out) {
    uint64_t n = header.size();
    for (int i = 0; i < 8; ++i) out.put(static_cast<char>((n >> (8 * i)) & 0xff));
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    for (const TensorView& t : tensors) {
      if (t.data || !t.produce) {  // an empty tensor may have no data at all
        CHECK(t.data || t.nbytes() == 0);
        if (t.nbytes() > 0) out.write(static_cast<const char*>(t.data), static_cast<std::streamsize>(t.nbytes()));
        continue;
      }
      const std::streampos start = out.tellp();
      t.produce(out);
      if (!out) fail("cannot write '{}' (tensor {}): write failed (disk full?)", path, t.name);
      CHECK(out.tellp() - start == static_cast<std::streamoff>(t.nbytes()));
    }
  });
}

const TensorView* SafetensorsDir::find(const std::string& name) const {
  auto it = by_name.find(name);
  return it == by_name.end() ? nullptr : it->second;
}

SafetensorsDir load_safetensors_dir(const std::string& dir) {
  SafetensorsDir d;
  fs::path single = fs::path(dir) / kSingleName, index = fs::path(dir) / kIndexName;
  if (fs::exists(single)) {
    d.shards.push_back(load_safetensors(single.string()));
    add_shard_tensors(d, d.shards.back());
    return d;
  }
  if (!fs::exists(index))
    fail("{}: neither {} nor {} found; pass a HF checkpoint directory", dir, kSingleName, kIndexName);
  ojson j = read_index(index.string());
  for (const std::string& file : index_shards(index.string(), j["weight_map"]))
    d.shards.push_back(load_safetensors((fs::path(dir) / file).string()));
  for (const SafetensorsFile& shard : d.shards) add_shard_tensors(d, shard);
  check_index(index.string(), j["weight_map"], d);
  return d;
}

void write_safetensors_dir(const std::string& dir, const std::vector<TensorView>& tensors,
                           size_t max_shard_bytes) {
  fs::create_directories(dir);
  std::vector<std::vector<TensorView>> shards = split_shards(tensors, max_shard_bytes);
  if (shards.size() == 1) {
    write_safetensors((fs::path(dir) / kSingleName).string(), shards[0], {{"format", "pt"}});
    fs::remove(fs::path(dir) / kIndexName);  // a stale index would describe other shards
    return;
  }
  ojson weight_map = ojson::object();
  uint64_t total = 0;
  for (size_t i = 0; i < shards.size(); ++i) {
    write_safetensors((fs::path(dir) / shard_name(i, shards.size())).string(), shards[i], {{"format", "pt"}});
    for (const TensorView& t : shards[i]) {
      weight_map[t.name] = shard_name(i, shards.size());
      total += t.nbytes();
    }
  }
  std::string text = ojson{{"metadata", {{"total_size", total}}}, {"weight_map", weight_map}}.dump(2);
  write_file_atomic((fs::path(dir) / kIndexName).string(), [&](std::ostream& out) { out << text << '\n'; });
  fs::remove(fs::path(dir) / kSingleName);  // the loader would prefer a stale single file
}

}  // namespace qgpu::engine
