#include "merge/hub.h"

#include <curl/curl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/cache_dir.h"
#include "base/error.h"

namespace qgpu::merge {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// SHA-256 (FIPS 180-4), streamed.
class Sha256 {
 public:
  void update(const uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      block_[fill_++] = p[i];
      if (fill_ == 64) compress(), fill_ = 0;
    }
    bits_ += uint64_t{n} * 8;
  }
  std::string hex() {
    const uint64_t bits = bits_;
    const uint8_t pad = 0x80, zero = 0;
    update(&pad, 1);
    while (fill_ != 56) update(&zero, 1);
    for (int i = 7; i >= 0; --i) {
      const uint8_t b = static_cast<uint8_t>(bits >> (8 * i));
      update(&b, 1);
    }
    std::string out;
    for (uint32_t w : h_) out += fmt::format("{:08x}", w);
    return out;
  }

 private:
  static uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }
  void compress() {
    static constexpr uint32_t k[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
        0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
        0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
        0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
        0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
        0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
        0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2};
    uint32_t w[64];
    for (int i = 0; i < 16; ++i)
      w[i] = uint32_t{block_[4 * i]} << 24 | uint32_t{block_[4 * i + 1]} << 16 | uint32_t{block_[4 * i + 2]} << 8 |
             block_[4 * i + 3];
    for (int i = 16; i < 64; ++i) {
      const uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      const uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h_[0], b = h_[1], c = h_[2], d = h_[3], e = h_[4], f = h_[5], g = h_[6], h = h_[7];
    for (int i = 0; i < 64; ++i) {
      const uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + k[i] + w[i];
      const uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      h = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    const uint32_t add[8] = {a, b, c, d, e, f, g, h};
    for (int i = 0; i < 8; ++i) h_[i] += add[i];
  }
  std::array<uint32_t, 8> h_ = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::array<uint8_t, 64> block_{};
  size_t fill_ = 0;
  uint64_t bits_ = 0;
};

// The files a checkpoint needs; the hub repo may hold others (images, other formats).
bool wanted(const std::string& f) {
  if (f.find('/') != std::string::npos) return false;  // subfolders: other formats, onnx, ...
  if (f.ends_with(".safetensors")) return true;
  for (const char* n : {"config.json", "model.safetensors.index.json", "tokenizer.json", "tokenizer_config.json",
                        "generation_config.json", "chat_template.jinja", "special_tokens_map.json", "vocab.json",
                        "merges.txt", "LICENSE", "preprocessor_config.json"})
    if (f == n) return true;
  return false;
}

struct Curl {
  CURL* h = curl_easy_init();
  curl_slist* headers = nullptr;
  ~Curl() {
    curl_slist_free_all(headers);
    curl_easy_cleanup(h);
  }
};

struct Sink {
  std::string* text = nullptr;  // a small body in memory, or
  FILE* file = nullptr;         // a file's bytes appended
  int64_t written = 0, before = 0;
  int64_t limit = -1;           // the file's listed size: a body past it is refused
  const HubOptions* o = nullptr;
  int64_t* all_done = nullptr;
  int64_t all_total = 0;
  CURL* curl = nullptr;
  bool too_long = false;        // the body went past limit
  int write_errno = 0;          // writing the file failed (a full disk)
};

// The server ignored the Range and sends the whole file: start the file again.
void restart(Sink& s) {
  std::fflush(s.file);
  if (::ftruncate(::fileno(s.file), 0) != 0) s.write_errno = errno;
  if (s.all_done) *s.all_done -= s.before;
  s.before = 0;
}

size_t on_data(char* p, size_t size, size_t n, void* user) {
  Sink& s = *static_cast<Sink*>(user);
  const size_t bytes = size * n;
  if (s.text) {
    if (s.text->size() + bytes > (size_t{64} << 20)) return 0;  // not a metadata reply
    s.text->append(p, bytes);
  } else {
    long status = 0;
    curl_easy_getinfo(s.curl, CURLINFO_RESPONSE_CODE, &status);
    if (s.written == 0 && s.before > 0 && status == 200) restart(s);
    if (s.limit >= 0 && s.before + s.written + static_cast<int64_t>(bytes) > s.limit) {
      s.too_long = true;
      return 0;
    }
    errno = 0;
    if (s.write_errno || std::fwrite(p, 1, bytes, s.file) != bytes) {
      if (!s.write_errno) s.write_errno = errno ? errno : EIO;
      return 0;
    }
  }
  s.written += static_cast<int64_t>(bytes);
  if (s.all_done) {
    *s.all_done += static_cast<int64_t>(bytes);
    if (s.o->progress) s.o->progress(*s.all_done, s.all_total);
  }
  return bytes;
}

// How one request ended: the HTTP status (0 when none came) and libcurl's code and message.
struct Reply {
  long status = 0;
  CURLcode rc = CURLE_OK;
  std::string error;
};

// GET url into sink (with a Range from `from` when > 0). An HTTP error's body is not
// delivered (it is not the file's bytes).
Reply get(const std::string& url, const HubOptions& o, Sink& sink, int64_t from) {
  Curl c;
  if (!c.h) fail("libcurl: cannot start a transfer");
  char message[CURL_ERROR_SIZE] = {};
  curl_easy_setopt(c.h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c.h, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(c.h, CURLOPT_MAXREDIRS, 10L);
  curl_easy_setopt(c.h, CURLOPT_FAILONERROR, 1L);
  curl_easy_setopt(c.h, CURLOPT_ERRORBUFFER, message);
  curl_easy_setopt(c.h, CURLOPT_CONNECTTIMEOUT, 30L);
  // A stall (headers then nothing, or no answer at all) ends the attempt.
  curl_easy_setopt(c.h, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(c.h, CURLOPT_LOW_SPEED_TIME, static_cast<long>(o.stall_timeout.count()));
  curl_easy_setopt(c.h, CURLOPT_USERAGENT, "qgpu/0.1");
  curl_easy_setopt(c.h, CURLOPT_WRITEFUNCTION, on_data);
  curl_easy_setopt(c.h, CURLOPT_WRITEDATA, &sink);
  // The token goes to the hub only, not to the CDN a download is redirected to.
  curl_easy_setopt(c.h, CURLOPT_UNRESTRICTED_AUTH, 0L);
  if (!o.token.empty()) c.headers = curl_slist_append(c.headers, ("Authorization: Bearer " + o.token).c_str());
  if (c.headers) curl_easy_setopt(c.h, CURLOPT_HTTPHEADER, c.headers);
  if (from > 0) curl_easy_setopt(c.h, CURLOPT_RANGE, fmt::format("{}-", from).c_str());
  sink.curl = c.h;
  Reply r;
  r.rc = curl_easy_perform(c.h);
  curl_easy_getinfo(c.h, CURLINFO_RESPONSE_CODE, &r.status);
  if (r.rc != CURLE_OK) r.error = *message ? message : curl_easy_strerror(r.rc);
  return r;
}

// Whether another attempt may succeed: the network, a stall, the server's own trouble
// (5xx), a timeout or a rate limit (408, 429); not a refusal (401, 403, 404, ...).
bool retryable(const Reply& r) {
  if (r.rc != CURLE_HTTP_RETURNED_ERROR) return true;
  return r.status >= 500 || r.status == 408 || r.status == 429;
}

// What went wrong, in a few words.
std::string what_failed(const Reply& r, const HubOptions& o) {
  if (r.rc == CURLE_HTTP_RETURNED_ERROR) return fmt::format("HTTP {}", r.status);
  if (r.rc == CURLE_OPERATION_TIMEDOUT)
    return fmt::format("the server stalled (no byte for {} s)", o.stall_timeout.count());
  return r.error;
}

// The wait before attempt `next` (2, 3, ...): retry_wait, doubled each time, at most a minute.
std::chrono::milliseconds retry_delay(const HubOptions& o, int next) {
  std::chrono::milliseconds wait = o.retry_wait;
  for (int i = 2; i < next && wait < std::chrono::minutes(1); ++i) wait *= 2;
  return std::min<std::chrono::milliseconds>(wait, std::chrono::minutes(1));
}

// Says why attempt `next` comes (and when), then waits for it.
void back_off(const HubOptions& o, int next, const std::string& what, const std::string& why, int64_t from) {
  const std::chrono::milliseconds wait = retry_delay(o, next);
  if (o.say)
    o.say(fmt::format("{}: {}; attempt {} of {} in {}{}", what, why, next, o.attempts,
                      wait < std::chrono::seconds(1) ? fmt::format("{} ms", wait.count())
                                                     : fmt::format("{} s", wait.count() / 1000),
                      from > 0 ? fmt::format(", resuming from byte {}", from) : ""));
  std::this_thread::sleep_for(wait);
}

std::string status_advice(long status) {
  if (status == 401 || status == 403)
    return "the repo is gated or private: accept its licence on the hub and set HF_TOKEN to an access token";
  if (status == 404) return "no such repo, revision or file: check the id (owner/name) and HF_ENDPOINT";
  return "try again later, or set HF_ENDPOINT to a mirror";
}

}  // namespace

bool is_hub_id(const std::string& base) {
  if (base.empty() || fs::exists(base) || base.starts_with(".") || base.starts_with("/") || base.starts_with("~"))
    return false;
  const size_t slash = base.find('/');
  return slash != std::string::npos && slash > 0 && slash + 1 < base.size() &&
         base.find('/', slash + 1) == std::string::npos;
}

std::string sha256_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("{}: cannot read", path);
  Sha256 h;
  std::vector<char> buf(size_t{1} << 20);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    h.update(reinterpret_cast<const uint8_t*>(buf.data()), static_cast<size_t>(in.gcount()));
  }
  return h.hex();
}

