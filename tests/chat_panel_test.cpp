// The live machine panel (chat/panel.h): render_panel on hand-built snapshots (exact lines,
// width limits, markers), and read_snapshot on a real launch of the compiled GPU-only model,
// token by token, against the interpreter's machine state after the same records.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <map>
#include <sstream>

#include "chat/panel.h"
#include "engine/forward.h"
#include "host/launch.h"
#include "test_util.h"

namespace qgpu::chat {
namespace {

// vecadd on one warp: c = a + b for 4 elements, stopped after warp 0 stored lanes 0 and 1.
PanelSnapshot small_snapshot() {
  PanelSnapshot s;
  s.kernel = "vecadd";
  s.launch = Launch{1, 1, 4, 1};
  s.program_blocks = 3;
  s.records = 12;
  s.tokens_per_second = 40;
  s.step = Rec{Tok::kSched, 0, 1, 0b0011};
  s.recent = {Rec{Tok::kSched, 0, 1, 0b0011}};
  s.rom[0].op = Op::kAdd, s.rom[0].d = 3, s.rom[0].a = 1, s.rom[0].b = 2;  // add r2, r0, r1
  s.rom[1].op = Op::kSt, s.rom[1].a = 1, s.rom[1].b = 3, s.rom[1].imm = 8;
  s.rom[2].op = Op::kExit;
  for (int l = 0; l < kLanes; ++l) {
    s.lanes[0][l] = host::LaneStatus{.pc = l < 2 ? 2 : 1};
    s.regs[0][l][0] = l, s.regs[0][l][1] = 10 * l, s.regs[0][l][2] = 11 * l;
    for (int w = 1; w < kWarps; ++w) s.lanes[w][l] = host::LaneStatus{.finished = true};
  }
  s.preds[0][0][1] = 1;
  s.regs[0][3][2] = static_cast<uint32_t>(-7);
  s.mem_changed_at.fill(-1);
  for (int a = 0; a < 4; ++a) s.mem[a] = static_cast<uint32_t>(a + 1);
  s.mem[3] = static_cast<uint32_t>(-40);
  s.mem_changed_at[3] = 11;
  return s;
}

TEST(ChatPanel, RendersASmallLaunchExactly) {
  const std::vector<std::string> want = {
      "qgpu vecadd  grid 1x1 block 4x1  records 12  40 tokens/s  running",
      "-- scheduler -------------------------------------------------------------------------------------",
      " step: warp 0 runs block 1 with lanes {0,1}",
      " >w0  b2     b2     b1     b1     active {0,1}",
      "  w1  done   done   done   done   finished",
      "  w2  done   done   done   done   finished",
      "  w3  done   done   done   done   finished",
      " (lane: bN its PC, ' barrier flag set, done finished, - not started)",
      " recent sched w0 b1 {0,1}",
      "-- program ROM (3 blocks) ------------------------------------------------------------------------",
      "   b0   add r2, r0, r1",
      " > b1   st [r0+8], r2",
      "   b2   exit",
      "-- pipeline: the pass that consumed record #12 ---------------------------------------------------",
      " write-back L0-L4,L14 step; PCs of w0 lanes {0,1}",
      " fetch      L0-L1     ROM b1: st [r0+8], r2",
      " read       L2-L5     w0 lanes {0,1}: r0 r2  l0=0,0  l1=1,11",
      " execute    L4-L13    st for the next lane (lanes L6-L7, mul L8-L10, ALU L11-L13); scheduler too",
      " emit       L14+head  record #13 (body of st or the next step)",
      "-- register file (signed, or a float when written by a .f32 op; - never written) -----------------",
      "  lane    p0-3  r0  r1  r2",  // r0..r23 pass 98 columns: the written ones
      "  w0 l0   -1--   0   0   0",
      "  w0 l1   ----   1  10  11",
      "  w0 l2   ----   2  20  22",
      "  w0 l3   ----   3  30  -7",
      "-- memory (words; . unwritten, * written in the last 32 records) ---------------------------------",
      "   0:    1    2    3 -40*    .    .    .    .    .    .    .    .    .    .    .    .",
      " (110 unwritten words in rows not shown)",
  };
  EXPECT_EQ(render_panel(small_snapshot(), 98), want);
}

TEST(ChatPanel, EveryLineFitsTheWidth) {
  PanelSnapshot s = small_snapshot();
  for (int r = 0; r < kRegs; ++r) s.regs[0][1][r] = static_cast<uint32_t>(-2147483647 + r);
  for (int a = 0; a < kMemWords; ++a) s.mem[a] = static_cast<uint32_t>(-1000000000 - a);
  for (int width : {1, 10, 20, 40, 60, 80, 100, 140, 200}) {
    for (const std::string& line : render_panel(s, width))
      EXPECT_LE(static_cast<int>(line.size()), width) << "width " << width << ": " << line;
  }
  EXPECT_TRUE(render_panel(s, 0).empty() || render_panel(s, 0)[0].empty());
}

TEST(ChatPanel, NarrowPanelsShowOnlyWrittenRegisters) {
  std::vector<std::string> lines = render_panel(small_snapshot(), 50);
  auto head = std::find_if(lines.begin(), lines.end(), [](const std::string& l) { return l.starts_with("  lane"); });
  ASSERT_NE(head, lines.end());
  EXPECT_EQ(*head, "  lane    p0-3  r0  r1  r2");
  EXPECT_EQ(*(head + 4), "  w0 l3   ----   3  30  -7");
  // Memory wraps at 8 or fewer words a row.
  auto row = std::find_if(lines.begin(), lines.end(), [](const std::string& l) { return l.starts_with("   0:"); });
  ASSERT_NE(row, lines.end());
  EXPECT_EQ(*row, "   0:    1    2    3 -40*    .    .    .    .");
}

TEST(ChatPanel, MarksTheCurrentBlockAndRecentWrites) {
  PanelSnapshot s = small_snapshot();
  s.program_blocks = 20;
  for (int b = 3; b < 20; ++b) s.rom[b].op = Op::kExit;
  s.step = Rec{Tok::kSched, 2, 15, 0b1000};
  s.lanes[2][3] = host::LaneStatus{.pc = 16, .flag = 1};
  s.records = 100;  // word 3 changed at record 11: no longer recent
  s.mem_changed_at[0] = 90;
  const std::vector<std::string> lines = render_panel(s, 98);
  std::vector<std::string> rom;
  for (const std::string& l : lines)
    if (l.starts_with("   b") || l.starts_with(" > b")) rom.push_back(l);
  EXPECT_EQ(rom, (std::vector<std::string>{"   b12  exit", "   b13  exit", "   b14  exit", " > b15  exit",
                                           "   b16  exit", "   b17  exit", "   b18  exit"}));
  std::string text;
  for (const std::string& l : lines) text += l + "\n";
  EXPECT_NE(text.find("\n >w2  done   done   done   b16'   active {3}\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n   0:  1*   2   3 -40   .   .   .   .   .   .   .   .   .   .   .   .\n"),
            std::string::npos) << text;
}

TEST(ChatPanel, BeforeTheFirstStep) {
  PanelSnapshot s = small_snapshot();
  s.step = Rec{Tok::kSched, 0, kBlocks - 1, 0};  // read_step's null step
  s.recent.clear();
  s.records = 0;
  const std::vector<std::string> lines = render_panel(s, 98);
  EXPECT_EQ(lines[2], " step: none yet");
  EXPECT_EQ(lines[10], "   b0   add r2, r0, r1");
  EXPECT_EQ(lines[14], " write-back L0-L4,L14 the prompt: ROM, memory, launch header, lane status");
  EXPECT_EQ(lines[15], " fetch      L0-L1     no step yet");
}

// The register file's columns: every register where the row fits, else the written ones
// (NarrowPanelsShowOnlyWrittenRegisters).
TEST(ChatPanel, EveryRegisterWhereTheRowFits) {
  auto header = [](const PanelSnapshot& s, int width) {
    for (const std::string& line : render_panel(s, width))
      if (line.rfind("  lane    p0-3", 0) == 0) return line;
    return std::string();
  };
  PanelSnapshot s = small_snapshot();  // r0, r1, r2 written
  std::string all = "  lane    p0-3";
  for (int r = 0; r < kRegs; ++r) all += fmt::format(" {:>3}", fmt::format("r{}", r));
  EXPECT_EQ(header(s, 14 + 4 * kRegs), all);
  s.regs[0][1][kRegs - 1] = 5;
  EXPECT_EQ(header(s, 13 + 4 * kRegs), fmt::format("  lane    p0-3  r0  r1  r2 r{}", kRegs - 1));
}

TEST(ChatPanel, FloatRegistersAndWordsShowAsFloats) {
  PanelSnapshot s = small_snapshot();
  for (int l = 0; l < kLanes; ++l) s.float_regs[0][l][2] = l != 0;  // lane 0's r2 stays an int
  s.float_mem[1] = s.float_mem[3] = true;
  s.regs[0][1][2] = 0x3fc00000u;  // 1.5
  s.regs[0][2][2] = 0x40000000u;  // 2
  s.regs[0][3][2] = 0x80000000u;  // -0
  s.mem[1] = 0x7fffffffu;         // the canonical NaN
  s.mem[3] = 0xc2200000u;         // -40
  const std::vector<std::string> lines = render_panel(s, 98);
  std::string text;
  for (const std::string& l : lines) text += l + "\n";
  EXPECT_NE(text.find("\n  w0 l1   ----   1  10 1.5\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n  w0 l3   ----   3  30  -0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n   0:    1  nan    3 -40*    ."), std::string::npos) << text;
  EXPECT_NE(text.find("(signed, or a float when written by a .f32 op; - never written)"), std::string::npos);
}

// ---- read_snapshot on the real model.

Rec held_step(const MachineState& st) { return st.step.kind == Tok::kSched ? st.step : Rec{Tok::kSched, 0, kBlocks - 1, 0}; }

// Every field of the snapshot against the interpreter's state after the same records. A
// register not written in the current wave may hold an older word in the model (or none):
// it is compared only in wave 0, where it must be unwritten.
void expect_snapshot(const PanelSnapshot& got, const MachineState& want, const std::string& what) {
  ASSERT_EQ(got.step, held_step(want)) << what;
  ASSERT_TRUE(got.rom == want.rom) << what;
  for (int w = 0; w < kWarps; ++w)
    for (int l = 0; l < kLanes; ++l) {
      const LaneState& ls = want.lane[w][l];
      const std::string at = fmt::format("{} w{} l{}", what, w, l);
      ASSERT_EQ(got.lanes[w][l], (host::LaneStatus{.pc = ls.pc, .finished = ls.exited, .flag = ls.bar_flag})) << at;
      for (int r = 0; r < kRegs; ++r) {
        if (ls.r_written >> r & 1) {
          ASSERT_EQ(got.regs[w][l][r], ls.r[r]) << at << " r" << r;
        } else if (want.wave == 0) {
          ASSERT_EQ(got.regs[w][l][r], std::nullopt) << at << " r" << r;
        }
      }
      for (int p = 0; p < kPreds; ++p) {
        if (ls.p_written >> p & 1) {
          ASSERT_EQ(got.preds[w][l][p], ls.p[p] ? 1u : 0u) << at << " p" << p;
        } else if (want.wave == 0) {
          ASSERT_EQ(got.preds[w][l][p], std::nullopt) << at << " p" << p;
        }
      }
    }
  for (int a = 0; a < kMemWords; ++a)
    ASSERT_EQ(got.mem[a], want.mem_written[a] ? std::optional<uint32_t>(want.mem[a]) : std::nullopt) << what << " word " << a;
}

TEST(ChatPanel, SnapshotsEqualTheInterpreterAtEveryToken) {
  const engine::Model& m = test_util::gpu_model(engine::DType::f32);
  const CompiledKernel k = test_util::vecadd_kernel();
  const Program& p = k.program;
  const Launch& l = p.launch;
  // The interpreter's states: after the prompt, then after each record; `end` is reported
  // but not fed, so the model's state then is the one after the record before it.
  std::vector<MachineState> want(1);
  const std::vector<Rec> prompt = encode_image(p, l);
  for (const Rec& r : prompt) apply(want[0], r);
  RunOptions o;
  o.on_record = [&](const Rec& r, const MachineState& st) { want.push_back(r.kind == Tok::kEnd ? want.back() : st); };
  const Trace trace = run(p, l, o);

  std::vector<PanelSnapshot> got;
  double seconds = 0;
  int64_t n = 0;
  host::RecordHook hook = [&](const Rec* record, const engine::State& state) {
    const LaunchFeed feed{m, state, record, n, 0.5, p, l};
    const auto start = std::chrono::steady_clock::now();
    got.push_back(read_snapshot(feed, got.empty() ? nullptr : &got.back()));
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ++n;
    return true;
  };
  const host::ModelRun model_run = host::generate_launch(m, {.threads = 1, .skip_zero_rows = true}, prompt, 100000, hook);
  ASSERT_EQ(model_run.trace.records.size(), trace.records.size());
  for (size_t i = 0; i < trace.records.size(); ++i)
    ASSERT_EQ(model_run.trace.records[i], trace.records[i]) << "record " << i;
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    const std::string what = fmt::format("after record {}", i);
    expect_snapshot(got[i], want[i], what);
    if (HasFatalFailure()) return;
    EXPECT_EQ(got[i].records, static_cast<int64_t>(i));
    EXPECT_EQ(got[i].finished, i + 1 == got.size()) << what;
    if (i > 0) {
      EXPECT_EQ(got[i].recent.back(), trace.records[i - 1]) << what;
    }
    EXPECT_LE(got[i].recent.size(), 8u);
    for (int a = 0; a < kMemWords; ++a) {  // the change marks follow the interpreter's memory
      int64_t changed = -1;
      for (size_t j = 1; j <= i; ++j)
        if (want[j].mem[a] != want[j - 1].mem[a] || want[j].mem_written[a] != want[j - 1].mem_written[a])
          changed = static_cast<int64_t>(j);
      ASSERT_EQ(got[i].mem_changed_at[a], changed) << what << " word " << a;
    }
  }
  for (const std::string& line : render_panel(got.back(), 100)) std::cout << line << "\n";
  std::cout << fmt::format("[ snapshot ] {} snapshots equal the interpreter's states; read_snapshot {:.2f} ms each\n",
                           got.size(), 1000 * seconds / static_cast<double>(got.size()));
}

// Memory cells and register cells by what the panel printed: address -> text, and each
// lane of warp 0 -> its register cells.
std::map<int, std::string> memory_cells(const std::vector<std::string>& lines) {
  std::map<int, std::string> cells;
  bool in_memory = false;
  for (const std::string& line : lines) {
    if (line.starts_with("-- ")) in_memory = line.starts_with("-- memory");
    const size_t colon = line.find(':');
    if (!in_memory || colon == std::string::npos || line.starts_with(" (")) continue;
    std::istringstream words(line.substr(colon + 1));
    int a = std::stoi(line.substr(0, colon));
    for (std::string w; words >> w; ++a) cells[a] = w.ends_with('*') ? w.substr(0, w.size() - 1) : w;
  }
  return cells;
}

// A float kernel run inside the model (f32): its float arrays and the registers only .f32
// instructions write show as floats, the integer ones as signed words. clamp_float's second
// case: y = fminf(fmaxf(x, 0), 0.15) and neg = -y on x = [0.1, 0.2, -0.3, 1e-45] (y[4] stays 9).
TEST(ChatPanel, AFloatKernelsRegistersAndArraysReadAsFloats) {
  const engine::Model& m = test_util::gpu_model(engine::DType::f32);
  const std::string file = std::string(QGPU_SOURCE_DIR) + "/kernels/clamp_float.cu";
  CompileOptions o{.file = file};
  o.launch.block_x = 5;
  for (const char* a : {"x=[0.1,0.2,-0.3,1e-45,-0]", "lo=0", "hi=0.15", "y=[9,9,9,9,9]", "neg=[9,9,9,9,9]", "n=4"})
    o.args.push_back(parse_kernel_arg(a));
  const CompiledKernel k = compile_cuda(test_util::read_file(file), o);
  const Program& p = k.program;
  // As the TUI does: the state read at some tokens (the prompt, every 5th record, the end),
  // every other record only followed.
  std::optional<PanelSnapshot> last;
  int64_t n = 0;
  host::RecordHook hook = [&](const Rec* record, const engine::State& state) {
    const LaunchFeed feed{m, state, record, n, 1, p, p.launch};
    if (!record || record->kind == Tok::kEnd || n % 5 == 0) {
      last = read_snapshot(feed, last ? &*last : nullptr);
    } else {
      note_record(*last, feed);
    }
    ++n;
    return true;
  };
  host::generate_launch(m, {.threads = 1, .skip_zero_rows = true}, encode_image(p, p.launch), 100000, hook);
  ASSERT_TRUE(last.has_value());
  const std::vector<std::string> lines = render_panel(*last, 200);
  for (const std::string& line : lines) std::cout << line << "\n";
  const std::map<int, std::string> mem = memory_cells(lines);
  auto array = [&](const std::string& name) {
    std::vector<std::string> got;
    for (const Array& a : p.arrays)
      for (int i = a.base; a.name == name && i < a.base + a.size; ++i) got.push_back(mem.count(i) ? mem.at(i) : "?");
    return got;
  };
  EXPECT_EQ(array("y"), (std::vector<std::string>{"0.1", "0.15", "0", "1e-45", "9"}));
  EXPECT_EQ(array("neg"), (std::vector<std::string>{"-0.1", "-0.15", "-0", "-1e-45", "9"}));
  EXPECT_EQ(array("x"), (std::vector<std::string>{"0.1", "0.2", "-0.3", "1e-45", "-0"}));
  // Registers: lane l's row holds its y or -y as a float, never their bits as an integer
  // (the allocator gave i and then x[i], y and -y one register), and a register last written
  // by an integer op stays an integer: thread 4 (warp 1, lane 0) left at i >= n with i = 4.
  const std::vector<std::string> y = {"0.1", "0.15", "0", "1e-45"}, minus_y = {"-0.1", "-0.15", "-0", "-1e-45"};
  for (int l = 0; l < 4; ++l) {
    auto row = std::find_if(lines.begin(), lines.end(), [&](const std::string& t) { return t.starts_with(fmt::format("  w0 l{} ", l)); });
    ASSERT_NE(row, lines.end()) << "lane " << l;
    std::istringstream words(*row);
    std::vector<std::string> cells;
    for (std::string w; words >> w;) cells.push_back(w);
    EXPECT_TRUE(std::count(cells.begin(), cells.end(), y[l]) + std::count(cells.begin(), cells.end(), minus_y[l]) > 0) << *row;
  }
  auto w1 = std::find_if(lines.begin(), lines.end(), [&](const std::string& t) { return t.starts_with("  w1 l0 "); });
  ASSERT_NE(w1, lines.end());
  std::istringstream words(*w1);
  std::vector<std::string> cells;
  for (std::string w; words >> w;) cells.push_back(w);
  EXPECT_TRUE(std::count(cells.begin(), cells.end(), "4") > 0) << *w1;
  for (const std::string& line : lines) EXPECT_EQ(line.find("1036831949"), std::string::npos) << line;  // 0.1f's bits
}

}  // namespace
}  // namespace qgpu::chat
