// The compiled model generates launches (issue 5): host::launch and the generate_launch
// under it feed the program image and decode greedily until `end`; the records equal the
// interpreter's token for token and the memory read out of the model's state equals the
// interpreter's, in f32, bf16, f16 and bf16 with transformers' rounding, and the model path
// never calls the interpreter. Programs: examples/lanes.qasm (per-lane and broadcast values, 4-byte
// values, loads, stores, a barrier, two waves), examples/loops.qasm (a data-dependent loop,
// divergence, compares, predicate logic, guards), examples/mul.qasm (mul.lo, mad.lo),
// examples/bits.qasm (popc, clz, brev at their edges), examples/grid2d.qasm (%ctaid on a
// 13 x 19 grid: the block index divided by the width), examples/float_compare.qasm (the
// binary32 compares, min, max, neg, abs on +-0, NaNs, infinities, subnormals), random
// programs of those on edge words, and random programs (on 2D grids) of the ops the ALU
// has so far (mov, add, sub, mul.lo, mad.lo, neg, abs, min, max, and, or, xor, not, shifts,
// popc, clz, brev, selp, ld, st, setp.*,
// predicate logic, guards, exit) with random
// 32-bit immediates and specials, so the adder sees every carry chain, the compares every
// class pair and the uniform check both answers. `qgpu asm --engine
// model` reports the same outputs, and a kernel with an op the model lacks gets one error;
// so do a model that emits a token that is not a record and a launch past --max-records
// (the records generated before either printed first), and a model that never emits `end`
// stops at the cap derived from the interpreter's count, with progress on stderr.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <random>

#include "base/error.h"
#include "engine/forward.h"
#include "gpu/interp.h"
#include "host/launch.h"
#include "lift/machine_model.h"
#include "test_util.h"

