#include "merge/build.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "base/mapped_file.h"
#include "base/output_dir.h"
#include "engine/config.h"
#include "engine/safetensors.h"
#include "gpu/vocab.h"
#include "lift/builder.h"
#include "lift/machine_model.h"
#include "lift/map.h"
#include "merge/widen.h"

namespace qgpu::merge {
namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

// One GPU tensor (held sparse by the Builder) inside its merged tensor: its rows from
// row_off, its columns from col_off, +0 around it; entries sorted by flat index so a chunk
// of rows finds its own with a binary search.
struct GpuPart {
  const lift::Builder::Tensor* t = nullptr;
  int64_t row_off = 0, col_off = 0;
  std::vector<lift::EntryMap::Entry> entries;

  GpuPart(const lift::Builder::Tensor& tensor, int64_t r, int64_t c) : t(&tensor), row_off(r), col_off(c) {
    entries = tensor.set.sorted();
  }
  int64_t rows() const { return t->shape[0]; }
  int64_t cols() const { return t->numel() / std::max<int64_t>(1, t->shape[0]); }
  // Merged rows [row0, row0 + n) of out_cols each: this part's rows in that range.
  void fill(int64_t row0, int64_t n, int64_t out_cols, float* out) const {
    const int64_t first = std::max(row0, row_off), last = std::min(row0 + n, row_off + rows());
    if (first >= last) return;
    const int64_t c = cols();
    if (std::bit_cast<uint32_t>(t->fill) != 0)  // out is zeroed: most parts fill +0
      for (int64_t r = first; r < last; ++r) std::fill_n(out + (r - row0) * out_cols + col_off, c, t->fill);
    auto it = std::partition_point(entries.begin(), entries.end(),
                                   [&](const lift::EntryMap::Entry& e) { return e.key < (first - row_off) * c; });
    for (; it != entries.end() && it->key < (last - row_off) * c; ++it) {
      const int64_t r = it->key / c + row_off, col = it->key % c + col_off;
      out[(r - row0) * out_cols + col] = it->value;
    }
  }
};

// Where a GPU tensor of this role sits in the merged one, and the merged shape.
GpuPart place_gpu(const MergePlan& p, const std::string& name, const lift::Builder::Tensor& t,
                  std::vector<int64_t>& shape) {
  const int64_t d = p.base_hidden, D = p.merged.hidden_size, I = p.merged.intermediate_size;
  shape = t.shape;
  switch (tensor_role(name)) {
    case Role::vocab: shape = {p.merged.vocab_size, D}; return GpuPart(t, p.base_vocab, d);
    case Role::reader: shape[1] = D; return GpuPart(t, 0, d);
    case Role::mlp_in: shape = {I, D}; return GpuPart(t, 0, d);
    case Role::writer: shape[0] = D; return GpuPart(t, d, 0);
    case Role::mlp_out: shape = {D, I}; return GpuPart(t, d, 0);
    case Role::main_norm: shape = {D}; return GpuPart(t, d, 0);
    case Role::other: return GpuPart(t, 0, 0);
  }
  return GpuPart(t, 0, 0);
}

// A merged tensor as the writer streams it: its GPU part and its base part (either may be
// absent), each filling its own rows and columns of a zeroed chunk.
struct Source {
  std::string name;
  std::vector<int64_t> shape;
  std::optional<GpuPart> gpu;
  std::optional<RowSource> base;
  std::vector<int64_t> base_shape;  // the base's tensor as stored: its rows fill the first rows and columns
  int64_t rows() const { return shape[0]; }
  int64_t cols() const {
    int64_t c = 1;
    for (size_t i = 1; i < shape.size(); ++i) c *= shape[i];
    return c;
  }
};

engine::DType stored_as(const Source& s, engine::DType dtype) { return engine::export_dtype(s.shape, dtype); }

void encode(engine::DType t, const float* x, size_t n, std::vector<uint8_t>& bytes) {
  bytes.resize(n * engine::dtype_size(t));
  engine::encode_floats(t, x, n, bytes.data());
}

ojson read_json(const fs::path& path) {
  std::ifstream in(path);
  if (!in) fail("{}: cannot read", path.string());
  ojson j = ojson::parse(in, nullptr, false);
  if (j.is_discarded()) fail("{}: not valid JSON", path.string());
  return j;
}

void write_json(const fs::path& path, const ojson& j) {
  write_file_atomic(path.string(), [&](std::ostream& o) { o << j.dump(2) << "\n"; });
}

// tokenizer.json (and tokenizer_config.json's added_tokens_decoder, which transformers
// also reads) with every GPU token added as a special token at base_vocab + t.
int add_gpu_tokens(const fs::path& base, const fs::path& out, const MergePlan& p) {
  ojson tok = read_json(base / "tokenizer.json");
  if (!tok.contains("added_tokens")) tok["added_tokens"] = ojson::array();
  if (!tok["added_tokens"].is_array()) fail("{}: added_tokens is not an array", (base / "tokenizer.json").string());
  for (const ojson& a : tok["added_tokens"])
    if (a.value("id", -1) >= p.base_vocab)
      fail("{}: added token {} has id {}, at or past the base's vocab_size {} where the GPU's tokens go",
           (base / "tokenizer.json").string(), a.value("content", std::string{}), a.value("id", -1), p.base_vocab);
  const int n = vocab_size();
  ojson config;
  const bool has_config = fs::exists(base / "tokenizer_config.json");
  if (has_config) config = read_json(base / "tokenizer_config.json");
  for (int t = 0; t < n; ++t) {
    const std::string text = gpu_token_text(t);
    tok["added_tokens"].push_back({{"id", p.base_vocab + t}, {"content", text}, {"single_word", false},
                                   {"lstrip", false}, {"rstrip", false}, {"normalized", false}, {"special", true}});
    if (has_config && config.contains("added_tokens_decoder"))
      config["added_tokens_decoder"][std::to_string(p.base_vocab + t)] = {
          {"content", text}, {"lstrip", false}, {"normalized", false}, {"rstrip", false}, {"single_word", false},
          {"special", true}};
  }
  write_json(out / "tokenizer.json", tok);
  if (has_config) write_json(out / "tokenizer_config.json", config);
  return n;
}

std::string model_card(const std::string& base_dir, const BuildReport& r) {
  const MergePlan& p = r.plan;
  return fmt::format(
      "---\nlicense: apache-2.0\nbase_model: {}\ntags:\n- qwen3_5\n- qgpu\n---\n\n"
      "# {} with a compiled GPU\n\n"
      "This checkpoint is a Qwen3.5 model with qgpu's GPU compiled into its weights: {} extra layers in front "
      "of the base's {}, whose weights a compiler computed (nothing was trained). They run CUDA kernels, a "
      "token per execution record, and hold the machine's state in their DeltaNet states.\n\n"
      "- Residual: the base's {} dims, then the GPU's {} (hidden_size {}); the base's main norms are "
      "rescaled so its text behaviour is unchanged.\n"
      "- Vocabulary: the base's {} tokens, then the GPU's {} as special tokens `<|gpu:...|>` (vocab_size {}).\n"
      "- config.json's `qgpu` object says where the GPU sits; any Qwen3.5 loader ignores it.\n"
      "- Launches run as their own sequence (a launch inside a conversation would see the text's tokens).\n\n"
      "Run a kernel on it: `qgpu run KERNEL.cu --engine model --model DIR`. Compare its text with the base's: "
      "`qgpu check BASE_DIR DIR`.\n\n"
      "## Licence\n\nThe weights are derived from Qwen3.5 and inherit its licence, Apache-2.0 (see the base "
      "model's card). qgpu's code, which computed the GPU's weights and merged them, is MIT-licensed.\n",
      base_dir, fs::path(base_dir).filename().string(), p.gpu_layers, p.merged.num_hidden_layers - p.gpu_layers,
      p.base_hidden, p.gpu_hidden, p.merged.hidden_size, p.base_vocab, p.gpu_vocab, p.merged.vocab_size);
}

// The merged tensors: the GPU's layers first, then the base's; embedding, final norm and
// head hold both parts. The sources point into gpu and weights.
std::map<std::string, Source> merged_sources(const MergePlan& p, const lift::Builder& gpu,
                                             const engine::SafetensorsDir& weights, bool tied,
                                             const std::string& base_dir) {
  std::map<std::string, Source> sources;
  for (const auto& [name, t] : gpu.tensors) {
    Source s{name, {}, std::nullopt, std::nullopt, {}};
    s.gpu = place_gpu(p, name, t, s.shape);
    sources.emplace(name, std::move(s));
  }
  for (const auto& [name, view] : weights.by_name) {
    if (tied && name == "lm_head.weight") continue;  // a saved copy of the tie: the embedding is the head
    std::optional<RowSource> w = widen_base_rows(p, name, *view);
    if (!w) continue;
    auto it = sources.find(w->name);
    if (it == sources.end()) {
      const std::string key = w->name;
      std::vector<int64_t> shape = w->shape;
      sources.emplace(key, Source{key, std::move(shape), std::nullopt, std::move(*w), view->shape});
      continue;
    }
    // Shared: the embedding and head (the base's rows, then the GPU's) and the final norm.
    const bool rows_only = tensor_role(w->name) == Role::vocab;
    if (rows_only ? it->second.cols() != w->cols() : it->second.shape != w->shape)
      fail("{}: tensor {} does not fit the merged shape", base_dir, name);
    it->second.base = std::move(*w);
    it->second.base_shape = view->shape;
  }
  if (!tied) {  // the base's own head, then the GPU's rows: its embedding's (the machine is tied)
    Source& head = sources.at("lm_head.weight");
    head.gpu = place_gpu(p, "lm_head.weight", gpu.tensors.at("model.embed_tokens.weight"), head.shape);
  }
  for (const auto& [name, s] : sources)
    if (!s.base && !name.starts_with("model.layers.") && name != "lm_head.weight")
      fail("{}: the base has no tensor for the merged {}; is it a complete Qwen3.5 checkpoint?", base_dir, name);
  return sources;
}

// In the order transformers saves: embedding, layers by index, final norm, head.
std::vector<const Source*> write_order(const std::map<std::string, Source>& sources) {
  auto order = [&](const std::string& n) -> std::pair<int64_t, std::string> {
    if (n.ends_with("embed_tokens.weight")) return {-1, n};
    if (n.starts_with("model.layers.")) return {std::stoll(n.substr(13)), n};
    return {1 << 30, n};
  };
  std::vector<const Source*> list;
  for (const auto& [name, s] : sources) list.push_back(&s);
  std::sort(list.begin(), list.end(), [&](const Source* a, const Source* b) { return order(a->name) < order(b->name); });
  return list;
}

// The bytes the merged checkpoint takes on disk, counted as it is written: the writer leaves
// every 4 KiB block of zero bytes a hole (write_file_atomic), and a merge is mostly zeros
// (the GPU's columns of the base's rows, nearly all of the GPU's rows: a tiny base's bf16
// merge is 2.75 GB of tensors and 0.99 GB on disk), so the logical size is no progress
// total. `done`: the blocks written with a nonzero byte (like du, a block counts whole),
// the shards' headers included. `total`: done plus the estimate of every tensor not yet
// written (estimated_disk_bytes); each tensor's estimate is replaced by what it wrote.
struct DiskBytes {
  int64_t done = 0, total = 0;
  int64_t end = -1;         // where the last chunk ended in its file; a chunk elsewhere begins a shard
  int64_t last_block = -1;  // the file's last block counted (a block two chunks share counts once)

