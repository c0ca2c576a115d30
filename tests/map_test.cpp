// The machine's map (src/lift/map.h) against the weights: the map written beside the
// GPU-only export names every nonzero weight's unit group or head and the fields it reads
// and writes, a wrong map fails the check naming what disagrees, and the docs' layer and
// field tables are the map's. The codes' one decoder (src/lift/code.h) round-trips.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "lift/code.h"
#include "lift/map.h"
#include "lift/plan.h"
#include "test_util.h"

namespace qgpu {
namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;
using test_util::qgpu;
using test_util::read_file;

const ojson& machine() {
  static const ojson map = lift::machine_map();
  return map;
}

const ojson& field(const ojson& map, const std::string& name) {
  for (const ojson& f : map["fields"])
    if (f["name"] == name) return f;
  ADD_FAILURE() << "no field " << name;
  static const ojson none;
  return none;
}

TEST(Map, NamesTheAddersSumItsDimsWriterAndUnits) {
  const ojson& m = machine();
  const ojson& sum = field(m, "sum");
  EXPECT_EQ(sum["code"]["kind"], "nibbles");
  EXPECT_EQ(sum["dims"][1], 128);
  EXPECT_EQ(sum["born_at"], fmt::format("L{}.mlp", lift::kAluLayer + 2));
  EXPECT_TRUE(sum["cleared"].is_null());  // read by the LM head's emit, kept to the end
  EXPECT_TRUE(sum["head"].get<bool>());
  int writers = 0;
  for (const ojson& g : m["units"])
    if (g["kind"] == "rule" && g["writes"] == ojson::array({"sum"})) {
      ++writers;
      EXPECT_EQ(g["layer"], lift::kAluLayer + 2);
      EXPECT_EQ(g["stage"], "alu");
      EXPECT_GT(g["count"].get<int>(), 0);
      EXPECT_NE(std::find(g["reads"].begin(), g["reads"].end(), "car"), g["reads"].end()) << g.dump();
    }
  EXPECT_EQ(writers, 1);
  // Every field of the plan is in the map once, with its code's width.
  const lift::Layout l = lift::machine_layout();
  ASSERT_EQ(m["fields"].size(), l.fields.size());
  for (size_t i = 0; i < l.fields.size(); ++i) {
    EXPECT_EQ(m["fields"][i]["name"], l.fields[i].name);
    EXPECT_EQ(m["fields"][i]["dims"][1], l.fields[i].code.size()) << l.fields[i].name;
    EXPECT_FALSE(m["fields"][i]["meaning"].get<std::string>().empty()) << l.fields[i].name;
  }
  // The heads the plan names: the register file's 16, lane status' 16, memory.
  int registers = 0, status = 0, memory = 0;
  for (const ojson& h : m["heads"]) {
    registers += h["layer"] == lift::kRegisterLayer;
    status += h["layer"] == lift::kLaneLayer;
    memory += h["layer"] == lift::kMemoryLayer;
    EXPECT_NE(h["role"], "unnamed") << h.dump();
  }
  EXPECT_EQ(registers, 16);
  EXPECT_EQ(status, 16);
  EXPECT_EQ(memory, 1);
  // Token ranges tile the vocabulary.
  int next = 0;
  for (const ojson& t : m["tokens"]) {
    EXPECT_EQ(t["first"], next) << t.dump();
    next += t["count"].get<int>();
  }
  EXPECT_EQ(next, m["machine"]["vocab"]);
  // The ops the layers compute, from the emit stage's table.
  const ojson& ops = m["computed_ops"];
  for (const char* op : {"add", "mul.lo", "ld", "st", "bra", "exit", "min.f32"})
    EXPECT_NE(std::find(ops.begin(), ops.end(), op), ops.end()) << op;
  for (const char* op : {"div.u", "mul.hi.s", "add.f32", "fma.f32"}) EXPECT_EQ(std::find(ops.begin(), ops.end(), op), ops.end()) << op;
}

TEST(Map, HotCountsComeFromTheCodes) {
  // The embedding: one hot per group of every field it writes, plus the head pattern's.
  const std::vector<int> hots = lift::machine_hots();
  ASSERT_EQ(hots.size(), static_cast<size_t>(2 * lift::kLayerCount + 1));
  EXPECT_EQ(hots[0], lift::embedding_hots(lift::machine_layout()) + lift::kHeadHots);
  EXPECT_EQ(lift::embedding_hots(lift::machine_layout()), 40);  // the 27 one-hot fields, vnib's 8, the bytes' 2 x 4... and one, one2
  for (size_t s = 0; s < hots.size(); ++s) EXPECT_GT(hots[s], 0) << "sublayer " << s;
}

TEST(Map, CodesRoundTripThroughTheirOneDecoder) {
  for (const lift::Code& c : {lift::nibbles(), lift::bits()}) {
    for (uint32_t w : {0u, 1u, 0x80000000u, 0xdeadbeefu, 0xffffffffu}) {
      std::vector<float> v(static_cast<size_t>(c.size()), 0.0f);
      for (int d : lift::encode_word(c, w)) v[static_cast<size_t>(d)] = 1.0f;
      const lift::Reading r = lift::read(c, v);
      ASSERT_TRUE(r.valid()) << c.describe() << " " << w << ": " << r.error;
      EXPECT_EQ(lift::word_of(c, r), w) << c.describe();
      EXPECT_EQ(lift::text_of(c, r), fmt::to_string(w));
    }
  }
  const lift::Code step = lift::digits({4, 16, 16, 2, 2, 2, 2});
  std::vector<float> v(static_cast<size_t>(step.size()), 0.0f);
  const int digit[] = {2, 15, 3, 0, 1, 1, 0};
  for (int d : lift::encode(step, digit)) v[static_cast<size_t>(d)] = 1.0f;
  EXPECT_EQ(lift::text_of(step, lift::read(step, v)), "2|15|3|0|1|1|0");
  v[1] = 1.0f;  // a second hot in the warp's group
  EXPECT_EQ(lift::read(step, v).error, "group 0: two hot entries (1 and 2)");
  v[1] = 0.4f;  // neither on nor off
  EXPECT_NE(lift::read(step, v).error.find("entry 1 is 0.4"), std::string::npos) << lift::read(step, v).error;
  std::vector<float> zero(static_cast<size_t>(step.size()), 0.0f);
  const lift::Reading e = lift::read(step, zero);
  EXPECT_TRUE(e.empty);
  EXPECT_EQ(e.error, "group 0: no hot entry");
  EXPECT_EQ(lift::text_of(step, e), "-");
  EXPECT_EQ(lift::one_hot(17).describe(), "one-hot 17");
  EXPECT_EQ(lift::nibbles().describe(), "8 one-hot nibbles (a word)");
}

std::string generated(const std::string& doc, const std::string& begin) {
  const std::string text = read_file(fs::path(QGPU_SOURCE_DIR) / doc);
  const std::string end = "<!-- end generated -->";
  const size_t from = text.find(begin + "\n");
  if (from == std::string::npos) return "(" + doc + " lacks the line " + begin + ")";
  const size_t to = text.find(end, from);
  if (to == std::string::npos) return "(" + doc + " lacks the line " + end + ")";
  return text.substr(from + begin.size() + 1, to - from - begin.size() - 1);
}

TEST(Map, TheDocsLayerAndFieldTablesAreTheMaps) {
#if defined(QGPU_ASAN)
  GTEST_SKIP() << "two processes that build the machine (10 s each under ASan): the dev preset checks the docs";
#endif
  for (auto [doc, what] : {std::pair("docs/design.md", "layers"), std::pair("docs/map.md", "fields")}) {
    const test_util::Result r = qgpu(std::string("map --markdown=") + what);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(generated(doc, std::string("<!-- generated by qgpu map --markdown=") + what + " -->"), r.out)
        << doc << " is stale: paste the output of `qgpu map --markdown=" << what << "` between its markers";
  }
}

TEST(Map, FieldViewAndErrors) {
  const test_util::Result r = qgpu("map --field sum");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("the adder's word"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(fmt::format("L{}.mlp units", lift::kAluLayer + 2)), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("stage alu): writes sum"), std::string::npos) << r.out;
  const test_util::Result none = qgpu("map --field nosuch");
  EXPECT_EQ(none.status, 1);
  EXPECT_EQ(none.err, "qgpu: error: map: no field 'nosuch': `qgpu map` lists them all\n");
  test_util::TempDir tmp;
  const test_util::Result missing = qgpu("map --model " + tmp.path.string());
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.err.find("qgpu_map.json: cannot read: the checkpoint has no map"), std::string::npos) << missing.err;
  std::ofstream(tmp / "qgpu_map.json") << "{\"format\": \"something else\"}";
  const test_util::Result other = qgpu("map --model " + tmp.path.string());
  EXPECT_EQ(other.status, 1);
  EXPECT_NE(other.err.find("not a map of this qgpu"), std::string::npos) << other.err;
}