namespace {

// A sibling's string field, or "" when absent; another JSON type is an error.
std::string string_field(const json& s, const char* key, const std::string& api) {
  if (!s.contains(key) || s[key].is_null()) return "";
  if (!s[key].is_string()) fail("{}: \"{}\" is {}, not a string: not the hub's model info", api, key, s[key].dump());
  return s[key].get<std::string>();
}

// A size field, or -1 when absent (another type, or a negative or absurd size: an error).
int64_t size_field(const json& s, const char* key, const std::string& api) {
  if (!s.contains(key) || s[key].is_null()) return -1;
  if (!s[key].is_number_integer() || s[key].get<int64_t>() < 0 || s[key].get<int64_t>() > kMaxHubFileBytes)
    fail("{}: size {} of a file is not a byte count up to {} TB: not the hub's model info", api, s[key].dump(),
         kMaxHubFileBytes / 1'000'000'000'000);
  return s[key].get<int64_t>();
}

}  // namespace

HubListing parse_listing(std::string_view body, const std::string& api) {
  const json info = json::parse(body, nullptr, false);
  if (info.is_discarded() || !info.is_object() || !info.contains("siblings") || !info["siblings"].is_array())
    fail("{}: not the hub's model info (no \"siblings\" list); is HF_ENDPOINT a Hugging Face hub?", api);
  // The commit names a cache directory: a hash (letters, digits, '-', '_'), never a path.
  HubListing l{string_field(info, "sha", api)};
  if (l.commit.empty() || l.commit.size() > 128 ||
      !std::all_of(l.commit.begin(), l.commit.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'; }))
    fail("{}: the commit \"{}\" is not a hash: not the hub's model info", api, l.commit);
  for (const json& s : info["siblings"]) {
    if (!s.is_object()) fail("{}: a sibling is {}, not an object: not the hub's model info", api, s.dump());
    HubFile f{string_field(s, "rfilename", api)};
    if (!wanted(f.name)) continue;
    if (f.name.find("..") != std::string::npos) fail("{}: refusing the file name '{}'", api, f.name);
    f.size = size_field(s, "size", api);
    if (s.contains("lfs") && s["lfs"].is_object()) {
      f.sha256 = string_field(s["lfs"], "sha256", api);
      if (const int64_t lfs = size_field(s["lfs"], "size", api); lfs >= 0) f.size = lfs;
    }
    if (l.files.size() == kMaxHubFiles) fail("{}: more than {} checkpoint files: not a Qwen3.5 checkpoint", api, kMaxHubFiles);
    l.total += std::max<int64_t>(0, f.size);
    l.files.push_back(std::move(f));
  }
  if (std::none_of(l.files.begin(), l.files.end(), [](const HubFile& f) { return f.name == "config.json"; }))
    fail("{}: the repo has no config.json: not a Hugging Face model checkpoint", api);
  return l;
}

namespace {

// The API's reply, with the attempts a file gets.
std::string get_api(const std::string& api, const HubOptions& o) {
  for (int attempt = 1;; ++attempt) {
    std::string body;
    Sink meta{.text = &body};
    const Reply r = get(api, o, meta, 0);
    if (r.rc == CURLE_OK) return body;
    if (r.rc == CURLE_WRITE_ERROR) fail("{}: a reply of over 64 MB: not the hub's model info; is HF_ENDPOINT a Hugging Face hub?", api);
    if (!retryable(r)) fail("{}: HTTP {}: {}", api, r.status, status_advice(r.status));
    if (attempt >= o.attempts)
      fail("{}: {} ({} attempts); {}", api, what_failed(r, o), attempt,
           r.status ? status_advice(r.status) : "no network? set HF_ENDPOINT to a reachable mirror");
    back_off(o, attempt + 1, api, what_failed(r, o), 0);
  }
}

HubListing list_files(const std::string& repo, const HubOptions& o) {
  const std::string api = fmt::format("{}/api/models/{}/revision/{}?blobs=true", o.endpoint, repo, o.revision);
  return parse_listing(get_api(api, o), api);
}

int64_t size_of(const fs::path& p) {
  std::error_code ec;
  const uintmax_t n = fs::file_size(p, ec);
  return ec ? 0 : static_cast<int64_t>(n);
}

std::string human(int64_t bytes) {
  if (bytes < 10'000'000) return fmt::format("{:.1f} KB", bytes / 1e3);
  if (bytes < 10'000'000'000) return fmt::format("{:.1f} MB", bytes / 1e6);
  return fmt::format("{:.2f} GB", bytes / 1e9);
}

// A file in the cache already downloaded and checked (a partial one is FILE.part).
bool in_cache(const fs::path& path, const HubFile& f) {
  return fs::exists(path) && (f.size < 0 || size_of(path) == f.size);
}

// Before any byte: whether the cache's disk holds what is left to download.
void check_space(const fs::path& dir, const HubListing& l) {
  int64_t need = 0;
  for (const HubFile& f : l.files)
    if (!in_cache(dir / f.name, f)) need += std::max<int64_t>(0, f.size - size_of(dir / (f.name + ".part")));
  std::error_code ec;
  const fs::space_info space = fs::space(dir, ec);
  if (!ec && static_cast<int64_t>(space.available) < need)
    fail("{}: the download needs {} more but {} are free on that disk; free some space, or set QGPU_CACHE_DIR to "
         "a bigger one",
         dir.string(), human(need), human(static_cast<int64_t>(space.available)));
}

// One attempt: the bytes after `have` appended to part (all of them when the server
// ignores the Range). A write that fails (a full disk) or a body longer than the hub
// lists ends the download at once.
Reply fetch_into(const std::string& url, const fs::path& part, const HubFile& f, const HubOptions& o,
                 int64_t have, int64_t& done, int64_t total) {
  FILE* out = std::fopen(part.c_str(), have > 0 ? "ab" : "wb");
  if (!out) fail("{}: cannot write ({}); set QGPU_CACHE_DIR to a writable directory", part.string(), std::strerror(errno));
  std::setvbuf(out, nullptr, _IONBF, 0);  // a failed write is seen at once, with its errno
  Sink sink{.file = out, .before = have, .limit = f.size, .o = &o, .all_done = &done, .all_total = total};
  const Reply r = get(url, o, sink, have);
  if (std::fclose(out) != 0 && !sink.write_errno) sink.write_errno = errno;
  if (sink.write_errno) {
    // The .part is kept: what it holds is the file's first bytes (written in order,
    // nothing after the failed write), so a rerun once there is space resumes from it
    // instead of fetching them again; removing it would free the space only to spend it
    // again.
    std::error_code ec;
    const fs::path dir = fs::absolute(part, ec).parent_path();
    const fs::space_info space = fs::space(dir, ec);
    fail("{}: cannot write {}: {} after {} of the file's {}{}. The partial download is kept: free some space "
         "there, or set QGPU_CACHE_DIR to a bigger disk, and rerun to resume",
         url, part.string(), std::strerror(sink.write_errno), human(size_of(part)), human(f.size),
         ec ? "" : fmt::format(" (the disk holding {} has {} in all, {} free)", dir.string(),
                               human(static_cast<int64_t>(space.capacity)), human(static_cast<int64_t>(space.available))));
  }
  if (sink.too_long) {
    std::error_code ec;
    fs::remove(part, ec);
    fail("{}: the server sent more than the {} bytes the hub lists for {}; the partial download was removed. "
         "Try again later, or set HF_ENDPOINT to a mirror",
         url, f.size, f.name);
  }
  return r;
}

// Downloads url into part, resuming from what part holds, in up to o.attempts attempts.
void transfer(const std::string& url, const fs::path& part, const HubFile& f, const HubOptions& o, int64_t& done,
              int64_t total) {
  const int64_t done_before = done;
  for (int attempt = 1;; ++attempt) {
    int64_t have = size_of(part);
    if (f.size >= 0 && have == f.size) return;  // an earlier attempt (or run) got the last byte
    if (f.size >= 0 && have > f.size) have = 0;  // not this file's beginning: start again
    done = done_before + have;
    const Reply r = fetch_into(url, part, f, o, have, done, total);
    std::string why;
    if (r.rc == CURLE_OK) {
      if (f.size < 0 || size_of(part) == f.size) return;
      why = fmt::format("the server ended the file after {} of its {} bytes", size_of(part), f.size);
    } else if (r.status == 416 && have > 0 && f.size < 0) {
      return;  // nothing after what part holds: the whole file (sha256 and size are checked next)
    } else if (!retryable(r)) {
      std::error_code ec;
      fs::remove(part, ec);
      fail("{}: HTTP {}: {}", url, r.status, status_advice(r.status));
    } else {
      why = what_failed(r, o);
    }
    if (attempt >= o.attempts)
      fail("{}: {} ({} attempts); the partial download is kept ({}, {} of {} bytes): rerun to resume", url, why,
           attempt, part.string(), size_of(part), f.size);
    back_off(o, attempt + 1, f.name, why, size_of(part));
  }
}

// Size and sha256 of a finished download, then the rename into place.
void verify_and_place(const std::string& url, const fs::path& part, const fs::path& final_path, const HubFile& f) {
  std::error_code ec;
  const int64_t got = static_cast<int64_t>(fs::file_size(part));
  if (f.size >= 0 && got != f.size) {
    fs::remove(part, ec);
    fail("{}: {} bytes but the hub lists {}; the partial download was removed, rerun to fetch it again", url, got, f.size);
  }
  if (!f.sha256.empty()) {
    const std::string h = sha256_file(part.string());
    if (h != f.sha256) {
      fs::remove(part, ec);
      fail("{}: sha256 {} but the hub lists {}; the download was removed, rerun to fetch it again", url, h, f.sha256);
    }
  }
  fs::rename(part, final_path, ec);
  if (ec) fail("{}: cannot move into place ({})", final_path.string(), ec.message());
}

}  // namespace

std::string download_repo(const std::string& repo, const HubOptions& options) {
  static const CURLcode init = curl_global_init(CURL_GLOBAL_DEFAULT);
  if (init != CURLE_OK) fail("libcurl: cannot initialise ({})", curl_easy_strerror(init));
  HubOptions o = options;
  if (o.endpoint.empty()) {
    const char* e = std::getenv("HF_ENDPOINT");
    o.endpoint = e && *e ? e : "https://huggingface.co";
  }
  while (o.endpoint.ends_with("/")) o.endpoint.pop_back();
  if (o.token.empty())
    if (const char* t = std::getenv("HF_TOKEN"); t && *t) o.token = t;
  if (!is_hub_id(repo)) fail("'{}': not a hub repo id (expected owner/name)", repo);
  const HubListing l = list_files(repo, o);
  const fs::path dir =
      fs::path(o.cache_dir) / (repo.substr(0, repo.find('/')) + "--" + repo.substr(repo.find('/') + 1)) / l.commit;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) fail("{}: cannot create the download cache ({}); set QGPU_CACHE_DIR", dir.string(), ec.message());
  check_space(dir, l);
  if (o.say)
    o.say(fmt::format("{} at {}: {} files, {:.2f} GB, into {}", repo, l.commit.substr(0, 12), l.files.size(),
                      l.total / 1e9, dir.string()));
  int64_t done = 0;
  for (const HubFile& f : l.files) {
    const int64_t before = done;
    const fs::path final_path = dir / f.name, part = dir / (f.name + ".part");
    if (!in_cache(final_path, f)) {
      const std::string url = fmt::format("{}/{}/resolve/{}/{}", o.endpoint, repo, l.commit, f.name);
      transfer(url, part, f, o, done, l.total);
      verify_and_place(url, part, final_path, f);
    }
    done = before + std::max<int64_t>(0, f.size);  // a file downloaded and checked by an earlier run counts too
  }
  if (o.progress) o.progress(l.total, l.total);
  return dir.string();
}

std::string default_hub_cache() {
  if (std::optional<std::string> d = user_cache_dir()) return *d + "/hub";
  fail("no cache directory for downloads: set QGPU_CACHE_DIR (or HOME)");
}

}  // namespace qgpu::merge
