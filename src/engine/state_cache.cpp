// The prompt-state cache: a state's bytes (header, key, payload; the format is in the
// header file), read back with every length checked against the file before it is used,
// and a directory of such files kept within a budget.
//
// Approach: the writer hashes the payload from the state in memory first (the header comes
// before it), then streams header, key and payload into write_file_atomic. The reader maps
// the file, checks magic, version, sizes, the key (byte for byte) and the payload hash, then
// parses the payload against the config's shapes: only then is anything copied into a
// State. The hash is for damage, not for an adversary: four lanes of an FNV-1a step on whole
// 64-bit words, each followed by a rotation, so any one changed word changes it.
#include "engine/state_cache.h"

#include <fmt/ranges.h>
#include <sys/stat.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "base/cache_dir.h"
#include "base/error.h"
#include "base/mapped_file.h"
#include "base/output_dir.h"
#include "base/text_file.h"

namespace qgpu::engine {
namespace {

namespace fs = std::filesystem;

constexpr char kStateMagic[8] = {'q', 'g', 'p', 'u', 'P', 'S', 'T', '\n'};
constexpr uint32_t kStateVersion = 1;
constexpr size_t kStateHeaderBytes = 40;  // magic, version, 0, key bytes, payload bytes, hash
constexpr uint64_t kFnvOffset = 0xcbf29ce484222325ull, kFnvPrime = 0x100000001b3ull;
constexpr std::string_view kStateSuffix = ".state";

uint64_t padded8(uint64_t n) { return (n + 7) / 8 * 8; }

// The payload hash, fed whole 64-bit words (a part's last bytes padded with zeros, as the
// file pads them).
class WordHash {
 public:
  void add(const void* p, size_t bytes) {
    const auto* b = static_cast<const uint8_t*>(p);
    for (size_t at = 0; at < bytes; at += 8) {
      uint64_t w = 0;
      std::memcpy(&w, b + at, std::min<size_t>(8, bytes - at));
      uint64_t& h = lane_[words_++ & 3];
      h = std::rotl((h ^ w) * kFnvPrime, 29);
    }
  }
  void add_u64(uint64_t v) { add(&v, 8); }
  uint64_t digest() const {
    uint64_t h = kFnvOffset ^ words_;
    for (uint64_t l : lane_) h = std::rotl((h ^ l) * kFnvPrime, 29);
    return h;
  }