TEST(Map, TheExportsMapAgreesWithItsWeightsAndAWrongMapDoesNot) {
#if defined(QGPU_ASAN)
  GTEST_SKIP() << "writes 4.8 GB and reads 2.4 GB: the dev preset runs it (the check's code is the merge test's)";
#endif
  test_util::TempDir tmp;
  const std::string dir = tmp / "gpu";
  const test_util::Result w = qgpu("compile-model --out " + dir + " --dtype bf16");
  ASSERT_EQ(w.status, 0) << w.err;
  fs::remove(dir + "/model.gguf");  // only the safetensors are checked
  const test_util::Result printed = qgpu("map --json");
  ASSERT_EQ(printed.status, 0) << printed.err;
  EXPECT_EQ(read_file(dir + "/qgpu_map.json"), printed.out);  // the export's map is the command's
  const test_util::Result ok = qgpu("map --check --model " + dir);
  ASSERT_EQ(ok.status, 0) << ok.err;
  EXPECT_NE(ok.out.find("are where its map says"), std::string::npos) << ok.out;

  ojson map = ojson::parse(read_file(dir + "/qgpu_map.json"));
  auto check_with = [&](const ojson& edited) {
    std::ofstream(dir + "/qgpu_map.json") << edited.dump();
    return qgpu("map --check --model " + dir);
  };
  {  // sum one dim higher: the adder's units write a dim the map gives to no field there
    ojson m = map;
    for (ojson& f : m["fields"])
      if (f["name"] == "sum") f["dims"][0] = f["dims"][0].get<int>() + 1;
    const test_util::Result bad = check_with(m);
    EXPECT_EQ(bad.status, 1);
    EXPECT_NE(bad.err.find("disagree with its map"), std::string::npos) << bad.err;
    EXPECT_NE(bad.err.find("(alu) writes dim"), std::string::npos) << bad.err;
  }
  {  // the units that write sum in no group
    ojson m = map;
    ojson units = ojson::array();
    for (const ojson& g : m["units"])
      if (g["writes"] != ojson::array({"sum"}) || g["kind"] != "rule") units.push_back(g);
    m["units"] = units;
    const test_util::Result bad = check_with(m);
    EXPECT_EQ(bad.status, 1);
    EXPECT_NE(bad.err.find(fmt::format("L{} gate_proj unit", lift::kAluLayer + 2)), std::string::npos) << bad.err;
    EXPECT_NE(bad.err.find("the map gives the unit to no group"), std::string::npos) << bad.err;
  }
  {  // a head's writes without its field: the memory read
    ojson m = map;
    for (ojson& h : m["heads"])
      if (h["layer"] == lift::kMemoryLayer) h["writes"] = ojson::array();
    const test_util::Result bad = check_with(m);
    EXPECT_EQ(bad.status, 1);
    EXPECT_NE(bad.err.find(fmt::format("L{} head 0 (global memory", lift::kMemoryLayer)), std::string::npos) << bad.err;
  }
}

}  // namespace
}  // namespace qgpu
