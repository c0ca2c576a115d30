// Random programs through the compiled machine's state stages, by teacher forcing
// (host::check_launch): random launch shapes, random ALU ops on random registers and
// immediates (small and 4-byte values, broadcast and per-lane), predicates, guards,
// divergent forward branches, stores, barriers and atomics (memory is compared after each
// update the model writes). Every token's state must equal the
// interpreter's, and the residual's energy must be machine_hots()'s at every position
// (DESIGN-NOTES §3: a fixed norm whatever the program).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "base/error.h"
#include "engine/forward.h"
#include "gpu/interp.h"
#include "host/check.h"
#include "lift/machine_model.h"
#include "test_util.h"

namespace qgpu {
namespace {

using namespace engine;

// A program the interpreter runs without a trap: every register and predicate is written
// unguarded before any read, guarded writes only touch registers already written, r0 keeps
// the thread's store address, and branches jump forward over one such write.
std::string random_program(std::mt19937& rng, int& threads) {
  auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  int grid = 1 + pick(4), block = 1 + pick(16);
  threads = grid * block;
  const char* alu[] = {"add", "sub", "xor", "and", "or", "mul.lo", "min.s", "max.u", "shr.s"};
  const char* cmp[] = {"setp.lt.s", "setp.eq", "setp.ne", "setp.ge.u"};
  const char* special[] = {"%tid.x", "%ctaid.x", "%laneid", "%warpid", "%ntid.x", "%ctaslot"};
  auto imm = [&]() -> std::string {
    int kind = pick(3);
    return std::to_string(kind == 0 ? pick(20) - 5 : kind == 1 ? pick(700) - 256 : static_cast<int>(rng()));
  };
  std::string s = fmt::format(".kernel rnd\n.grid {}\n.block {}\n.array out {}\n.array acc 4 = 7, -3, 70000, {}\n", grid, block,
                              threads, static_cast<int32_t>(rng()));
  s += "    mov r0, %ctaid.x\n    mad.lo r0, r0, %ntid.x, %tid.x\n    shl r0, r0, 2\n";
  s += fmt::format("    mov r1, {}\n    mov r2, {}\n    setp.lt.s p0, r1, {}\n", special[pick(6)], imm(), imm());
  int regs = 3;  // r0..r2 written
  auto reg = [&]() { return "r" + std::to_string(pick(regs)); };
  auto dst = [&]() { return "r" + std::to_string(1 + pick(regs - 1)); };  // r0 keeps the address
  auto src = [&]() { return pick(3) == 0 ? imm() : pick(4) == 0 ? std::string(special[pick(6)]) : reg(); };
  int n = 8 + pick(16), label = 0;
  for (int i = 0; i < n; ++i) {
    int what = pick(11);
    std::string guard = pick(4) == 0 ? (pick(2) ? "@p0 " : "@!p0 ") : "";
    if (what < 5) {
      bool fresh = guard.empty() && regs < 14 && pick(2);
      std::string a = reg(), b = src();  // read before the new register counts as written
      std::string d = fresh ? "r" + std::to_string(regs++) : dst();
      s += fmt::format("    {}{} {}, {}, {}\n", guard, alu[pick(9)], d, a, b);
    } else if (what == 5) {
      s += fmt::format("    {} p0, {}, {}\n", cmp[pick(4)], reg(), src());
    } else if (what == 6) {
      s += fmt::format("    {}selp {}, {}, {}, p0\n", guard, dst(), reg(), src());
    } else if (what == 7) {
      s += fmt::format("    {}st [r0+out], {}\n", guard, reg());
    } else if (what == 8) {  // a divergent forward branch over one guarded-safe instruction
      s += fmt::format("    @p0 bra skip{}\n    add {}, {}, {}\n  skip{}:\n", label, dst(), reg(), src(), label);
      ++label;
    } else if (what == 9) {
      s += "    bar\n";
    } else if (regs >= 5) {  // an atomic on a word a register picks; d apart from the base, b and c (r1..r4 leave one)
      const char* atomics[] = {"add", "exch", "min.s", "min.u", "max.s", "max.u", "cas"};
      std::string t = dst(), b = reg(), c = reg(), d = dst(), op = atomics[pick(7)];
      while (d == t || d == b || d == c) d = dst();
      s += fmt::format("    and {}, {}, 12\n    {}atom.{} {}, [{}+acc], {}{}\n", t, reg(), guard, op, d, t, b,
                       op == "cas" ? ", " + c : "");
    }
  }
  s += fmt::format("    st [r0+out], {}\n    exit\n", reg());
  return s;
}


TEST(MachineRandom, RandomProgramsKeepStateAndEnergy) {
  std::mt19937 rng(2026);
  const std::vector<int> hots = lift::machine_hots();
  int programs = 0;
  int64_t tokens = 0;
#if defined(QGPU_ASAN)
  // Sanitized, bf16 only: f32's model runs sanitized in model_launch_test and machine_state_test.
  for (DType t : {DType::bf16}) {
#else
  for (DType t : {DType::f32, DType::bf16}) {
#endif
    const Model& m = test_util::gpu_model(t);
    double worst = 0;
    auto trace = [&](const char* name, int il, int64_t, std::span<const float> v) {
      std::string_view what(name);
      if (what != "embed" && what != "attn_residual" && what != "layer_out") return;
      double e = 0;
      for (float x : v) e += double(x) * x;
      int sublayer = what == "embed" ? 0 : what == "attn_residual" ? 2 * il + 1 : 2 * il + 2;
      worst = std::max(worst, std::fabs(e / hots[sublayer] - 1));
    };
#if defined(QGPU_ASAN)
    const int count = 1;  // ASan+UBSan runs the engine about 10x slower: the same code, fewer programs
#else
    const int count = 5;
#endif
    for (int i = 0; i < count; ++i) {
      int threads = 0;
      std::string text = random_program(rng, threads);
      Program p = assemble(text, "random.qasm");
      Trace tr;
      try {
        tr = run(p, p.launch, {.max_records = 20000});
      } catch (const Error& e) {
        FAIL() << "the generator made a program that traps: " << e.what() << "\n" << text;
      }
      host::CheckReport c = host::check_launch(m, {.threads = 1, .skip_zero_rows = true, .probe = trace}, tr.prompt, tr.records);
      ASSERT_FALSE(c.first) << dtype_name(t) << ": " << c.first->text() << "\n" << text;
      ++programs;
      tokens += c.tokens;
    }
    EXPECT_LT(worst, 1e-5) << dtype_name(t) << ": residual energy against machine_hots()";
    std::cout << "[ random ] " << dtype_name(t) << ": energy within " << worst << " of machine_hots() at every position\n";
  }
  std::cout << "[ random ] " << programs << " random launches, " << tokens << " tokens: the model's state equals the interpreter's\n";
}

}  // namespace
}  // namespace qgpu