 private:
  uint64_t lane_[4] = {kFnvOffset, kFnvOffset ^ 1, kFnvOffset ^ 2, kFnvOffset ^ 3};
  uint64_t words_ = 0;
};

// Calls f(data, element bytes, count) for the five stored arrays of a layer, in file order.
template <typename F>
void for_each_array(const LayerState& l, F&& f) {
  f(l.conv.data(), sizeof(float), l.conv.size());
  f(l.recurrent.data(), sizeof(float), l.recurrent.size());
  f(l.recurrent_plain.data(), sizeof(uint8_t), l.recurrent_plain.size());
  f(l.keys.data(), sizeof(float), l.keys.size());
  f(l.values.data(), sizeof(float), l.values.size());
}

struct PayloadSummary {
  uint64_t bytes = 0, hash = 0;
};

PayloadSummary summarize_payload(const State& s) {
  WordHash h;
  uint64_t bytes = 16;
  h.add_u64(static_cast<uint64_t>(s.n_past));
  h.add_u64(s.layers.size());
  for (const LayerState& l : s.layers)
    for_each_array(l, [&](const void* p, size_t size, size_t n) {
      h.add_u64(n);
      h.add(p, size * n);
      bytes += 8 + padded8(size * n);
    });
  return {bytes, h.digest()};
}

void put_u64(std::ostream& out, uint64_t v) { out.write(reinterpret_cast<const char*>(&v), 8); }

void put_padded(std::ostream& out, const void* p, size_t bytes) {
  static constexpr char kZeros[8] = {};
  out.write(static_cast<const char*>(p), static_cast<std::streamsize>(bytes));
  out.write(kZeros, static_cast<std::streamsize>(padded8(bytes) - bytes));
}

// Reads the payload's parts in order; every read is checked against what is left.
struct PayloadReader {
  std::span<const uint8_t> rest;
  uint64_t u64() {
    if (rest.size() < 8) fail("the payload ends early");
    uint64_t v;
    std::memcpy(&v, rest.data(), 8);
    rest = rest.subspan(8);
    return v;
  }
  template <typename T>
  void array(std::vector<T>& out) {
    const uint64_t n = u64();
    if (n > rest.size() / sizeof(T)) fail("the payload ends inside an array of {} elements", n);
    const size_t bytes = n * sizeof(T);
    if (padded8(bytes) > rest.size()) fail("the payload ends inside an array's padding");
    out.resize(n);
    if (n > 0) std::memcpy(out.data(), rest.data(), bytes);
    rest = rest.subspan(padded8(bytes));
  }
};

// Whether layer il of a read state has the shapes a model with config c gives it.
void check_layer_shape(const Config& c, const LayerState& l, int il, int64_t n_past) {
  const auto want = [&](const char* what, size_t got, size_t expected) {
    if (got != expected) fail("layer {}'s {} holds {} values where the model has {}", il, what, got, expected);
  };
  if (c.is_linear(il)) {
    want("conv window", l.conv.size(), static_cast<size_t>(c.linear_conv_kernel_dim - 1) * c.conv_dim());
    want("recurrent state", l.recurrent.size(),
         static_cast<size_t>(c.linear_num_value_heads) * c.linear_key_head_dim * c.linear_value_head_dim);
    if (!l.recurrent_plain.empty()) want("plain flags", l.recurrent_plain.size(), c.linear_num_value_heads);
    want("keys", l.keys.size(), 0);
    want("values", l.values.size(), 0);
    return;
  }
  want("conv window", l.conv.size(), 0);
  want("recurrent state", l.recurrent.size(), 0);
  want("plain flags", l.recurrent_plain.size(), 0);
  const size_t row = static_cast<size_t>(c.num_key_value_heads) * c.head_dim;
  want("values", l.values.size(), l.keys.size());
  if (l.keys.size() % row != 0 || l.keys.size() / row > static_cast<size_t>(n_past))
    fail("layer {}'s keys hold {} values: not whole positions up to {}", il, l.keys.size(), n_past);
}

State parse_payload(const Config& c, std::span<const uint8_t> payload) {
  PayloadReader r{payload};
  State s;
  s.n_past = static_cast<int64_t>(r.u64());
  const uint64_t layers = r.u64();
  if (s.n_past <= 0 || layers != static_cast<uint64_t>(c.num_hidden_layers))
    fail("{} positions in {} layers where the model has {} layers", s.n_past, layers, c.num_hidden_layers);
  s.layers.resize(layers);
  for (int il = 0; il < c.num_hidden_layers; ++il) {
    LayerState& l = s.layers[il];
    r.array(l.conv), r.array(l.recurrent), r.array(l.recurrent_plain), r.array(l.keys), r.array(l.values);
    check_layer_shape(c, l, il, s.n_past);
  }
  if (!r.rest.empty()) fail("{} bytes follow the payload", r.rest.size());
  return s;
}

uint64_t get_u64(std::span<const uint8_t> b, size_t at) {
  uint64_t v;
  std::memcpy(&v, b.data() + at, 8);
  return v;
}

// The key's bytes in a file, after its header is checked against the file's size.
std::string_view checked_key(std::span<const uint8_t> bytes) {
  if (bytes.size() < kStateHeaderBytes) fail("truncated: {} bytes, shorter than the header", bytes.size());
  if (std::memcmp(bytes.data(), kStateMagic, sizeof kStateMagic) != 0) fail("not a qgpu prompt state (no magic)");
  uint32_t version;
  std::memcpy(&version, bytes.data() + 8, 4);
  if (version != kStateVersion) fail("format version {}, this qgpu reads {}", version, kStateVersion);
  const uint64_t key_bytes = get_u64(bytes, 16), payload_bytes = get_u64(bytes, 24);
  const uint64_t room = bytes.size() - kStateHeaderBytes;
  if (key_bytes > room || payload_bytes > room)
    fail("truncated or damaged: its header describes more than its {} bytes", bytes.size());
  if (padded8(key_bytes) + payload_bytes != room)
    fail("truncated or damaged: {} bytes where its header describes {}", bytes.size(),
         kStateHeaderBytes + padded8(key_bytes) + payload_bytes);
  return {reinterpret_cast<const char*>(bytes.data()) + kStateHeaderBytes, key_bytes};
}

// ---- the key ----

std::string file_identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) fail("cannot read '{}' for the prompt cache's key: {}", path, std::strerror(errno));
  return fmt::format("{} bytes, mtime {}", st.st_size, int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec);
}

const char* rounding_name(Rounding r) { return r == Rounding::transformers ? "transformers" : "llama_cpp"; }

