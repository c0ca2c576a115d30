// The machine lens and interventions as a user drives them (`qgpu run ... --engine model
// --lens / --patch-field / --patch-state / --ablate / --dump-activations`), on vecadd:
// the add's operands, sum and result read where the map says they are written; a patch
// changes exactly the records and outputs it should; an ablation that breaks the model
// stops at the derived cap, keeping and diffing what it generated.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "engine/safetensors.h"
#include "gpu/interp.h"
#include "lift/code.h"
#include "lift/map.h"
#include "lift/plan.h"
#include "test_util.h"

namespace qgpu {
namespace {

using test_util::qgpu;
using test_util::Result;

// Under ASan every `qgpu` process builds the model for about 10 s and a launch runs ten
// times slower: the tests that launch run in the dev preset only (host::launch itself runs
// sanitized in model_launch_test), the spec errors in both.
#if defined(QGPU_ASAN)
#define SKIP_UNDER_ASAN() GTEST_SKIP() << "launches in the dev preset (10 s a process under ASan)"
#else
#define SKIP_UNDER_ASAN() (void)0
#endif

const std::string kVecadd = std::string(QGPU_SOURCE_DIR) +
                            "/kernels/vecadd.cu --grid 3 --block 4 --arg 'a=[1,2,3,4,5,6,7,8,9,-2147483647]' "
                            "--arg 'b=[10,20,30,40,50,60,70,80,90,-100]' --arg 'c=[0,0,0,0,0,0,0,0,0,0]' --arg n=10 "
                            "--engine model";

// The token position that generates the first record `text` (the interpreter's records:
// the model generates the same), and the record's index.
std::pair<int64_t, int64_t> position_of(const std::string& text) {
  const CompiledKernel k = test_util::vecadd_kernel();
  const Trace t = run(k.program, k.program.launch);
  for (size_t i = 0; i < t.records.size(); ++i)
    if (record_text(t.records[i]) == text)
      return {static_cast<int64_t>(t.prompt.size()) + static_cast<int64_t>(i) - 1, static_cast<int64_t>(i)};
  ADD_FAILURE() << "vecadd has no record " << text;
  return {0, 0};
}

std::string sublayer_of(const std::string& field) { return lift::sublayer_name(lift::machine_fields()[field].life.born); }

TEST(Lens, ReadsTheAddsOperandsSumAndResultWhereTheMapSaysTheyAreWritten) {
  SKIP_UNDER_ASAN();
  const auto [pos, record] = position_of("v0:11");  // c[0] = a[0] + b[0] = 1 + 10
  const Result r = qgpu("run " + kVecadd + fmt::format(" --lens={} --lens-json", pos));
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["lens"].size(), 1u);
  const nlohmann::json& p = j["lens"][0];
  EXPECT_EQ(p["position"], pos);
  EXPECT_EQ(p["output"], "v0:11");
  EXPECT_EQ(p["record"], record);
  std::map<std::string, nlohmann::json> at;
  for (const nlohmann::json& s : p["sublayers"]) {
    at[s["sublayer"]] = s["fields"];
    EXPECT_TRUE(s["invalid"].empty()) << s.dump();
  }
  // The operands (in the order the add reads them), the adder's word and the result.
  const std::set<std::string> operands = {at[sublayer_of("oa")]["oa"], at[sublayer_of("ob")]["ob"]};
  EXPECT_EQ(operands, (std::set<std::string>{"1", "10"}));
  EXPECT_EQ(at[sublayer_of("sum")]["sum"], "11");
  EXPECT_EQ(at[sublayer_of("res")]["res"], "11");
  EXPECT_EQ(at[sublayer_of("as")]["as"], "11|0|0|0|0|0|0|0");  // the nibble sums before the carries

