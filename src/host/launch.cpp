// The host's side of a launch on the model (host/launch.h): generate() is the one decode
// loop; launch() and generate_launch() are its two entries, and launch_trace() the one
// place a LaunchResult becomes a Trace.
#include "host/launch.h"

#include <emmintrin.h>

#include <chrono>

#include "base/error.h"
#include "host/readout.h"
#include "lift/machine_model.h"

namespace qgpu::host {
namespace {

bool is_record(Tok t) {
  switch (t) {
    case Tok::kEnd: case Tok::kSmall: case Tok::kHead: case Tok::kMid1: case Tok::kMid2: case Tok::kTail:
    case Tok::kSched: case Tok::kPred: case Tok::kBr: case Tok::kSt: case Tok::kBar: case Tok::kWave:
      return true;
    default: return false;
  }
}

}  // namespace

int32_t greedy(std::span<const float> logits) {
  const int32_t n = vocab_size();  // out of line: once, not per id
  int32_t best = 0;
  float top = logits[0];
  int32_t id = 1;
  // 16 at a time, looked at one by one only where one of them beats top (the same `>`
  // comparisons, so the same choice, ties and NaN included).
  for (; id + 16 <= n; id += 16) {
    const __m128 t = _mm_set1_ps(top);
    const float* l = logits.data() + id;
    const __m128 gt = _mm_or_ps(_mm_or_ps(_mm_cmpgt_ps(_mm_loadu_ps(l), t), _mm_cmpgt_ps(_mm_loadu_ps(l + 4), t)),
                                _mm_or_ps(_mm_cmpgt_ps(_mm_loadu_ps(l + 8), t), _mm_cmpgt_ps(_mm_loadu_ps(l + 12), t)));
    if (_mm_movemask_ps(gt) == 0) continue;
    for (int32_t j = id; j < id + 16; ++j)
      if (logits[j] > top) top = logits[j], best = j;
  }
  for (; id < n; ++id)
    if (logits[id] > top) top = logits[id], best = id;
  return best;
}

namespace {

// generate_launch's work, into a LaunchResult (launch() and generate_launch() share it).
LaunchResult generate(const engine::Model& m, engine::RuntimeOptions options, std::span<const Rec> prompt,
                      int64_t max_records, const std::string& max_records_why, const RecordHook& on_record,
                      const std::function<void(int64_t, engine::State&)>& edit_state = {}) {
  // A launch is its own sequence of the GPU's tokens: in a merged checkpoint the base's
  // layers and head rows are skipped (they would compute +0: docs/design.md §3).
  options.gpu_sequence = true;
  engine::Runtime rt(m, options);
  engine::State s = engine::make_state(m.config);
  // In a merged checkpoint the GPU's tokens sit after the base's: the host feeds and
  // chooses among those alone (the base's text tokens are masked).
  const int32_t at = m.config.qgpu ? m.config.qgpu->token_offset : 0;
  std::vector<int32_t> ids;
  for (const Rec& r : prompt) ids.push_back(token_id(r) + at);
  std::vector<float> logits;
  rt.forward(s, ids, logits);
  LaunchResult out;
  const auto stopped = [&](int64_t n) {
    return LaunchError(fmt::format("launch stopped after {} records (interrupted)", n), LaunchError::Kind::stopped,
                       std::move(out.records));
  };
  if (on_record && !on_record(nullptr, s)) throw stopped(0);
  out.prompt.assign(prompt.begin(), prompt.end());
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    const int32_t id = greedy(std::span<const float>(logits).subspan(static_cast<size_t>(at))) + at;
    const int64_t n = static_cast<int64_t>(out.records.size());
    const int64_t position = static_cast<int64_t>(prompt.size()) + n;  // of this token in the sequence
    const auto not_a_record = [&](const std::string& what) {
      return LaunchError(fmt::format("the model emitted {} as record {} (token position {}): not an execution record "
                                     "(a divergence; `--check` names the token and layer)", what, n, position),
                         LaunchError::Kind::not_a_record, std::move(out.records));
    };
    // A head wider than the machine's vocabulary (padded) may pick past it.
    if (id - at >= vocab_size()) throw not_a_record(fmt::format("token {}, past the GPU's {},", id - at, vocab_size()));
    const Rec r = decode_token(id - at);
    if (!is_record(r.kind)) throw not_a_record(fmt::format("'{}'", record_text(r)));
    out.records.push_back(r);
    if (r.kind == Tok::kEnd) {
      if (on_record) on_record(&out.records.back(), s);
      break;
    }
    if (n + 1 >= max_records)
      throw LaunchError(fmt::format("the model generated {} records without `end` (token positions {} to {}; {}): "
                                    "a kernel that does not finish, or a divergence (`--check` names it)",
                                    n + 1, prompt.size(), position,
                                    max_records_why.empty() ? fmt::format("--max-records {}", max_records)
                                                            : max_records_why),
                        LaunchError::Kind::past_max_records, std::move(out.records));
    if (edit_state) edit_state(position, s);
    rt.forward(s, std::span(&id, 1), logits);
    if (on_record && !on_record(&out.records.back(), s)) throw stopped(n + 1);
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::vector<std::optional<uint32_t>> mem = read_memory(m, s);
  for (int a = 0; a < kMemWords; ++a) {
    out.mem_written[a] = mem[a].has_value();
    out.mem[a] = mem[a].value_or(0);
  }
  out.rom = read_rom(m, s);
  return out;
}

}  // namespace

Trace launch_trace(const LaunchResult& r) {
  Trace t{.prompt = r.prompt, .records = r.records};
  t.final.mem = r.mem;
  t.final.mem_written = r.mem_written;
  t.final.rom = r.rom;
  return t;
}

engine::RuntimeOptions runtime_options(const LaunchOptions& o) {
  return {.threads = o.threads, .rounding = o.rounding, .skip_zero_rows = true, .probe = o.probe};
}

std::optional<std::string> generation_gap(const Program& p, const Launch& l) {
  return lift::generation_gap(p.code, l);
}

void require_generation(const Program& p, const Launch& l) {
  if (std::optional<std::string> gap = generation_gap(p, l))
    fail("--engine model: {}: the compiled model cannot generate this kernel's records yet: {}. Use --engine "
         "interp, or --check to compare the state the model holds with the interpreter's for any kernel",
         p.kernel, *gap);
}

LaunchResult launch(const Program& p, const Launch& l, const engine::Model& m, const LaunchOptions& o) {
  require_generation(p, l);
  return generate(m, runtime_options(o), encode_image(p, l), o.max_records, o.max_records_why, o.on_record, o.edit_state);
}

ModelRun generate_launch(const engine::Model& m, engine::RuntimeOptions options, std::span<const Rec> prompt,
                         int64_t max_records, const RecordHook& on_record) {
  LaunchResult r = generate(m, options, prompt, max_records, {}, on_record);
  return {launch_trace(r), r.seconds};
}

}  // namespace qgpu::host