namespace qgpu {
namespace {

using namespace engine;

struct Case {
  std::string name;
  Program program;
};

// A random program: r0 = 4 tid.x, r1 = a[tid.x], then 12 value ops (every one the ALU has, mul.lo and mad.lo included) over written
// registers, immediates (small, or any 32-bit word) and specials, two atomics (any kind;
// one on a word a register picks), then stores of two registers to out[tid.x] and out2[tid.x].
Case random_case(int seed) {
  std::mt19937 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const int bx = 1 + pick(8), by = 1 + pick(16 / bx), gx = 1 + pick(4), gy = 1 + pick(3);
  std::string text = fmt::format(".kernel random{}\n.grid {} {}\n.block {} {}\n.array a 8 =", seed, gx, gy, bx, by);
  for (int i = 0; i < 8; ++i) text += fmt::format("{} {}", i ? "," : "", static_cast<int32_t>(rng()));
  text += "\n.array acc 4 =";
  for (int i = 0; i < 4; ++i) text += fmt::format("{} {}", i ? "," : "", i == 3 ? static_cast<int32_t>(rng()) : pick(600) - 200);
  text += "\n.array out 8\n.array out2 8\n    mov r0, %tid.x\n    add r0, r0, r0\n    add r0, r0, r0\n    ld r1, [r0+a]\n";
  std::vector<int> written = {1};
  const char* specials[] = {"%tid.x", "%tid.y", "%ntid.x", "%ntid.y", "%nctaid.x", "%laneid", "%warpid", "%ctaslot",
                            "%ctaid.x", "%ctaid.y"};
  auto operand = [&]() -> std::string {
    switch (pick(4)) {
      case 0: return fmt::format("{}", static_cast<int32_t>(rng()));
      case 1: return fmt::format("{}", pick(800) - 300);
      case 2: return specials[pick(10)];
      default: return fmt::format("r{}", written[pick(static_cast<int>(written.size()))]);
    }
  };
  auto reg = [&]() { return fmt::format("r{}", written[pick(static_cast<int>(written.size()))]); };
  const char* unary[] = {"mov", "neg", "abs", "not", "popc", "clz", "brev"};
  const char* binary[] = {"add", "sub", "add", "sub", "min.s", "min.u", "max.s", "max.u", "and", "or", "xor",
                          "shl", "shr.u", "shr.s", "mul.lo", "mul.lo"};
  for (int i = 0; i < 12; ++i) {
    const int d = 2 + pick(9);
    std::string a = operand();
    if (a[0] != 'r' && a[0] != '%') a = fmt::format("r{}", written[pick(static_cast<int>(written.size()))]);  // an immediate at most once
    const int form = pick(8);
    if (form == 0) text += fmt::format("    {} r{}, {}\n", unary[pick(7)], d, operand());
    else if (form == 1) text += fmt::format("    mad.lo r{}, {}, {}, {}\n", d, a, operand(), reg());
    else text += fmt::format("    {} r{}, {}, {}\n", binary[pick(16)], d, a, operand());
    written.push_back(d);
  }
  // Atomics on a word chosen by a register (lanes collide), then on one word; the old
  // words into r14, r13.
  const char* atomics[] = {"add", "exch", "min.s", "min.u", "max.s", "max.u", "cas"};
  auto atomic = [&](const char* d, const char* address) {
    const std::string op = atomics[pick(7)];
    text += fmt::format("    atom.{} {}, [{}], {}", op, d, address, reg());
    text += op == "cas" ? fmt::format(", {}\n", reg()) : "\n";
  };
  text += fmt::format("    and r13, {}, 12\n", reg());
  atomic("r14", "r13+acc");
  atomic("r13", "acc+12");
  written.push_back(13);
  written.push_back(14);
  // Compares, predicate logic and guarded values.
  const char* compares[] = {"eq", "ne", "lt.s", "le.s", "gt.s", "ge.s", "lt.u", "le.u", "gt.u", "ge.u"};
  const char* logic[] = {"and", "or", "xor"};
  auto value_or_special = [&]() { return pick(2) ? reg() : std::string(specials[pick(10)]); };
  text += fmt::format("    setp.{} p0, {}, {}\n", compares[pick(10)], value_or_special(), operand());
  text += fmt::format("    setp.{} p1, {}, {}\n", compares[pick(10)], value_or_special(), pick(3) ? reg() : operand());
  text += fmt::format("    {}.pred p2, p0, p1\n    not.pred p3, p2\n", logic[pick(3)]);
  text += fmt::format("    @p3 add r11, {}, {}\n    @!p3 sub r11, {}, {}\n", reg(), operand(), reg(), operand());
  text += fmt::format("    mov.pred p1, {}\n    @!p1 mov r11, 5\n", pick(2));
  text += fmt::format("    selp r12, r11, {}, p{}\n", operand(), pick(4));
  written.push_back(11);
  written.push_back(12);
  text += fmt::format("    st [r0+out], r{}\n    st [r0+out2], r{}\n    exit\n", written.back(), written[written.size() - 2]);
  return {fmt::format("random{}", seed), assemble(text, fmt::format("random{}.qasm", seed))};
}

// A random program of the binary32 ops the model has (the twelve compares, min, max, neg,
// abs) on words drawn from the edges (+-0, subnormals, the largest, infinities, NaNs of
// every kind) and random bits, from registers, float immediates and specials; each
// compare's predicate picks one of two words with selp, and the words are stored.
Case random_float_case(int seed) {
  std::mt19937 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const uint32_t edges[] = {0u,          0x80000000u, 1u,          0x80000001u, 0x007fffffu, 0x00800000u,
                            0x3f800000u, 0xbf800000u, 0x7f7fffffu, 0xff7fffffu, 0x7f800000u, 0xff800000u,
                            0x7fc00000u, 0xffc00000u, 0x7f800001u, 0x7fffffffu, 0x40400000u, 0xc0400000u};
  auto word = [&]() { return pick(4) == 0 ? static_cast<uint32_t>(rng()) : edges[pick(static_cast<int>(std::size(edges)))]; };
  const int bx = 1 + pick(8), by = 1 + pick(16 / bx);
  std::string text = fmt::format(".kernel rfloat{}\n.grid {} 1\n.block {} {}\n.array a 16 =", seed, 1 + pick(2), bx, by);
  for (int i = 0; i < 16; ++i) text += fmt::format("{} 0f{:08x}", i ? "," : "", word());
  text += "\n.array out 16\n.array out2 16\n    mov r0, %tid.x\n    and r0, r0, 7\n    shl r0, r0, 2\n";
  text += "    ld r1, [r0+a]\n    ld r2, [r0+a+32]\n";
  std::vector<int> written = {1, 2};
  auto reg = [&]() { return fmt::format("r{}", written[pick(static_cast<int>(written.size()))]); };
  auto operand = [&]() -> std::string {
    switch (pick(6)) {
      case 0: return fmt::format("0f{:08x}", word());
      case 1: return pick(2) ? "%tid.x" : "%laneid";
      default: return reg();
    }
  };
  const char* compares[] = {"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu"};
  const char* binary[] = {"min.f32", "max.f32"};
  const char* unary[] = {"neg.f32", "abs.f32"};
  for (int i = 0; i < 10; ++i) {
    const int d = 3 + pick(9);
    std::string a = operand(), b = operand();
    if (a[0] == '0' && pick(2)) a = reg();  // an immediate a now and then (the shared class on port a)
    if (a[0] == '0' && b[0] == '0') b = reg();  // one immediate an instruction
    switch (pick(4)) {
      case 0: text += fmt::format("    {} r{}, {}\n", unary[pick(2)], d, b); break;
      case 1: text += fmt::format("    {} r{}, {}, {}\n", binary[pick(2)], d, a, b); break;
      default:
        text += fmt::format("    setp.{}.f32 p{}, {}, {}\n", compares[pick(12)], i % 4, a, b);
        text += fmt::format("    selp r{}, {}, {}, p{}\n", d, reg(), reg(), i % 4);
    }
    written.push_back(d);
  }
  text += fmt::format("    st [r0+out], r{}\n    st [r0+out2], r{}\n    exit\n", written.back(), written[written.size() - 2]);
  return {fmt::format("rfloat{}", seed), assemble(text, fmt::format("rfloat{}.qasm", seed))};
}

std::vector<Case> cases() {
  std::vector<Case> c;
#if defined(QGPU_ASAN)
  // ASan+UBSan runs the engine several times slower: the same code on fewer and shorter
  // programs, every kind of op still among them (grid2d is 5,463 records of what lanes
  // does in 482; atomic_update 500 of what atomics does in 239; float_compare 1,825 of what
  // float_order does in 84).
  const std::vector<const char*> names = {"lanes", "loops", "mul", "bits", "atomics", "float_order"};
  const int seeds = 1;
#else
  const std::vector<const char*> names = {"lanes", "loops", "mul", "bits", "grid2d", "atomics", "atomic_update",
                                          "float_compare"};
  const int seeds = 4;
#endif
  for (const char* name : names)
    c.push_back({name, assemble(test_util::read_file(fmt::format("{}/examples/{}.qasm", QGPU_SOURCE_DIR, name)), name)});
  for (int seed = 1; seed <= seeds; ++seed) c.push_back(random_case(seed));
  for (int seed = 1; seed <= seeds; ++seed) c.push_back(random_float_case(seed));
  return c;
}

// The generated launch is the interpreter's: every record, then every memory word read
// out of the state (fatal at the first differing record or written flag).
void expect_same_launch(const Trace& want, const host::ModelRun& got, const std::string& what) {
  size_t same = 0;
  while (same < want.records.size() && same < got.trace.records.size() && want.records[same] == got.trace.records[same]) ++same;
  ASSERT_EQ(same, want.records.size())
      << what << ": record " << same << " is "
      << (same < got.trace.records.size() ? record_text(got.trace.records[same]) : "missing") << ", the interpreter's "
      << record_text(want.records[same]);
  EXPECT_EQ(got.trace.records.size(), want.records.size()) << what;
  for (int a = 0; a < kMemWords; ++a) {
    ASSERT_EQ(got.trace.final.mem_written[a], want.final.mem_written[a]) << what << " word " << a;
    EXPECT_EQ(got.trace.final.mem[a], want.final.mem[a]) << what << " word " << a;
  }
}

struct Setting {
  DType dtype;
  Rounding rounding;
};

void generate_all(const Setting& setting) {
  const Model& m = test_util::gpu_model(setting.dtype);
  const std::string what = std::string(dtype_name(setting.dtype)) + (setting.rounding == Rounding::transformers ? "/transformers" : "");
  int64_t tokens = 0;
  double seconds = 0;
  std::vector<Case> all = cases();
#if defined(QGPU_ASAN)
  // The other settings' sanitized paths (their matmul kernels and roundings) on two programs.
  if (setting.dtype != DType::bf16 || setting.rounding != Rounding::llama_cpp) all.erase(all.begin() + 2, all.end());
#endif
  for (const Case& c : all) {
    ASSERT_FALSE(lift::generation_gap(c.program.code, c.program.launch)) << c.name;
    const Launch& l = c.program.launch;
    Trace want = run(c.program, l);
    const std::vector<Rec> prompt = encode_image(c.program, l);
    const int64_t calls = interpreter_calls();
    host::ModelRun got = host::generate_launch(m, {.threads = 1, .rounding = setting.rounding, .skip_zero_rows = true},
                                               prompt, 100000);
    EXPECT_EQ(interpreter_calls(), calls) << "the model path called the interpreter";
    expect_same_launch(want, got, what + " " + c.name);
    if (::testing::Test::HasFatalFailure()) return;
    EXPECT_TRUE(got.trace.final.rom == want.final.rom) << what << " " << c.name;
    tokens += static_cast<int64_t>(got.trace.records.size());
    seconds += got.seconds;
  }
  std::cout << "[ generated ] " << what << ": " << all.size() << " launches, " << tokens
            << " records equal the interpreter's, memory read out of the state equal; " << tokens / seconds
            << " tokens/s\n";
}

// host::greedy's vector scan picks what the plain loop picks: the first largest logit,
// NaN never larger, with ties, NaN and a maximum in every position of a 16-wide chunk.
TEST(ModelLaunch, GreedyIsTheFirstLargestLogit) {
  const int32_t n = vocab_size();
  auto plain = [&](const std::vector<float>& l) {
    int32_t best = 0;
    for (int32_t id = 1; id < n; ++id)
      if (l[id] > l[best]) best = id;
    return best;
  };
  std::mt19937 rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<float> l(static_cast<size_t>(n));
    for (float& x : l) x = static_cast<float>(rng() % 64) - 32.0f;  // many ties
    const int32_t at = static_cast<int32_t>(rng() % n);
    if (trial % 2) l[at] = 40.0f;                                   // a single top anywhere
    if (trial % 3 == 0) l[rng() % n] = std::numeric_limits<float>::quiet_NaN();
    if (trial % 5 == 0) l[0] = std::numeric_limits<float>::quiet_NaN();  // NaN first: nothing beats it
    ASSERT_EQ(host::greedy(l), plain(l)) << "trial " << trial;
  }
}

TEST(ModelLaunch, GeneratesF32) { generate_all({DType::f32, Rounding::llama_cpp}); }
TEST(ModelLaunch, GeneratesBf16) { generate_all({DType::bf16, Rounding::llama_cpp}); }
TEST(ModelLaunch, GeneratesBf16Transformers) { generate_all({DType::bf16, Rounding::transformers}); }
TEST(ModelLaunch, GeneratesF16) { generate_all({DType::f16, Rounding::llama_cpp}); }

// host::launch(), the one entry the tools and the chat use: examples/vecadd.qasm on the
// GPU-only model gives the interpreter's records, memory and ROM, every field of the result
// filled, and never calls the interpreter; the prompt is the program image.
TEST(ModelLaunch, LaunchGivesTheInterpretersRecordsAndMemory) {
  const Model& m = test_util::gpu_model(DType::f32);
  const Program p = assemble(test_util::read_file(fmt::format("{}/examples/vecadd.qasm", QGPU_SOURCE_DIR)), "vecadd.qasm");
  const Launch l{.grid_x = 2, .block_x = 4};
  const Trace want = run(p, l);
  const int64_t calls = interpreter_calls();
  const host::LaunchResult got = host::launch(p, l, m);
  EXPECT_EQ(interpreter_calls(), calls) << "the model path called the interpreter";
  EXPECT_EQ(got.prompt, encode_image(p, l));
  EXPECT_EQ(got.records, want.records);
  EXPECT_TRUE(got.mem == want.final.mem);
  EXPECT_TRUE(got.mem_written == want.final.mem_written);
  EXPECT_TRUE(got.rom == want.final.rom);
  EXPECT_GT(got.seconds, 0.0);
  EXPECT_EQ(read_array(host::launch_trace(got).final, p.arrays[2]), std::vector<uint32_t>({11, 22, 33, 44, 55, 66, 77,
                                                                                          static_cast<uint32_t>(-992)}));
}

// A program with an op the model lacks: host::launch() throws, before any token, the
// error that names the kernel and the gap and points at --engine interp and --check.
TEST(ModelLaunch, LaunchOfAProgramTheModelCannotGenerateIsOneError) {
  const Model& m = test_util::gpu_model(DType::f32);
  const Program p = assemble(test_util::read_file(fmt::format("{}/examples/div_mod.qasm", QGPU_SOURCE_DIR)), "div_mod.qasm");
  const std::optional<std::string> gap = host::generation_gap(p, p.launch);
  ASSERT_TRUE(gap);
  EXPECT_NE(gap->find("div.s"), std::string::npos) << *gap;
  bool hooked = false;
  try {
    host::launch(p, p.launch, m, {.on_record = [&](const Rec*, const State&) { return hooked = true; }});
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              fmt::format("--engine model: {}: the compiled model cannot generate this kernel's records yet: {}. Use "
                          "--engine interp, or --check to compare the state the model holds with the interpreter's "
                          "for any kernel",
                          p.kernel, *gap));
  }
  EXPECT_FALSE(hooked) << "a token was fed";
}

