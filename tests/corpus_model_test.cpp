// The CUDA corpus inside the compiled model (issue 5): every case of every kernel in
// kernels/expected/ whose ops the model has (lift::generation_gap) is compiled, its launch
// generated greedily by the GPU-only model, and the outputs read out of the model's state
// compared with the oracle's (kernels/expected/NAME.json, never made by qgpu) and the
// records with the interpreter's: every case in bf16, each kernel's shortest in f32 and f16, one
// in-memory model per dtype and process, in four shards. Kernels the model cannot generate
// yet are counted and named; the count of kernels may only grow (kMinKernels), and every
// one generates except float kernels whose mul, fma, div, sqrt and conversion sequences do
// not fit the machine (the model has the compares, min, max, neg, abs, the float steps of
// add and sub and the conversions to integers as layers and the rest as integer sequences:
// design.md §3, "The rest of the ALU"), which are counted apart.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "base/error.h"
#include "compiler/compile.h"
#include "engine/forward.h"
#include "gpu/interp.h"
#include "gpu/trace_json.h"
#include "host/launch.h"
#include "lift/machine_model.h"
#include "float_text.h"
#include "machine_launches.h"
#include "test_util.h"

namespace qgpu {
namespace {

using namespace engine;

// A case's `qgpu run` arguments.
CompileOptions options(const std::string& file, const std::string& run) {
  CompileOptions o{.file = file, .float_sequences = true};  // the program `qgpu run --engine model` runs
  parse_launch_options(split_run_line(run), o, file);
  return o;
}

// One corpus case the model can generate: compiled once, run in every dtype.
struct Case {
  std::string kernel, run;
  CompiledKernel k;
  nlohmann::json outputs;  // the oracle's
  std::set<std::string> floats;  // the arrays that hold floats (the oracle's text, float_text.h)
};

// The cases (every one, or each kernel's first) of every kernel whose blocks the model can
// generate (all of a kernel's cases compile to the same blocks, so its first decides);
// gaps counts the others. two_kernels: stop after two kernels (ASan). Only the kernels of
// shard `shard` of `shards` (by their place in name order).
std::vector<std::filesystem::path> expected_files() {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(std::string(QGPU_SOURCE_DIR) + "/kernels/expected")) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

// Kernels the model cannot generate: for an op it lacks, or (floats) for floating point
// sequences (add, sub, mul, fma, div, sqrt, the conversions) that do not fit the machine's
// 256 blocks, or its registers (kRegs) with the memory words left for spilled values.
struct Gaps {
  int ops = 0, floats = 0;
};

// A float op the model's layers do not compute (lower_float.cpp writes it as a sequence).
bool float_gap_op(Op op) {
  const std::vector<Op> computed = lift::computed_ops();
  return is_float_op(op) && std::find(computed.begin(), computed.end(), op) == computed.end();
}

// The kernel as the model runs it, or nothing when its float sequences do not fit (a
// kernel that compiles for the interpreter with float arithmetic in it).
std::optional<CompiledKernel> compile_for_model(const std::string& source, const std::string& cu, const std::string& run) {
  try {
    return compile_cuda(source, options(cu, run));
  } catch (const Error& e) {
    CompileOptions native = options(cu, run);
    native.float_sequences = false;
    const CompiledKernel k = compile_cuda(source, native);
    const bool floats = std::any_of(k.program.code.begin(), k.program.code.end(), [](const Instr& in) { return float_gap_op(in.op); });
    EXPECT_TRUE(floats) << cu << ": " << e.what();
    return std::nullopt;
  }
}

std::vector<Case> generatable(bool first_case_only, Gaps& gaps, bool two_kernels, int shard = 0, int shards = 1) {
  const std::vector<std::filesystem::path> all = expected_files();
  std::vector<std::filesystem::path> files;
  for (size_t i = 0; i < all.size(); ++i)
    if (static_cast<int>(i % static_cast<size_t>(shards)) == shard) files.push_back(all[i]);
  std::vector<Case> out;
  gaps = {};
  for (const std::filesystem::path& json : files) {
    const std::string name = json.stem().string(), cu = std::string(QGPU_SOURCE_DIR) + "/kernels/" + name + ".cu";
    const nlohmann::json expected = nlohmann::json::parse(test_util::read_file(json));
    const std::string source = test_util::read_file(cu);
    for (const nlohmann::json& c : expected.at("cases")) {
      const std::string run = c.at("run").get<std::string>();
      std::optional<CompiledKernel> compiled = compile_for_model(source, cu, run);
      if (!compiled) {
        ++gaps.floats;
        break;
      }
      CompiledKernel& k = *compiled;
      for (const Instr& in : k.program.code)  // early-clobber (regalloc.cpp), or the kernel would be a gap
        if (op_info(in.op).effect == Effect::kAtomic) {
          EXPECT_TRUE(in.d != in.a && in.d != in.b && in.d != in.c) << name << ": " << instr_text(in);
        }
      if (lift::generation_gap(k.program.code, k.program.launch)) {
        // The model has the binary32 compares, min, max, neg, abs, add, sub and the conversions
        // to integers as layers and the rest as sequences: a kernel of only those (and integer
        // ops) that does not generate is an ops gap, which fails the test.
        const bool floats = std::any_of(k.program.code.begin(), k.program.code.end(), [](const Instr& in) { return float_gap_op(in.op); });
        ++(floats ? gaps.floats : gaps.ops);
        break;
      }
      std::set<std::string> floats;
      // A template's instances may differ in type: a case's own list, else the file's.
      for (const nlohmann::json& f : c.value("float_params", expected.value("float_params", nlohmann::json::array())))
        floats.insert(f.get<std::string>());
      out.push_back({name, run, std::move(k), c.at("outputs"), floats});
      if (first_case_only) break;
    }
    if (two_kernels && out.size() == 2) break;
  }
  return out;
}

// A case of more records than this generates whole only in CorpusModelLong (by hand); CI's
// bf16 runs its first kLongPrefix. Every case of the corpus is under it: mandelbrot_float's
// longest is 223,587 records (692,406 when its float adds were integer sequences too).
constexpr size_t kWholeRecords = 250000, kLongPrefix = 20000;

// A case of more than `longer_than` records (0: no limit) generates its first `prefix`
// records only, each the interpreter's (its outputs are not compared).
void corpus_on_model(const std::vector<Case>& cases, DType dtype, size_t prefix = 0, size_t longer_than = 0,
                     size_t max_tokens = kWholeRecords) {
  const Model& m = test_util::gpu_model(dtype);
  int64_t tokens = 0;
  double seconds = 0;
  std::set<std::string> kernels, prefixes;
  for (const Case& c : cases) {
    const Program& p = c.k.program;
    Trace want = qgpu::run(p, p.launch);
    host::ModelRun got;
    if (longer_than > 0 && want.records.size() > longer_than) {
      want.records.resize(prefix);
      const auto start = std::chrono::steady_clock::now();
      host::RecordHook stop = [&](const Rec* r, const engine::State&) {
        if (r) got.trace.records.push_back(*r);
        return got.trace.records.size() < prefix;
      };
      EXPECT_THROW(host::generate_launch(m, {.threads = 1, .skip_zero_rows = true}, encode_image(p, p.launch), max_tokens, stop),
                   Error);
      got.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      prefixes.insert(c.kernel);
    } else {
      got = host::generate_launch(m, {.threads = 1, .skip_zero_rows = true}, encode_image(p, p.launch), max_tokens);
    }
    size_t same = 0;
    while (same < want.records.size() && same < got.trace.records.size() && want.records[same] == got.trace.records[same]) ++same;
    EXPECT_EQ(same, want.records.size()) << c.kernel << " " << c.run << ": record " << same << " differs";
    EXPECT_EQ(got.trace.records.size(), want.records.size()) << c.kernel << " " << c.run;
    tokens += static_cast<int64_t>(got.trace.records.size());
    seconds += got.seconds;
    kernels.insert(c.kernel);
    if (prefixes.count(c.kernel)) continue;
    const nlohmann::json outputs = trace_json(p, p.launch, got.trace, {.engine = "model", .outputs = c.k.outputs})["outputs"];
    for (const auto& [array, values] : c.outputs.items()) {
      const nlohmann::json got_values = outputs.value(array, nlohmann::json());
      if (c.floats.count(array))
        EXPECT_EQ(test_util::as_float_texts(got_values), values) << dtype_name(dtype) << " " << c.kernel << " " << c.run << ": " << array;
      else
        EXPECT_EQ(test_util::as_words(got_values), test_util::as_words(values)) << dtype_name(dtype) << " " << c.kernel << " " << c.run << ": " << array;
    }
  }
  std::string names, cut;
  for (const std::string& k : kernels) names += (names.empty() ? "" : ", ") + k;
  for (const std::string& k : prefixes) cut += (cut.empty() ? "" : ", ") + k;
  std::cout << "[ corpus ] " << dtype_name(dtype) << ": " << kernels.size() << " kernels (" << cases.size() << " cases, "
            << tokens << " records, " << tokens / seconds << " tokens/s) generated with the oracle's outputs: " << names
            << (cut.empty() ? "" : "; the first " + std::to_string(prefix) + " records only: " + cut) << std::endl;
}

#if defined(QGPU_ASAN)
// ASan+UBSan runs the engine about 10x slower; model_launch_test covers every dtype there.
TEST(CorpusModel, FirstCasesBf16) {
  Gaps gaps;
  corpus_on_model(generatable(true, gaps, true), DType::bf16);
}
#else
// Every corpus kernel generates (mul.hi and division compile into other ops): a floor.
constexpr int kMinKernels = 201;

// Four shards (kernels by their place in name order), so CTest runs them side by side: every
// case in bf16, each kernel's shortest in f32 and in f16.
constexpr int kShards = 4;
constexpr size_t kOtherDtypePrefix = 2000;
class CorpusModel : public ::testing::TestWithParam<int> {};

TEST(CorpusModelCount, EveryKernelHasExpectedOutputs) {
  EXPECT_GE(std::ssize(expected_files()), kMinKernels);
}

// The float kernels (the oracle names float arrays) the model generates, each compiled
// once here (the shards run them): a floor, which grows as the float ops become layers or
// shorter sequences.
constexpr int kMinFloatKernels = 51;

TEST(CorpusModelCount, FloatKernelsThatGenerate) {
  std::vector<std::string> yes, no;
  for (const std::filesystem::path& json : expected_files()) {
    const nlohmann::json expected = nlohmann::json::parse(test_util::read_file(json));
    if (expected.value("float_params", nlohmann::json::array()).empty()) continue;
    const std::string name = json.stem().string(), cu = std::string(QGPU_SOURCE_DIR) + "/kernels/" + name + ".cu";
    const std::optional<CompiledKernel> k =
        compile_for_model(test_util::read_file(cu), cu, expected.at("cases").at(0).at("run").get<std::string>());
    (k && !lift::generation_gap(k->program.code, k->program.launch) ? yes : no).push_back(name);
  }
  std::cout << "[ corpus ] " << yes.size() << " float kernels generate: " << fmt::format("{}", fmt::join(yes, ", "))
            << "; " << no.size() << " do not yet: " << fmt::format("{}", fmt::join(no, ", ")) << "\n";
  EXPECT_GE(std::ssize(yes), kMinFloatKernels);
}

// The suite's long launch is a corpus case: is_prime's first (trial division of 12 numbers
// up to 65,537) is over 100,000 records, which its shard generates in bf16, every record
// the interpreter's and every output the oracle's. (Until issue 25 model_launch_test also
// generated examples/long.qasm's 101,713 records: 49 s of CI for the same property.)
// (The shards' `gaps.ops == 0` keeps it generatable.)
TEST(CorpusModelCount, ALaunchOfOverAHundredThousandRecordsIsACase) {
  const std::vector<std::filesystem::path> files = expected_files();
  ASSERT_TRUE(std::any_of(files.begin(), files.end(), [](const auto& f) { return f.stem() == "is_prime"; }));
  EXPECT_GE(test_util::corpus_forced("is_prime", 0).records.size(), 100000u);
}

TEST_P(CorpusModel, EveryCaseInBf16ShortestInF32AndF16) {
  Gaps gaps;
  const std::vector<Case> cases = generatable(false, gaps, false, GetParam(), kShards);
  std::set<std::string> kernels;
  for (const Case& c : cases) kernels.insert(c.kernel);
  std::cout << "[ corpus ] shard " << GetParam() << ": " << kernels.size() << " kernels (" << cases.size()
            << " cases) the model generates, " << gaps.ops << " that need ops it does not have yet, " << gaps.floats
            << " float kernels whose sequences pass the machine's blocks or registers\n";
  EXPECT_EQ(gaps.ops, 0);
  EXPECT_EQ(gaps.floats, 0);
  corpus_on_model(cases, DType::bf16, kLongPrefix, kWholeRecords);
  // f32 and f16 on each kernel's shortest case (by the interpreter's records): the same blocks and
  // record families, a fraction of the CI time (the whole corpus in both dtypes took 29
  // minutes of CI's 90 with 92 kernels; is_prime's first case alone is 109,000 tokens), and
  // of a shortest case past kOtherDtypePrefix records its first that many, each the
  // interpreter's (float kernels' shortest cases run 2,000-32,000 records; newton_sqrt's,
  // kahan_sum's and is_prime's were 166,000 in the two dtypes; a cut at 2,000 rather than
  // 4,000 takes 26 of the 157 kernels instead of 17 and 80,000 records off the two).
  std::vector<Case> shortest;
  size_t shortest_records = 0;
  for (const Case& c : cases) {
    const size_t records = qgpu::run(c.k.program, c.k.program.launch).records.size();
    if (shortest.empty() || shortest.back().kernel != c.kernel) shortest.push_back(c), shortest_records = records;
    else if (records < shortest_records) shortest.back() = c, shortest_records = records;
  }
  corpus_on_model(shortest, DType::f32, kOtherDtypePrefix, kOtherDtypePrefix);
  corpus_on_model(shortest, DType::f16, kOtherDtypePrefix, kOtherDtypePrefix);
}

// The cases CI cuts at kLongPrefix, whole in bf16, every record the interpreter's and every
// output the oracle's (by hand: corpus_model_test --gtest_also_run_disabled_tests
// --gtest_filter='CorpusModelLong.*'); none at present.
TEST(CorpusModelLong, DISABLED_CasesPastTheCutWholeInBf16) {
  Gaps gaps;
  std::vector<Case> longer;
  for (Case& c : generatable(false, gaps, false))
    if (qgpu::run(c.k.program, c.k.program.launch).records.size() > kWholeRecords) longer.push_back(std::move(c));
  if (longer.empty()) GTEST_SKIP() << "every case of the corpus is under the cut: CI runs each whole";
  corpus_on_model(longer, DType::bf16, 0, 0, 4 * 1000 * 1000);
}

INSTANTIATE_TEST_SUITE_P(Shard, CorpusModel, ::testing::Range(0, kShards));
#endif

}  // namespace
}  // namespace qgpu