const char* matmul_name(const RuntimeOptions& o) {
  if (o.matmul == MatmulPath::reference) return "reference";
  switch (matmul_kernel()) {
    case MatmulKernel::avx512: return "fast avx512";
    case MatmulKernel::avx2: return "fast avx2";
    case MatmulKernel::reference: break;
  }
  return "fast reference";
}


// ---- the directory ----

bool is_state_name(const std::string& name) {
  return name.size() == 16 + kStateSuffix.size() && name.ends_with(kStateSuffix) &&
         name.find_first_not_of("0123456789abcdef") == 16;
}

int64_t mtime_ns(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return 0;
  return int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec;
}

// The prefix length and the first weight file's directory, from a file's key.
void describe_entry(PromptStateEntry& e) {
  std::ifstream in(e.path, std::ios::binary);
  std::vector<uint8_t> head(kStateHeaderBytes);
  if (!in.read(reinterpret_cast<char*>(head.data()), kStateHeaderBytes)) return;
  if (std::memcmp(head.data(), kStateMagic, sizeof kStateMagic) != 0) return;
  const uint64_t key_bytes = get_u64(head, 16);
  if (key_bytes > e.bytes) return;
  std::string key(key_bytes, '\0');
  if (!in.read(key.data(), static_cast<std::streamsize>(key_bytes))) return;
  for (const std::string& line : split(key, '\n')) {
    if (line.starts_with("prefix: ")) e.tokens = std::atoll(line.c_str() + 8);
    if (line.starts_with("file: ") && e.model.empty())
      e.model = fs::path(line.substr(6, line.find(' ', 6) - 6)).parent_path().string();
  }
}

}  // namespace

std::string checkpoint_identity(const Model& m) {
  std::string out;
  std::vector<std::string> dirs;
  for (const SafetensorsDir& d : m.safetensors)
    for (const SafetensorsFile& f : d.shards) {
      out += fmt::format("file: {} {}\n", f.file.path(), file_identity(f.file.path()));
      const std::string dir = fs::path(f.file.path()).parent_path().string();
      if (std::find(dirs.begin(), dirs.end(), dir) == dirs.end()) dirs.push_back(dir);
    }
  for (const GgufFile& g : m.gguf) out += fmt::format("file: {} {}\n", g.file.path(), file_identity(g.file.path()));
  if (out.empty()) return out;
  for (const std::string& dir : dirs) {
    const std::string config = (fs::path(dir) / "config.json").string();
    const std::string text = fs::exists(config) ? read_text_file(config, kMaxJsonBytes, "config.json") : "(none)";
    out += fmt::format("config.json: {} {}\n", config, nlohmann::json(text).dump());
  }
  return out;
}

std::optional<PromptStateDir> default_prompt_state_dir() {
  std::optional<std::string> base = user_cache_dir();
  if (!base) return std::nullopt;
  PromptStateDir d{.path = *base + "/prompt-states"};
  d.max_bytes = megabytes_from_env("QGPU_PROMPT_CACHE_MAX_MB", "the prompt cache's budget", d.max_bytes >> 20);
  return d;
}

std::optional<std::string> prompt_state_key(const Model& m, const RuntimeOptions& o, std::span<const int32_t> prefix) {
  const std::string files = checkpoint_identity(m);
  if (files.empty()) return std::nullopt;
  std::string key = fmt::format("qgpu prompt state\nprefix: {} tokens\n", prefix.size());
  key += fmt::format("binary: {}\n", file_identity("/proc/self/exe"));
  key += fmt::format("dtype: {}\nrounding: {}\nmatmul: {}\n", dtype_name(m.dtype), rounding_name(o.rounding),
                     matmul_name(o));
  key += fmt::format("skip_zero_rows: {}\ngpu_sequence: {}\n", o.skip_zero_rows ? 1 : 0, o.gpu_sequence ? 1 : 0);
  key += files;
  key += fmt::format("tokens: {}\n", fmt::join(prefix, ","));
  return key;
}

std::string prompt_state_file_name(const std::string& key) {
  return fmt::format("{:016x}{}", fnv1a(key), kStateSuffix);
}

