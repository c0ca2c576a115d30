// `qgpu build [--base ID|DIR] [--out DIR] [--dtype f32|bf16|f16]`: the compiled GPU merged
// into a Qwen3.5 checkpoint (src/merge/build.h), downloaded from the hub first when --base
// is a repo id (src/merge/hub.h), with progress on stderr.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include <fmt/format.h>

#include "base/error.h"
#include "commands.h"
#include "merge/build.h"
#include "merge/hub.h"

namespace qgpu {
namespace {

// One progress line: a bar redrawn in place on a terminal, a line per tenth otherwise.
struct Progress {
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now(), last{};
  bool tty = isatty(STDERR_FILENO) != 0;
  int tenth = -1;

  void operator()(int64_t done, int64_t total) {
    const auto now = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(now - start).count(), rate = s > 0 ? done / s : 0;
    const int t = total > 0 ? static_cast<int>(10 * done / total) : 10;
    if (tty ? (now - last < std::chrono::milliseconds(200) && done < total) : t == tenth) return;
    last = now, tenth = t;
    const int width = 30, filled = total > 0 ? static_cast<int>(width * std::min(done, total) / total) : width;
    fmt::print(stderr, "{}  [{}{}] {:.2f} / {:.2f} GB  {:.0f} MB/s  ETA {:.0f} s{}", tty ? "\r" : "",
               std::string(static_cast<size_t>(filled), '#'), std::string(static_cast<size_t>(width - filled), ' '),
               done / 1e9, total / 1e9, rate / 1e6, rate > 0 ? (total - done) / rate : 0.0,
               tty && done < total ? "" : "\n");
  }
};

}  // namespace

void add_build_command(CLI::App& app) {
  auto base = std::make_shared<std::string>("Qwen/Qwen3.5-2B");
  auto out = std::make_shared<std::string>("build/merged-2b");
  auto dtype = std::make_shared<std::string>();
  auto shard = std::make_shared<double>(4.0);
  auto* cmd = app.add_subcommand("build", "Merge the compiled GPU into a Qwen3.5 checkpoint (HF directory)");
  cmd->add_option("--base", *base, "The base: a hub id (downloaded into the cache; HF_ENDPOINT, HF_TOKEN) or a checkpoint directory (default Qwen/Qwen3.5-2B)");
  cmd->add_option("--out", *out, "Output directory, replaced only when the build is complete (default build/merged-2b)");
  cmd->add_option("--dtype", *dtype, "Weight dtype: f32, bf16 or f16 (default: the base's)");
  cmd->add_option("--shard-gb", *shard, "Largest safetensors shard in GB (default 4)");
  cmd->callback([=] {
    std::string base_dir = *base;
    if (merge::is_hub_id(*base)) {
      Progress bar;
      merge::HubOptions h{.cache_dir = merge::default_hub_cache()};
      h.progress = [&bar](int64_t done, int64_t total) { bar(done, total); };
      h.say = [](const std::string& s) { fmt::print(stderr, "qgpu build: downloading {}\n", s); };
      base_dir = merge::download_repo(*base, h);
    } else if (!std::filesystem::is_directory(*base)) {
      fail("--base {}: no such directory (expected a Hugging Face checkpoint directory or a hub id owner/name)", *base);
    }
    merge::BuildOptions o;
    if (!dtype->empty()) {
      o.dtype = engine::parse_dtype(*dtype);
      if (!o.dtype) fail("--dtype {}: expected f32, bf16 or f16", *dtype);
    }
    if (!(*shard > 0.001)) fail("--shard-gb {}: expected a positive size in GB", *shard);
    o.max_shard_bytes = static_cast<size_t>(*shard * 1e9);
    Progress bar;
    o.progress = [&bar](int64_t done, int64_t total) { bar(done, total); };
    o.say = [](const std::string& s) { fmt::print(stderr, "qgpu build: {}\n", s); };
    const auto start = std::chrono::steady_clock::now();
    merge::BuildReport r = merge::build_merged(base_dir, *out, o);
    fmt::print("built {} from {} in {:.1f} s: {} layers ({} GPU, then the base's), hidden {} ({} base + {} GPU), "
               "vocabulary {} ({} base + {} GPU tokens), {:.3f} G parameters, {:.2f} GB {} ({:.2f} GB on disk: blocks "
               "of zeros are holes){}\n",
               *out, *base, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
               r.plan.merged.num_hidden_layers, r.plan.gpu_layers, r.plan.merged.hidden_size, r.plan.base_hidden,
               r.plan.gpu_hidden, r.plan.merged.vocab_size, r.plan.base_vocab, r.gpu_tokens, r.parameters / 1e9,
               r.bytes / 1e9, engine::dtype_name(r.dtype), r.disk_bytes / 1e9,
               r.multimodal ? "; the base is multimodal: its text model was kept (no vision tower, no MTP head)" : "");
  });
}

}  // namespace qgpu