TEST(ModelLaunch, AsmEngineModelReportsTheInterpretersOutputs) {
  const std::string file = std::string(QGPU_SOURCE_DIR) + "/examples/lanes.qasm";
  test_util::Result interp = test_util::qgpu(fmt::format("asm '{}' --run --json", file));
  test_util::Result model = test_util::qgpu(fmt::format("asm '{}' --run --json --engine model --dtype bf16", file));
  ASSERT_EQ(interp.status, 0) << interp.err;
  ASSERT_EQ(model.status, 0) << model.err;
  nlohmann::json i = nlohmann::json::parse(interp.out), g = nlohmann::json::parse(model.out);
  EXPECT_EQ(g["engine"], "model");
  EXPECT_EQ(g["dtype"], "bf16");
  EXPECT_EQ(g["outputs"], i["outputs"]);
  EXPECT_EQ(g["memory"], i["memory"]);
  EXPECT_EQ(g["records"], i["records"]);
  EXPECT_GT(g["tokens_per_second"].get<double>(), 0.0);
}

// `qgpu run` compiles mul.hi, div and rem into the ALU's ops (compile_test); hand-written
// code is taken as written, so the model path refuses it with one error before any token.
TEST(ModelLaunch, HandWrittenCodeWithAnOpTheModelLacksIsOneError) {
  test_util::Result r = test_util::qgpu(fmt::format("asm '{}/examples/div_mod.qasm' --run --engine model",
                                                    QGPU_SOURCE_DIR));
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find("cannot generate this kernel's records yet"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--engine interp"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("div.s"), std::string::npos) << r.err;
}

// A model that emits something that is not a record, and a launch that never emits
// `end`, are each one error naming the record and its token position (issue 26). The
// broken model: a tiny random Qwen3.5 with the machine's vocabulary.
TEST(ModelLaunch, ATokenThatIsNotARecordIsOneErrorNamingItsPosition) {
  test_util::TempDir tmp;
  ASSERT_EQ(test_util::qgpu(fmt::format("tiny-model --out {} --layers LF --vocab {}", tmp / "random", vocab_size())).status, 0);
  const std::string file = std::string(QGPU_SOURCE_DIR) + "/examples/mul.qasm";
  const test_util::Result r = test_util::qgpu(fmt::format("asm '{}' --run --engine model --model {}", file, tmp / "random"));
  EXPECT_EQ(r.status, 1);
  // What it generated before the bad token is kept: the count (and the records) on stdout.
  EXPECT_TRUE(r.out.starts_with("the model generated ")) << r.out;
  EXPECT_NE(r.out.find(" before it failed"), std::string::npos) << r.out;
  const Program p = assemble(test_util::read_file(file), "mul.qasm");
  const size_t prompt = encode_image(p, p.launch).size();
  int record = -1, position = -1;
  const size_t at = r.err.find("' as record ");
  ASSERT_NE(at, std::string::npos) << r.err;
  ASSERT_EQ(std::sscanf(r.err.c_str() + at, "' as record %d (token position %d)", &record, &position), 2) << r.err;
  EXPECT_EQ(position, static_cast<int>(prompt) + record) << r.err;
  EXPECT_TRUE(r.err.starts_with("qgpu: error: the model emitted '")) << r.err;
  EXPECT_TRUE(r.err.ends_with("): not an execution record (a divergence; `--check` names the token and layer)\n")) << r.err;
}

TEST(ModelLaunch, ALaunchWithoutEndStopsAtMaxRecords) {
  test_util::TempFile spin(".kernel spin\n.grid 1\n.block 1\ntop:\n    bra top\n", ".qasm");
  const Program p = assemble(test_util::read_file(spin.path), "spin.qasm");
  const size_t prompt = encode_image(p, p.launch).size();
  const test_util::Result r = test_util::qgpu(fmt::format("asm '{}' --run --engine model --max-records 40", spin.path.string()));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, fmt::format("qgpu: error: the model generated 40 records without `end` (token positions {} to {}; "
                               "--max-records 40): a kernel that does not finish, or a divergence (`--check` names "
                               "it); a larger `--max-records N` allows more\n",
                               prompt, prompt + 39));
  // The records it generated are printed before the error: the count and the last 10, or
  // with --trace all 40.
  EXPECT_TRUE(r.out.starts_with("the model generated 40 records before it failed; the last 10 (--trace prints all):\n"))
      << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 11) << r.out;
  EXPECT_NE(r.out.find("\n        39  "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\n        29  "), std::string::npos) << r.out;
  const test_util::Result all =
      test_util::qgpu(fmt::format("asm '{}' --run --engine model --max-records 40 --trace", spin.path.string()));
  EXPECT_EQ(all.status, 1);
  EXPECT_TRUE(all.out.starts_with("the model generated 40 records before it failed:\n")) << all.out;
  EXPECT_EQ(std::count(all.out.begin(), all.out.end(), '\n'), 41) << all.out;
  EXPECT_NE(all.out.find("\n         0  sched w0 b0 {0}\n"), std::string::npos) << all.out;
  EXPECT_EQ(all.err, r.err);
#if !defined(QGPU_ASAN)  // a second sanitized process that makes the model for the same error path
  // `qgpu run` the same: a kernel that ends, stopped before it does.
  const test_util::Result v = test_util::qgpu(fmt::format(
      "run '{}/kernels/vecadd.cu' --grid 1 --block 4 --arg 'a=[1,2]' --arg 'b=[3,4]' --arg 'c=[0,0]' --arg n=2 "
      "--engine model --max-records 5",
      QGPU_SOURCE_DIR));
  EXPECT_EQ(v.status, 1);
  EXPECT_NE(v.err.find("the model generated 5 records without `end` (token positions "), std::string::npos) << v.err;
  EXPECT_TRUE(v.err.ends_with("; a larger `--max-records N` allows more\n")) << v.err;
  EXPECT_TRUE(v.out.starts_with("the model generated 5 records before it failed:\n")) << v.out;
#endif
}

// A model that never emits `end` (an ablated stage, a bad merge): a tiny checkpoint on the
// machine's vocabulary whose weights are zero but for ones in every embedding and in the
// head's row of one record (the first sched in the vocabulary), so it emits that record at
// every position.
Rec write_never_ending_model(const std::filesystem::path& dir) {
  const test_util::Result made = test_util::qgpu(
      fmt::format("tiny-model --out {} --layers F --untied --vocab {}", dir.string(), vocab_size()));
  EXPECT_EQ(made.status, 0) << made.err;
  int32_t id = 0;
  while (decode_token(id).kind != Tok::kSched) ++id;
  const std::filesystem::path file = dir / "model.safetensors";
  std::string bytes = test_util::read_file(file);
  uint64_t n = 0;
  std::memcpy(&n, bytes.data(), sizeof n);
  const nlohmann::json header = nlohmann::json::parse(bytes.substr(8, n));
  for (const auto& [name, t] : header.items()) {
    if (name == "__metadata__") continue;
    EXPECT_EQ(t["dtype"], "F32") << name;
    const size_t begin = 8 + n + t["data_offsets"][0].get<size_t>(), end = 8 + n + t["data_offsets"][1].get<size_t>();
    const float one = 1.0f, zero = 0.0f;
    const bool head = name == "lm_head.weight";
    const size_t row = head ? t["shape"][1].get<size_t>() * sizeof(float) : 0;
    for (size_t at = begin; at < end; at += sizeof(float)) {
      const bool set = name.find("embed_tokens") != std::string::npos ||
                       (head && at >= begin + id * row && at < begin + (id + 1) * row);
      std::memcpy(bytes.data() + at, set ? &one : &zero, sizeof(float));
    }
  }
  std::ofstream(file, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return decode_token(id);
}

// With no --max-records, the cap of a launch on the model is derived from the interpreter's
// record count for the same launch (tools/launch_progress.h): a model that never ends stops
// there, after seconds, and the error names the cap, the interpreter's count and the option.
// Progress, forced on (stderr is a file here) and shown at once, is one line rewritten with
// `\r` and cleared before the error.
TEST(ModelLaunch, AModelThatNeverEndsStopsAtTheCapDerivedFromTheInterpreter) {
  test_util::TempDir tmp;
  const Rec step = write_never_ending_model(tmp / "never");
  const std::string file = std::string(QGPU_SOURCE_DIR) + "/examples/mul.qasm";
  const Program p = assemble(test_util::read_file(file), "mul.qasm");
  const int64_t n = static_cast<int64_t>(run(p, p.launch).records.size());
  const int64_t cap = std::max<int64_t>(4 * n + 1000, 10000);
  const size_t prompt = encode_image(p, p.launch).size();
  const auto start = std::chrono::steady_clock::now();
  const test_util::Result r = test_util::qgpu_env(
      "QGPU_PROGRESS=1 QGPU_PROGRESS_AFTER_MS=0 ",
      fmt::format("asm '{}' --run --engine model --model {}", file, tmp / "never"));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.status, 1);
  const std::string error = fmt::format(
      "qgpu: error: the model generated {} records without `end` (token positions {} to {}; the cap, {} records, is "
      "max(4 x {} + 1000, 10000) from the interpreter's {} records for this launch): a kernel that does not finish, "
      "or a divergence (`--check` names it); `--max-records N` sets another cap\n",
      cap, prompt, prompt + cap - 1, cap, n, n);
  ASSERT_TRUE(r.err.ends_with(error)) << r.err;
  const std::string progress = r.err.substr(0, r.err.size() - error.size());
  EXPECT_TRUE(progress.starts_with("\rqgpu: model launch: ")) << progress;
  EXPECT_NE(progress.find(" records/s, step " + record_text(step)), std::string::npos) << progress;
  EXPECT_EQ(progress.find('\n'), std::string::npos) << progress;
  EXPECT_TRUE(progress.ends_with(" \r")) << progress;  // cleared
  EXPECT_TRUE(r.out.starts_with(fmt::format("the model generated {} records before it failed; the last 10", cap)))
      << r.out;
  std::cout << "[ never ends ] stopped after " << cap << " records in " << seconds << " s\n";
#if !defined(QGPU_ASAN)  // the interpreter's 2,000,000 records, sanitized
  // A kernel the interpreter does not finish gets the fixed budget, 10,000 records.
  test_util::TempFile spin(".kernel spin\n.grid 1\n.block 1\ntop:\n    bra top\n", ".qasm");
  const test_util::Result f =
      test_util::qgpu(fmt::format("asm '{}' --run --engine model --model {}", spin.path.string(), tmp / "never"));
  EXPECT_EQ(f.status, 1);
  EXPECT_NE(f.err.find("the model generated 10000 records without `end` (token positions "), std::string::npos) << f.err;
  EXPECT_TRUE(f.err.ends_with("; the cap, 10000 records, is the fixed budget for a launch the interpreter does not "
                              "finish; it does not end within 2000000 records): a kernel that does not finish, or a "
                              "divergence (`--check` names it); `--max-records N` sets another cap\n"))
      << f.err;
#endif
}

// Progress is on stderr only when it is a terminal or QGPU_PROGRESS=1 forces it, after
// QGPU_PROGRESS_AFTER_MS (2 s by default); a run that succeeds leaves the line cleared.
TEST(ModelLaunch, ProgressOnStderrWhenForced) {
  const std::string file = std::string(QGPU_SOURCE_DIR) + "/examples/lanes.qasm";
  const test_util::Result quiet = test_util::qgpu(fmt::format("asm '{}' --run --engine model", file));
  ASSERT_EQ(quiet.status, 0) << quiet.err;
  EXPECT_EQ(quiet.err, "");
  const test_util::Result shown =
      test_util::qgpu_env("QGPU_PROGRESS=1 QGPU_PROGRESS_AFTER_MS=0 ", fmt::format("asm '{}' --run --engine model", file));
  ASSERT_EQ(shown.status, 0) << shown.err;
  EXPECT_EQ(shown.out.substr(0, shown.out.rfind("\nmodel ")), quiet.out.substr(0, quiet.out.rfind("\nmodel ")));
  EXPECT_TRUE(shown.err.starts_with("\rqgpu: model launch: 1 records, ")) << shown.err;
  EXPECT_NE(shown.err.find(" records/s"), std::string::npos) << shown.err;
  EXPECT_TRUE(shown.err.ends_with(" \r")) << shown.err;
  const test_util::Result off = test_util::qgpu_env("QGPU_PROGRESS=0 QGPU_PROGRESS_AFTER_MS=0 ",
                                                    fmt::format("asm '{}' --run --engine model", file));
  EXPECT_EQ(off.err, "");
}

// The same ops in CUDA run on the model: mulhi.cu's __mulhi and __umulhi become sequences.
TEST(ModelLaunch, CudaMulHiRunsAsASequenceOnTheModel) {
  test_util::Result r = test_util::qgpu(fmt::format(
      "run '{}/kernels/mulhi.cu' --grid 2 --block 4 --arg 'a=[-7,123456789]' --arg 'b=[3,987654321]' "
      "--arg 'hi=[0,0]' --arg 'uhi=[0,0]' --arg 'lo=[0,0]' --arg n=2 --engine model --json",
      QGPU_SOURCE_DIR));
  ASSERT_EQ(r.status, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  const int64_t big = int64_t{123456789} * 987654321;
  EXPECT_EQ(j["outputs"]["hi"], nlohmann::json::array({-1, static_cast<int32_t>(big >> 32)}));
  EXPECT_EQ(j["outputs"]["uhi"], nlohmann::json::array({2, static_cast<uint32_t>(big >> 32)}));  // unsigned *
  EXPECT_EQ(j["outputs"]["lo"], nlohmann::json::array({static_cast<uint32_t>(-21), static_cast<uint32_t>(big)}));
}

}  // namespace
}  // namespace qgpu
