// Downloading a checkpoint from the Hugging Face hub (`qgpu build --base owner/name`), with
// libcurl and the hub's URL layout:
//   {endpoint}/api/models/{repo}/revision/{revision}?blobs=true   the file list, sizes and
//                                                                  LFS sha256s, the commit
//   {endpoint}/{repo}/resolve/{commit}/{file}                      a file (redirects followed)
// HF_ENDPOINT (default https://huggingface.co) and HF_TOKEN (a Bearer token) are honoured.
// Files go to {cache}/{owner}--{name}/{commit}/; each is downloaded to FILE.part, resumed
// from there by a Range request when a run is interrupted, checked (size; sha256 for LFS
// files) and renamed into place, so a finished file is never partial.
//
// A server that misbehaves (issue 26): every request (the API's and each file's) gets up
// to `attempts` tries; a network error, a dropped connection, a stall (no byte for
// stall_timeout), a body shorter than the file, 408, 429 and 5xx are tried again after
// retry_wait, doubled each time (at most a minute), each file resuming from its .part;
// other 4xx are not. A body longer than the hub lists, or a full disk, ends it at once.
// After the last attempt one error names the URL, what happened and that a rerun resumes.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace qgpu::merge {

// Where downloads are kept: $QGPU_CACHE_DIR/hub, else $XDG_CACHE_HOME/qgpu/hub, else
// $HOME/.cache/qgpu/hub.
std::string default_hub_cache();

struct HubOptions {
  std::string endpoint;          // empty: $HF_ENDPOINT, else https://huggingface.co
  std::string token;             // empty: $HF_TOKEN (may be unset: public repos)
  std::string revision = "main";
  std::string cache_dir;         // required
  int attempts = 5;                                  // per request, at least 1
  std::chrono::milliseconds retry_wait{1000};        // before the second attempt; doubled after each
  std::chrono::seconds stall_timeout{60};            // no byte for this long ends an attempt
  std::function<void(int64_t done, int64_t total)> progress;
  std::function<void(const std::string&)> say;
};

// Whether base names a hub repo ("owner/name", not an existing path).
bool is_hub_id(const std::string& base);

// Downloads the checkpoint files of repo (config, safetensors and index, tokenizer files,
// generation config, chat template, licence) and returns the local directory. Errors name
// the URL or file and what to do (HF_TOKEN for a gated repo, HF_ENDPOINT for a mirror,
// space on the cache's disk); files already downloaded and checked stay in the cache, and
// a partial one stays as FILE.part for the next run to resume.
std::string download_repo(const std::string& repo, const HubOptions& options);

// One checkpoint file the hub lists: its size (-1 when not listed) and, for an LFS file,
// its sha256.
struct HubFile {
  std::string name, sha256;
  int64_t size = -1;
};

// The hub's file list for a repo at a revision: the commit, the checkpoint's files, their
// total size.
struct HubListing {
  std::string commit;
  std::vector<HubFile> files;
  int64_t total = 0;
};

// Limits on a listing (a real Qwen3.5 checkpoint: a dozen files, 5 GB the largest).
inline constexpr int64_t kMaxHubFileBytes = int64_t{1} << 42;  // 4.4 TB
inline constexpr size_t kMaxHubFiles = 10'000;

// The model-info reply of `api` (its JSON) as a listing: the files a checkpoint needs
// (config, safetensors and index, tokenizer files, ...). Throws Error naming api for a reply
// that is not the hub's, a commit that is not a hash, a file name with "..", a size that is
// not a byte count, or no config.json.
HubListing parse_listing(std::string_view body, const std::string& api);

// The lowercase hex SHA-256 of a file (streamed).
std::string sha256_file(const std::string& path);

}  // namespace qgpu::merge