  // Text: every generated record's position, no invalid code anywhere in the launch.
  const Result all = qgpu("run " + kVecadd + " --lens");
  ASSERT_EQ(all.status, 0) << all.err;
  EXPECT_NE(all.out.find(fmt::format("position {}: sched w0 b7 {{0,1,2,3}} -> v0:11 (record {})", pos, record)),
            std::string::npos) << all.out.substr(0, 2000);
  EXPECT_EQ(all.out.find("is not a valid code"), std::string::npos);
  EXPECT_NE(all.out.find("c = 11 22 33 44 55 66 77 88 99 2147483549"), std::string::npos);
}

TEST(Lens, AFieldPatchChangesExactlyOneRecordAndOneOutput) {
  SKIP_UNDER_ASAN();
  const auto [pos, record] = position_of("v0:11");
  const Result r = qgpu("run " + kVecadd + fmt::format(" --patch-field '{}.sum=5@{}'", sublayer_of("sum"), pos));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find(fmt::format("first different record: #{} (generated at position {}): clean v0:11, intervened v0:5",
                                   record, pos)),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 of 108 records differ"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("c [11,22,33,44,55,66,77,88,99,2147483549] | [5,22,33,44,55,66,77,88,99,2147483549]   <- differs"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("a [1,2,3,4,5,6,7,8,9,-2147483647] | [1,2,3,4,5,6,7,8,9,-2147483647]\n"), std::string::npos);
}

TEST(Lens, StatePatchesWriteMemoryAndRegisters) {
  SKIP_UNDER_ASAN();
  const auto [pos, record] = position_of("v0:11");
  // a[0] (word 0) before it is loaded: c[0] = 100 + 10.
  const Result mem = qgpu("run " + kVecadd + " --patch-state 'mem[0]=100@130'");
  ASSERT_EQ(mem.status, 0) << mem.err;
  EXPECT_NE(mem.out.find("c [11,22,33,44,55,66,77,88,99,2147483549] | [110,22,"), std::string::npos) << mem.out;
  // Lane 0's r1 just before the add reads it: only the add's record and c[0] change.
  const Result reg = qgpu("run " + kVecadd + fmt::format(" --patch-state 'reg[0,0,r1]=50@{}'", pos));
  ASSERT_EQ(reg.status, 0) << reg.err;
  EXPECT_NE(reg.out.find(fmt::format("first different record: #{}", record)), std::string::npos) << reg.out;
  EXPECT_NE(reg.out.find("1 of 108 records differ"), std::string::npos) << reg.out;
  EXPECT_NE(reg.out.find("w0 l0 r1: 1 | 50"), std::string::npos) << reg.out;
  EXPECT_NE(reg.out.find("| [60,22,"), std::string::npos) << reg.out;
}

TEST(Lens, AStageAblationNamesTheFirstBrokenRecordAndStopsInSeconds) {
  SKIP_UNDER_ASAN();
  const auto start = std::chrono::steady_clock::now();
  const Result r = qgpu("run " + kVecadd + " --ablate stage:multiplier");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("intervention --ablate stage:multiplier (zero):"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("first different record: #"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the intervened run stopped: the model generated 10000 records without `end`"), std::string::npos)
      << r.out;
  RecordProperty("seconds", fmt::format("{:.1f}", seconds));
  // Swapping the multiplier's outputs to other valid codes breaks a later record, not the first.
  const Result swap = qgpu("run " + kVecadd + " --ablate stage:multiplier --ablate-mode swap");
  ASSERT_EQ(swap.status, 0) << swap.err;
  EXPECT_EQ(swap.out.find("first different record: #0 "), std::string::npos) << swap.out;
  EXPECT_NE(swap.out.find("first different record: #"), std::string::npos) << swap.out;
}

TEST(Lens, AHeadAblationAtOnePositionChangesTheRecordThatReadsIt) {
  SKIP_UNDER_ASAN();
  const auto [pos, record] = position_of("v0:11");
  // L2's head 0 is the register file's read port a of lane 0 (the map's role): swapped, the
  // add reads ~10 = -11 as its operand a; zeroed, the read is no code at all.
  const Result swap = qgpu("run " + kVecadd + fmt::format(" --ablate heads:L{}:0@{} --ablate-mode swap", lift::kRegisterLayer, pos));
  ASSERT_EQ(swap.status, 0) << swap.err;
  EXPECT_NE(swap.out.find(fmt::format("first different record: #{} (generated at position {}): clean v0:11, intervened v0:-10",
                                      record, pos)),
            std::string::npos) << swap.out;
  EXPECT_NE(swap.out.find("1 of 108 records differ"), std::string::npos) << swap.out;
  const Result zero = qgpu("run " + kVecadd + fmt::format(" --ablate heads:L{}:0@{} --lens={} --lens-fields ra0",
                                                          lift::kRegisterLayer, pos, pos));
  ASSERT_EQ(zero.status, 0) << zero.err;
  EXPECT_NE(zero.out.find(fmt::format("! ra0 is not a valid code after L{}.mixer: group 0: no hot entry", lift::kRegisterLayer)),
            std::string::npos) << zero.out;
  EXPECT_NE(zero.out.find(fmt::format("first different record: #{}", record)), std::string::npos) << zero.out;
}

TEST(Lens, TheActivationDumpHoldsTheResidualStateAndMap) {
  SKIP_UNDER_ASAN();
  test_util::TempDir tmp;
  const auto [pos, record] = position_of("v0:11");
  const std::string file = tmp / "act.safetensors";
  const Result r = qgpu("run " + kVecadd + fmt::format(" --lens={} --dump-activations {} --dump-mlp 13", pos, file));
  ASSERT_EQ(r.status, 0) << r.err;
  const engine::SafetensorsFile f = engine::load_safetensors(file);
  const engine::TensorView* residual = f.find("residual");
  ASSERT_NE(residual, nullptr);
  const int S = 1 + 2 * lift::kLayerCount, G = lift::machine_config().hidden_size;
  EXPECT_EQ(residual->shape, (std::vector<int64_t>{1, S, G}));
  ASSERT_NE(f.find("mlp_act.L13"), nullptr);
  ASSERT_NE(f.find(fmt::format("state.L{}", lift::kMemoryLayer)), nullptr);
  // The map in the metadata places sum; its dims in the dump after its sublayer read 11.
  const nlohmann::json map = nlohmann::json::parse(f.metadata.at("qgpu_map"));
  const nlohmann::json sublayers = nlohmann::json::parse(f.metadata.at("sublayers"));
  for (const nlohmann::json& field : map["fields"]) {
    if (field["name"] != "sum") continue;
    const int s = field["born"].get<int>() + 1;  // the embedding is row 0
    EXPECT_EQ(sublayers[static_cast<size_t>(s)], sublayer_of("sum"));
    std::vector<float> v;
    for (int i = 0; i < field["dims"][1].get<int>(); ++i) v.push_back(residual->at(static_cast<int64_t>(s) * G + field["dims"][0].get<int>() + i));
    const lift::Reading got = lift::read(lift::nibbles(), v);
    ASSERT_TRUE(got.valid()) << got.error;
    EXPECT_EQ(lift::word_of(lift::nibbles(), got), 11u);
  }
}

TEST(Lens, HtmlWritesTheViewerPageWithTheLensAndTheMap) {
  SKIP_UNDER_ASAN();
  test_util::TempDir tmp;
  const std::string page = tmp / "v.html";
  const Result r = qgpu("run " + kVecadd + " --html " + page);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("wrote " + page + ": the records and the lens at 108 positions"), std::string::npos) << r.out;
  const std::string html = test_util::read_file(page);
  EXPECT_TRUE(html.starts_with("<!DOCTYPE html>")) << html.substr(0, 100);
  EXPECT_NE(html.find("id=\"qgpu-data\""), std::string::npos);
  EXPECT_NE(html.find("\"born_at\":\"L13.mlp\""), std::string::npos);  // the map, embedded
  EXPECT_NE(html.find("\"output\":\"v0:11\""), std::string::npos);      // the lens, embedded
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
}

TEST(Lens, BadSpecsAreOneClearError) {
  struct Case {
    std::string options, err;
  };
  const Case cases[] = {
      {" --patch-field 'nosuch=1@120'", "--patch-field nosuch=1@120: no field 'nosuch' (`qgpu map` lists them)"},
      {" --patch-field 'sum=1'", "--patch-field sum=1: give the token position after '@' (the lens prints them)"},
      {" --patch-field 'L3.mlp.sum=1@120'", "--patch-field L3.mlp.sum=1@120: sum lives from"},
      {" --patch-state 'mem[200]=1@130'", "--patch-state mem[200]=1@130: memory words are 0..125"},
      {" --patch-state 'mem[0]=1@3'", "positions before 117 are the prompt"},
      {" --ablate 'stage:nosuch'", "--ablate stage:nosuch: no MLP rules of a stage 'nosuch' (stages: embedding, image"},
      {" --ablate 'heads:L6:0'", "--ablate heads:L6:0: the map has no DeltaNet head 0 in L6"},
      {" --lens=x", "--lens 'x': expected token positions"},
  };
  for (const Case& c : cases) {
    const Result r = qgpu("run " + kVecadd + c.options);
    EXPECT_EQ(r.status, 1) << c.options;
    EXPECT_NE(r.err.find(c.err), std::string::npos) << c.options << "\n" << r.err;
  }
  const Result interp = qgpu("run " + kVecadd.substr(0, kVecadd.rfind(" --engine model")) + " --lens");
  EXPECT_EQ(interp.status, 1);
  EXPECT_NE(interp.err.find("look inside the model: add --engine model"), std::string::npos) << interp.err;
}

}  // namespace
}  // namespace qgpu
