// The hub's model-info reply (merge::parse_listing): the JSON the API sends for a repo at a
// revision, which names the files to download and the cache directory. An accepted listing
// names no path outside its directory (no '/', no "..", a commit that is a hash), holds
// config.json, and sums its sizes without overflow.
#include "fuzz_util.h"
#include "merge/hub.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  qgpu::fuzz::accepted([&] {
    const qgpu::merge::HubListing l = qgpu::merge::parse_listing(qgpu::fuzz::text_of(data, size), "api");
    FUZZ_REQUIRE(l.commit.find('/') == std::string::npos && l.commit.find("..") == std::string::npos &&
                     !l.commit.empty(), "commit '{}'", l.commit);
    int64_t total = 0;
    for (const qgpu::merge::HubFile& f : l.files) {
      FUZZ_REQUIRE(!f.name.empty() && f.name.find('/') == std::string::npos && f.name.find("..") == std::string::npos,
                   "file '{}'", f.name);
      total += std::max<int64_t>(0, f.size);
    }
    FUZZ_REQUIRE(total == l.total, "total {} for sizes summing to {}", l.total, total);
  });
  return 0;
}