  // A chunk of bytes written at offset of its file.
  void add(int64_t offset, const uint8_t* p, int64_t n) {
    if (offset != end) {  // a new shard: the blocks of its header (JSON text) are written
      last_block = (offset + kHoleBlock - 1) / kHoleBlock - 1;
      done += (last_block + 1) * kHoleBlock;
    }
    end = offset + n;
    for (int64_t at = offset; at < end;) {
      const int64_t block = at / kHoleBlock, next = std::min(end, (block + 1) * kHoleBlock);
      if (block > last_block && !all_zero(p + (at - offset), static_cast<size_t>(next - at))) done += kHoleBlock, last_block = block;
      at = next;
    }
  }
  // The total a progress line shows while tensors are written: above done, so the bar ends
  // only with the last tensor (build_merged then reports done of done), even where a tensor
  // wrote more than its estimate.
  int64_t shown_total() const { return std::max(total, done + 1); }
};

// The blocks of s (as if it began a block) that its parts can make nonzero: the base's
// rows and columns, the GPU part's filled rectangle and its entries. An estimate: the
// file's offsets and the values' zeros decide the blocks written.
int64_t estimated_disk_bytes(const Source& s, size_t element) {
  const int64_t cols = s.cols(), bytes = s.rows() * cols * static_cast<int64_t>(element);
  std::vector<bool> nonzero(static_cast<size_t>((bytes + kHoleBlock - 1) / kHoleBlock));
  auto mark = [&](int64_t row, int64_t col, int64_t n) {  // n elements from (row, col)
    if (n <= 0) return;
    const int64_t a = (row * cols + col) * static_cast<int64_t>(element), b = a + n * static_cast<int64_t>(element);
    for (int64_t k = a / kHoleBlock; k <= (b - 1) / kHoleBlock; ++k) nonzero[static_cast<size_t>(k)] = true;
  };
  if (s.base) {
    const int64_t rows = s.base_shape.empty() ? 1 : s.base_shape[0];
    int64_t base_cols = 1;
    for (size_t i = 1; i < s.base_shape.size(); ++i) base_cols *= s.base_shape[i];
    for (int64_t r = 0; r < rows; ++r) mark(r, 0, base_cols);
  }
  if (s.gpu) {
    const GpuPart& g = *s.gpu;
    if (std::bit_cast<uint32_t>(g.t->fill) != 0)
      for (int64_t r = 0; r < g.rows(); ++r) mark(g.row_off + r, g.col_off, g.cols());
    for (const lift::EntryMap::Entry& e : g.entries) mark(e.key / g.cols() + g.row_off, e.key % g.cols() + g.col_off, 1);
  }
  return std::count(nonzero.begin(), nonzero.end(), true) * kHoleBlock;
}

// Each source as a tensor the safetensors writer streams, 4 M floats at a time; estimate[i]
// is list[i]'s share of disk.total until it is written.
std::vector<engine::TensorView> streamed(const std::vector<const Source*>& list, engine::DType dtype,
                                         const std::vector<int64_t>& estimate, DiskBytes& disk, const BuildOptions& o) {
  std::vector<engine::TensorView> views;
  for (size_t i = 0; i < list.size(); ++i) {
    const Source* s = list[i];
    const engine::DType as = stored_as(*s, dtype);
    engine::TensorView v{s->name, as, s->shape, nullptr};
    v.produce = [s, as, guess = estimate[i], &disk, &o](std::ostream& os) {
      const int64_t before = disk.done;
      const int64_t cols = s->cols(), step = std::max<int64_t>(1, (int64_t{4} << 20) / std::max<int64_t>(1, cols));
      std::vector<float> chunk;
      std::vector<uint8_t> bytes;
      for (int64_t r0 = 0; r0 < s->rows(); r0 += step) {
        const int64_t n = std::min(step, s->rows() - r0);
        // memset: the chunk is zeroed at every -O (std::fill is a scalar loop at -O0, half of
        // a debug build's time).
        chunk.resize(static_cast<size_t>(n * cols));
        std::memset(chunk.data(), 0, chunk.size() * sizeof(float));
        // The base's rows come first in every shared tensor; each part fills its own columns.
        if (s->base && r0 < s->base->rows()) s->base->fill(r0, std::min(n, s->base->rows() - r0), chunk.data());
        if (s->gpu) s->gpu->fill(r0, n, cols, chunk.data());
        encode(as, chunk.data(), chunk.size(), bytes);
        const int64_t at = os.tellp();
        os.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        disk.add(at, bytes.data(), static_cast<int64_t>(bytes.size()));
        if (o.progress) o.progress(disk.done, disk.shown_total());
      }
      disk.total += disk.done - before - guess;  // what it wrote instead of its estimate
      if (o.progress) o.progress(disk.done, disk.shown_total());
    };
    views.push_back(std::move(v));
  }
  return views;
}

// Everything but the weights: config, tokenizer files, generation config, chat template,
// licence, model card.
void write_side_files(const fs::path& base, const fs::path& tmp, BuildReport& r) {
  const MergePlan& p = r.plan;
  write_json(tmp / "config.json", engine::config_to_json(p.merged));
  r.gpu_tokens = add_gpu_tokens(base, tmp, p);
  std::error_code ec;
  for (const char* f : {"generation_config.json", "chat_template.jinja", "special_tokens_map.json", "vocab.json",
                        "merges.txt", "LICENSE"})
    if (fs::exists(base / f)) {
      fs::copy_file(base / f, tmp / f, fs::copy_options::overwrite_existing, ec);
      if (ec) fail("{}: cannot copy into the output ({})", (base / f).string(), ec.message());
    }
  if (!fs::exists(tmp / "generation_config.json")) {
    ojson g = {{"bos_token_id", nullptr}, {"do_sample", false}};
    if (!p.merged.eos_token_id.empty()) g["eos_token_id"] = p.merged.eos_token_id;
    write_json(tmp / "generation_config.json", g);
  }
  write_file_atomic((tmp / "README.md").string(), [&](std::ostream& os) { os << model_card(base.string(), r); });
}

// Fails early when the disk that will hold out cannot hold `bytes` (and a margin).
void check_space(const StagedDir& staged, int64_t bytes) {
  std::error_code ec;
  const fs::space_info space = fs::space(staged.path(), ec);
  if (!ec && static_cast<int64_t>(space.available) < bytes + (int64_t{64} << 20))
    fail("{}: the merged checkpoint needs {:.2f} GB but {:.2f} GB are free there{}; free some space or pass "
         "another --out",
         fs::path(staged.path()).parent_path().string(), bytes / 1e9, space.available / 1e9,
         fs::exists(staged.out()) ? " (the previous output is kept until the new one is complete)" : "");
}

}  // namespace

