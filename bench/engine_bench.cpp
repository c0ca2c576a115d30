// Engine throughput on one checkpoint: prefill and decode tokens/s, effective weight
// bandwidth during decode, peak RSS, and this machine's measured read bandwidth. Prints
// one JSON object. Built with the project, never run by ctest (tests do not time things);
// bench/run_engine_bench.sh runs it next to llama.cpp on the same GGUF.
//   engine_bench MODEL [--threads 2] [--prefill 64] [--decode 32] [--dtype bf16] [--skip-zero-rows]
// $QGPU_MATMUL_KERNEL=avx2 measures the AVX2 kernel on an AVX-512 machine.
#include <sys/resource.h>

#include <chrono>
#include <cstring>
#include <nlohmann/json.hpp>
#include <thread>

#include "base/error.h"
#include "engine/forward.h"

using namespace qgpu;
using namespace qgpu::engine;
using Clock = std::chrono::steady_clock;

namespace {

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// Bytes of weights one decode step reads: every matmul weight and the head once.
double weight_bytes(const Model& m) {
  double b = static_cast<double>(m.lm_head.w.nbytes());
  auto add = [&](const Linear& l) { b += static_cast<double>(l.w.nbytes()); };
  for (const LayerWeights& l : m.layers) {
    if (l.linear) {
      for (const Linear* x : {&l.linear_attn.in_proj_qkv, &l.linear_attn.in_proj_z, &l.linear_attn.in_proj_b,
                              &l.linear_attn.in_proj_a, &l.linear_attn.out_proj}) add(*x);
    } else {
      for (const Linear* x : {&l.self_attn.q_proj, &l.self_attn.k_proj, &l.self_attn.v_proj, &l.self_attn.o_proj}) add(*x);
    }
    add(l.gate_proj), add(l.up_proj), add(l.down_proj);
  }
  return b;
}

// Read bandwidth of this machine with n threads summing a 1 GiB buffer (GB/s); integer
// sums, so the compiler vectorises them and the loop is bound by memory, not by adds.
double read_bandwidth(int threads) {
  const size_t n = size_t{1} << 27;  // uint64s
  std::vector<uint64_t> buf(n, 1);
  double best = 0;
  for (int rep = 0; rep < 3; ++rep) {
    std::vector<std::thread> ts;
    std::vector<double> sums(threads);
    auto t0 = Clock::now();
    for (int k = 0; k < threads; ++k)
      ts.emplace_back([&, k] {
        // Four streams per thread in lockstep, as the matmul reads four weight rows: one
        // stream per core under-reads what the memory system gives.
        const size_t len = n / threads / 4;
        const uint64_t* p = buf.data() + n / threads * k;
        uint64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        for (size_t i = 0; i < len; ++i) {
          a0 += p[i];
          a1 += p[len + i];
          a2 += p[2 * len + i];
          a3 += p[3 * len + i];
        }
        sums[k] = static_cast<double>(a0 + a1 + a2 + a3);
      });
    for (auto& t : ts) t.join();
    best = std::max(best, n * 8.0 / since(t0) / 1e9);
  }
  return best;
}

// A field of /proc/self/status in kB (RssAnon: heap and copies; RssFile: mapped weights).
double status_kb(const char* field) {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  double kb = -1;
  while (std::fgets(line, sizeof line, f))
    if (std::strncmp(line, field, std::strlen(field)) == 0) kb = std::atof(line + std::strlen(field));
  std::fclose(f);
  return kb;
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 2) fail("usage: engine_bench MODEL [--threads N] [--prefill N] [--decode N] [--dtype T]");
  std::string path = argv[1];
  int threads = 2, n_prefill = 64, n_decode = 32;
  std::optional<DType> dtype;
  bool skip_zero_rows = false;
  for (int i = 2; i < argc; i += 2) {
    std::string k = argv[i];
    if (k == "--skip-zero-rows") {
      skip_zero_rows = true;
      --i;
      continue;
    }
    if (i + 1 >= argc) fail("engine_bench: {} needs a value", k);
    std::string v = argv[i + 1];
    if (k == "--threads") threads = std::stoi(v);
    else if (k == "--prefill") n_prefill = std::stoi(v);
    else if (k == "--decode") n_decode = std::stoi(v);
    else if (k == "--dtype") dtype = parse_dtype(v);
    else fail("engine_bench: unknown option {}", k);
  }
  auto t_load = Clock::now();
  Model m = load_model(path, dtype);
  double load_s = since(t_load);
  Runtime rt(m, {.threads = threads, .skip_zero_rows = skip_zero_rows});
  std::vector<int32_t> prompt(n_prefill);
  for (int i = 0; i < n_prefill; ++i) prompt[i] = (i * 7919 + 13) % m.config.vocab_size;
  std::vector<float> logits;
  {  // warm-up: touch the weights once so page faults are not timed
    State s = make_state(m.config);
    rt.forward(s, std::span<const int32_t>(prompt.data(), 1), logits);
  }
  State s = make_state(m.config);
  auto t0 = Clock::now();
  rt.forward(s, prompt, logits);
  double prefill_s = since(t0);
  std::vector<double> steps;
  int32_t tok = 0;
  for (int i = 0; i < n_decode; ++i) {
    tok = static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
    auto t = Clock::now();
    rt.forward(s, std::span<const int32_t>(&tok, 1), logits);
    steps.push_back(since(t));
  }
  std::vector<double> sorted = steps;
  std::sort(sorted.begin(), sorted.end());
  double median = sorted[sorted.size() / 2];
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  double anon_mb = status_kb("RssAnon:") / 1024.0, file_mb = status_kb("RssFile:") / 1024.0;
  double wb = weight_bytes(m);
  const MatmulKernel k = matmul_kernel();
  const char* kernel = k == MatmulKernel::avx512 ? "avx512" : k == MatmulKernel::avx2 ? "avx2" : "reference";
  nlohmann::json j{{"model", path}, {"dtype", dtype_name(m.dtype)}, {"threads", threads}, {"matmul_kernel", kernel},
                   {"skip_zero_rows", skip_zero_rows},
                   {"load_s", load_s},
                   {"prefill_tokens", n_prefill}, {"prefill_tokens_per_s", n_prefill / prefill_s},
                   {"decode_tokens", n_decode}, {"decode_median_ms", median * 1e3},
                   {"decode_tokens_per_s", 1.0 / median},
                   {"weight_bytes_per_token", wb}, {"decode_weight_gb_per_s", wb / median / 1e9},
                   {"machine_read_gb_per_s", read_bandwidth(threads)},
                   {"peak_rss_mb", ru.ru_maxrss / 1024.0},
                   {"rss_anon_mb", anon_mb}, {"rss_file_mb", file_mb}};
  std::printf("%s\n", j.dump(2).c_str());
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "engine_bench: error: %s\n", e.what());
  return 1;
}