void write_state(std::ostream& out, const State& s, const std::string& key) {
  const PayloadSummary p = summarize_payload(s);
  out.write(kStateMagic, sizeof kStateMagic);
  const uint32_t version[2] = {kStateVersion, 0};
  out.write(reinterpret_cast<const char*>(version), sizeof version);
  put_u64(out, key.size());
  put_u64(out, p.bytes);
  put_u64(out, p.hash);
  put_padded(out, key.data(), key.size());
  put_u64(out, static_cast<uint64_t>(s.n_past));
  put_u64(out, s.layers.size());
  for (const LayerState& l : s.layers)
    for_each_array(l, [&](const void* data, size_t size, size_t n) {
      put_u64(out, n);
      put_padded(out, data, size * n);
    });
}

State read_state(const Config& c, std::span<const uint8_t> bytes, const std::string& key) {
  const std::string_view stored = checked_key(bytes);
  if (stored != key) fail("it holds the state of another key (a hash collision, or a damaged key)");
  const std::span<const uint8_t> payload = bytes.subspan(kStateHeaderBytes + padded8(stored.size()));
  WordHash h;
  h.add(payload.data(), payload.size());
  if (h.digest() != get_u64(bytes, 32)) fail("the payload's checksum does not match (damaged)");
  return parse_payload(c, payload);
}

PromptStateLoad load_prompt_state(const PromptStateDir& d, const Config& c, const std::string& key) {
  const std::string path = (fs::path(d.path) / prompt_state_file_name(key)).string();
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return {};
  try {
    MappedFile f(path);
    State s = read_state(c, {f.data(), f.size()}, key);
    fs::last_write_time(path, fs::file_time_type::clock::now(), ec);  // used: evicted last
    return {.state = std::move(s)};
  } catch (const Error& e) {
    fs::remove(path, ec);
    return {.problem = fmt::format("prompt cache: {} was not used: {}; removed, the prompt is read again", path,
                                   e.what())};
  }
}

bool save_prompt_state(const PromptStateDir& d, const State& s, const std::string& key) {
  const std::string name = prompt_state_file_name(key);
  const uint64_t bytes = kStateHeaderBytes + padded8(key.size()) + summarize_payload(s).bytes;
  if (bytes > d.max_bytes) return false;
  std::error_code ec;
  fs::create_directories(d.path, ec);
  if (ec) fail("cannot create the prompt cache '{}': {}", d.path, ec.message());
  const std::string path = (fs::path(d.path) / name).string();
  write_file_atomic(path, [&](std::ostream& out) { write_state(out, s, key); });
  uint64_t total = 0;
  std::vector<PromptStateEntry> entries = list_prompt_states(d.path);
  for (const PromptStateEntry& e : entries) total += e.bytes;
  for (const PromptStateEntry& e : entries) {  // least recently used first
    if (total <= d.max_bytes) break;
    if (e.path == path) continue;
    if (fs::remove(e.path, ec)) total -= e.bytes;
  }
  return true;
}

std::vector<PromptStateEntry> list_prompt_states(const std::string& dir) {
  std::vector<PromptStateEntry> out;
  std::error_code ec;
  for (const fs::directory_entry& f : fs::directory_iterator(dir, ec)) {
    if (!is_state_name(f.path().filename().string()) || !f.is_regular_file(ec)) continue;
    PromptStateEntry e{.path = f.path().string(), .bytes = f.file_size(ec), .mtime_ns = mtime_ns(f.path().string())};
    describe_entry(e);
    out.push_back(std::move(e));
  }
  std::sort(out.begin(), out.end(), [](const PromptStateEntry& a, const PromptStateEntry& b) {
    return a.mtime_ns != b.mtime_ns ? a.mtime_ns < b.mtime_ns : a.path < b.path;
  });
  return out;
}

Cleared clear_prompt_states(const std::string& dir) {
  std::vector<std::pair<fs::path, uint64_t>> doomed;
  std::error_code ec;
  for (const fs::directory_entry& f : fs::directory_iterator(dir, ec)) {
    const std::string name = f.path().filename().string();
    const size_t at = name.find(".tmp.");  // what a killed write left, once its process is gone
    const std::string pid = at == std::string::npos ? "" : name.substr(at + 5);
    const bool stale = at != std::string::npos && is_state_name(name.substr(0, at)) && !pid.empty() &&
                       pid.size() < 10 && pid.find_first_not_of("0123456789") == std::string::npos &&
                       !process_alive(std::stol(pid));
    if ((is_state_name(name) || stale) && f.is_regular_file(ec)) doomed.emplace_back(f.path(), f.file_size(ec));
  }
  Cleared c;
  for (const auto& [path, bytes] : doomed)
    if (fs::remove(path, ec)) ++c.files, c.bytes += bytes;
  return c;
}

}  // namespace qgpu::engine