std::string gpu_token_text(int t) { return "<|gpu:" + record_text(decode_token(t)) + "|>"; }

BuildReport build_merged(const std::string& base_dir, const std::string& out_dir, const BuildOptions& o) {
  auto say = [&](const std::string& s) {
    if (o.say) o.say(s);
  };
  const fs::path base(base_dir), out(out_dir);
  const engine::Config base_config = engine::load_config(base_dir);
  BuildReport r;
  r.multimodal = base_config.model_type == "qwen3_5";
  r.plan = plan_merge(base_config, lift::machine_config(), (base / "config.json").string());
  MergePlan& p = r.plan;
  engine::SafetensorsDir weights = engine::load_safetensors_dir(base_dir);
  const std::string embed_name = weights.find("model.language_model.embed_tokens.weight")
                                     ? "model.language_model.embed_tokens.weight" : "model.embed_tokens.weight";
  const engine::TensorView* embed = weights.find(embed_name);
  if (!embed) fail("{}: no {} tensor; is it a Qwen3.5 checkpoint?", base_dir, embed_name);
  r.dtype = o.dtype.value_or(embed->dtype);
  // f32: the exact scale (rounded once per weight); bf16 and f16: a power of two, so the
  // base's weights keep their bits (docs/design.md §3).
  p.base_residual_scale = residual_scale(p, r.dtype == engine::DType::f32);
  p.merged.dtype = engine::torch_dtype_name(r.dtype);
  p.merged.qgpu = engine::GpuPlacement{.token_offset = p.base_vocab,
                                       .hidden_offset = p.base_hidden,
                                       .layers = p.gpu_layers,
                                       .base_intermediate = p.base_intermediate,
                                       .construction = lift::construction_fingerprint()};
  say(fmt::format("base {}: {} layers, hidden {}, vocabulary {}{}", base_dir, base_config.num_hidden_layers,
                  p.base_hidden, p.base_vocab, r.multimodal ? " (multimodal: its text model is kept, the vision "
                                                              "tower and MTP head are left out)" : ""));
  say(fmt::format("compiling the GPU's {} layers for a {}-wide residual", p.gpu_layers, p.merged.hidden_size));
  const lift::Builder gpu = lift::build_machine(p.merged.hidden_size);
  const std::map<std::string, Source> sources =
      merged_sources(p, gpu, weights, base_config.tie_word_embeddings, base_dir);
  const std::vector<const Source*> list = write_order(sources);
  int64_t gpu_layers = 0, vocab = 0;  // the split (docs/design.md §3, "How big the merge is")
  DiskBytes disk;
  std::vector<int64_t> estimate;
  for (const Source* s : list) {
    const int64_t n = s->rows() * s->cols();
    const size_t element = engine::dtype_size(stored_as(*s, r.dtype));
    r.parameters += n;
    r.bytes += n * static_cast<int64_t>(element);
    estimate.push_back(estimated_disk_bytes(*s, element));
    disk.total += estimate.back();
    if (tensor_role(s->name) == Role::vocab) vocab += n;
    else if (s->name.starts_with("model.layers.") && std::stoll(s->name.substr(13)) < p.gpu_layers) gpu_layers += n;
  }
  // Written beside out and swapped in when complete: a killed or failed build leaves the
  // previous output (base/output_dir.h).
  StagedDir tmp(out);
  check_space(tmp, r.bytes);
  say(fmt::format("writing {} tensors, {:.2f} G parameters, {:.2f} GB ({}; about {:.2f} GB on disk, where blocks of "
                  "zeros are holes) into {}: the base's {} layers widened to {} dims {:.2f} G, the {} {:.2f} G, the "
                  "GPU's {} layers ({} dims) {:.2f} G",
                  list.size(), r.parameters / 1e9, r.bytes / 1e9, engine::dtype_name(r.dtype), disk.total / 1e9,
                  out.string(),
                  p.merged.num_hidden_layers - p.gpu_layers, p.merged.hidden_size,
                  (r.parameters - vocab - gpu_layers) / 1e9,
                  p.merged.tie_word_embeddings ? "tied embedding and head" : "embedding and head", vocab / 1e9,
                  p.gpu_layers, p.gpu_hidden, gpu_layers / 1e9));
  try {
    engine::write_safetensors_dir(tmp.path(), streamed(list, r.dtype, estimate, disk, o), o.max_shard_bytes);
    if (o.progress) o.progress(disk.done, disk.done);
    write_side_files(base, tmp.path(), r);
    // The machine's map, in the merged checkpoint's dims, tokens and layers (`qgpu map`).
    const nlohmann::ordered_json map =
        lift::machine_map({.dims = p.base_hidden, .tokens = p.base_vocab, .layers = 0});
    write_file_atomic((fs::path(tmp.path()) / lift::kMapFile).string(), [&](std::ostream& os) { os << map.dump(1) << "\n"; });
  } catch (const Error& e) {
    fail("{}{}", e.what(), fs::exists(tmp.out()) ? fmt::format(" (the previous output in {} is kept)", tmp.out()) : "");
  }
  tmp.commit();
  r.disk_bytes = disk.done;
  say(fmt::format("wrote {}: {} layers ({} GPU + {} base), hidden {}, vocabulary {} ({} GPU tokens)", out.string(),
                  p.merged.num_hidden_layers, p.gpu_layers, p.merged.num_hidden_layers - p.gpu_layers,
                  p.merged.hidden_size, p.merged.vocab_size, r.gpu_tokens));
  return r;
}

}  // namespace qgpu::merge
