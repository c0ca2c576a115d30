// The reference interpreter, checked against hand-computed results and record sequences.
//
// Each test assembles a small program, runs it through qgpu::run and checks its outputs
// and, where the order is the point (divergence, barriers, atomics, waves), the records.
// The expected values in the comments are worked out by hand from docs/isa.md, not
// copied from a run.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "base/error.h"
#include "gpu/interp.h"

namespace qgpu {
namespace {

Trace run_text(std::string_view text, const RunOptions& options = {}) {
  Program p = assemble(text, "test.qasm");
  return run(p, p.launch, options);
}

// The final contents of array `name` as signed words.
std::vector<int32_t> output(std::string_view text, const Trace& t, std::string_view name) {
  Program p = assemble(text, "test.qasm");
  for (const Array& a : p.arrays)
    if (a.name == name) {
      std::vector<int32_t> v;
      for (uint32_t x : read_array(t.final, a)) v.push_back(static_cast<int32_t>(x));
      return v;
    }
  ADD_FAILURE() << "no array " << name;
  return {};
}

std::vector<std::string> texts(const std::vector<Rec>& records) {
  std::vector<std::string> out;
  for (const Rec& r : records) out.push_back(record_text(r));
  return out;
}

// "w0 b3 {0,1}" for every sched record, in order.
std::vector<std::string> scheds(const Trace& t) {
  std::vector<std::string> out;
  for (const Rec& r : t.records)
    if (r.kind == Tok::kSched) out.push_back(record_text(r).substr(6));
  return out;
}

// The masks of the sched records that ran `block` (of any warp), in order.
std::vector<int> masks_at(const Trace& t, int block) {
  std::vector<int> out;
  for (const Rec& r : t.records)
    if (r.kind == Tok::kSched && r.y == block) out.push_back(r.z);
  return out;
}

int count_text(const Trace& t, std::string_view text) {
  return static_cast<int>(std::count_if(t.records.begin(), t.records.end(),
                                        [&](const Rec& r) { return record_text(r) == text; }));
}

// Runs and expects an Error with exactly this message.
void expect_error(const std::function<void()>& f, const std::string& message) {
  try {
    f();
    ADD_FAILURE() << "no error; expected: " << message;
  } catch (const Error& e) {
    EXPECT_EQ(e.what(), message);
  }
}

// ---- Record sequences.

// One warp of four lanes; every kind of step record appears once. r0 is the lane's
// byte offset 4 * lane (addresses are bytes; word = byte / 4).
constexpr std::string_view kTiny = R"(
.block 4
.array out 8
    shl r0, %laneid, 2       ; b0: one value per lane: 0, 4, 8, 12
    mov r1, -5               ; b1: equal operands: one broadcast value
    mov r2, 0x12345678       ; b2: a 4-byte broadcast value
    mul.lo r3, r0, 250       ; b3: 1000 * lane: lane 0 small, lanes 1..3 4-byte
    setp.lt.u p0, r0, 8      ; b4: pred (lanes 0, 1)
    @p0 mov r4, 9            ; b5: one value for the effective lanes 0, 1
    @p0 bra skip             ; b6: lanes 0, 1 jump
    st [r0+out], r3          ; b7: lanes 2, 3 only: bytes 8, 12 = words 2, 3
skip:
    st [r0+16], r1           ; b8: reconverged: bytes 16..28 = words 4..7
    exit                     ; b9
)";

TEST(Interp, TinyProgramRecordSequence) {
  Trace t = run_text(kTiny);
  std::vector<std::string> want = {
      "sched w0 b0 {0,1,2,3}", "v0:0", "v1:4", "v2:8", "v3:12",
      "sched w0 b1 {0,1,2,3}", "v*:-5",
      "sched w0 b2 {0,1,2,3}", "h*:78", "m1:56", "m2:34", "t:12",
      // 1000 = 0x3e8, 2000 = 0x7d0, 3000 = 0xbb8
      "sched w0 b3 {0,1,2,3}", "v0:0", "h1:e8", "m1:03", "m2:00", "t:00", "h2:d0", "m1:07",
      "m2:00", "t:00", "h3:b8", "m1:0b", "m2:00", "t:00",
      "sched w0 b4 {0,1,2,3}", "pred {0,1} of {0,1,2,3}",
      "sched w0 b5 {0,1,2,3}", "v{0,1}:9",
      "sched w0 b6 {0,1,2,3}", "br {0,1}",
      "sched w0 b7 {2,3}", "st l2 @m2", "st l3 @m3",
      "sched w0 b8 {0,1,2,3}", "st l0 @m4", "st l1 @m5", "st l2 @m6", "st l3 @m7",
      "sched w0 b9 {0,1,2,3}",
      "end"};
  EXPECT_EQ(texts(t.records), want);
  EXPECT_EQ(output(kTiny, t, "out"), (std::vector<int32_t>{0, 0, 2000, 3000, -5, -5, -5, -5}));
  const auto& lanes = t.final.lane[0];
  EXPECT_EQ(lanes[0].r[2], 0x12345678u);
  EXPECT_EQ(lanes[3].r[3], 3000u);
  EXPECT_TRUE(lanes[1].r_written >> 4 & 1);   // the guard passed
  EXPECT_FALSE(lanes[2].r_written >> 4 & 1);  // the guard failed: r4 untouched
  EXPECT_TRUE(t.final.lane[1][0].exited);  // warp 1 never ran (4 threads)
}

TEST(Interp, PromptOfTinyProgram) {
  Program p = assemble(kTiny, "tiny.qasm");
  std::vector<std::string> prompt = texts(encode_image(p, p.launch));
  std::vector<std::string> head(prompt.begin(), prompt.begin() + 15);
  EXPECT_EQ(head, (std::vector<std::string>{"begin", "gx=1", "gy=1", "bx=4", "by=1", "@b0",
                                            "op:shl", "d:r0", "a:%laneid", "b:imm", "v=:2",
                                            "@b1", "op:mov", "d:r1", "a:imm"}));
  EXPECT_EQ(prompt[15], "v=:-5");
  EXPECT_EQ(prompt.back(), "run");
}

// ---- Divergence and reconvergence.

constexpr std::string_view kParity = R"(
.block 8
.array out 8
    mov r0, %tid.x           ; b0
    and r1, r0, 1            ; b1
    setp.ne p0, r1, 0        ; b2: p0 = odd
    @p0 bra odd              ; b3
    shr.u r2, r0, 1          ; b4: even lanes
    bra join                 ; b5
odd:
    mul.lo r2, r0, 3         ; b6: odd lanes
join:
    add r2, r2, 100          ; b7: all lanes again
    shl r3, r0, 2            ; b8: 4i, the byte offset of out[i]
    st [r3+out], r2          ; b9
    exit                     ; b10
)";

TEST(Interp, IfElseSplitsAndReconverges) {
  Trace t = run_text(kParity);
  EXPECT_EQ(output(kParity, t, "out"),
            (std::vector<int32_t>{100, 103, 101, 109, 102, 115, 103, 121}));
  std::vector<std::string> want = {
      "w0 b0 {0,1,2,3}", "w1 b0 {0,1,2,3}", "w0 b1 {0,1,2,3}", "w1 b1 {0,1,2,3}",
      "w0 b2 {0,1,2,3}", "w1 b2 {0,1,2,3}", "w0 b3 {0,1,2,3}", "w1 b3 {0,1,2,3}",
      "w0 b4 {0,2}",     "w1 b4 {0,2}",     "w0 b5 {0,2}",     "w1 b5 {0,2}",
      "w0 b6 {1,3}",     "w1 b6 {1,3}",     // the odd lanes, then the join has every lane
      "w0 b7 {0,1,2,3}", "w1 b7 {0,1,2,3}", "w0 b8 {0,1,2,3}", "w1 b8 {0,1,2,3}",
      "w0 b9 {0,1,2,3}", "w1 b9 {0,1,2,3}", "w0 b10 {0,1,2,3}", "w1 b10 {0,1,2,3}"};
  EXPECT_EQ(scheds(t), want);
  EXPECT_EQ(count_text(t, "br {1,3}"), 2);
  EXPECT_EQ(count_text(t, "br {0,2}"), 2);  // the unguarded 'bra join' of the even lanes
}

constexpr std::string_view kNested = R"(
.block 4
.array out 4
    mov r0, %laneid          ; b0
    setp.ge.u p0, r0, 2      ; b1
    @p0 bra outer_else       ; b2: lanes 2, 3 jump
    setp.eq p1, r0, 0        ; b3: lanes 0, 1
    @p1 bra inner_else       ; b4: lane 0 jumps
    mov r1, 10               ; b5: lane 1
    bra inner_join           ; b6
inner_else:
    mov r1, 20               ; b7: lane 0
inner_join:
    add r1, r1, 1            ; b8: lanes 0, 1 again
    bra outer_join           ; b9
outer_else:
    mov r1, 30               ; b10: lanes 2, 3
outer_join:
    add r1, r1, 100          ; b11: every lane again
    shl r2, r0, 2            ; b12: 4 * lane, the byte offset of out[lane]
    st [r2+out], r1          ; b13
    exit                     ; b14
)";

TEST(Interp, NestedDivergenceReconvergesInnerThenOuter) {
  Trace t = run_text(kNested);
  EXPECT_EQ(output(kNested, t, "out"), (std::vector<int32_t>{121, 111, 130, 130}));
  std::vector<std::string> want = {
      "w0 b0 {0,1,2,3}", "w0 b1 {0,1,2,3}", "w0 b2 {0,1,2,3}", "w0 b3 {0,1}",
      "w0 b4 {0,1}",     "w0 b5 {1}",       "w0 b6 {1}",       "w0 b7 {0}",
      "w0 b8 {0,1}",     "w0 b9 {0,1}",     "w0 b10 {2,3}",    "w0 b11 {0,1,2,3}",
      "w0 b12 {0,1,2,3}", "w0 b13 {0,1,2,3}", "w0 b14 {0,1,2,3}"};
  EXPECT_EQ(scheds(t), want);
  // Operands equal across the effective lanes: one value for both.
  EXPECT_EQ(count_text(t, "v{2,3}:30"), 1);
}

// ---- Loops.

constexpr std::string_view kSumTo = R"(
.block 4
.array n 4 = 0, 1, 3, 5
.array out 4
    shl r0, %laneid, 2       ; b0: 4 * lane, the lane's byte offset
    ld r1, [r0+n]            ; b1
    mov r2, 0                ; b2: sum
again:
    setp.eq p0, r1, 0        ; b3
    @p0 bra done             ; b4
    add r2, r2, r1           ; b5: the body
    sub r1, r1, 1            ; b6
    bra again                ; b7
done:
    st [r0+out], r2          ; b8
    exit                     ; b9
)";

TEST(Interp, LoopWithPerLaneTripCounts) {
  Trace t = run_text(kSumTo);
  EXPECT_EQ(output(kSumTo, t, "out"), (std::vector<int32_t>{0, 1, 6, 15}));
  // Trip counts 0, 1, 3, 5: the body runs five times with a shrinking mask.
  EXPECT_EQ(masks_at(t, 5), (std::vector<int>{0b1110, 0b1100, 0b1100, 0b1000, 0b1000}));
  // The loop test runs once more than the body, each time for the lanes still looping.
  EXPECT_EQ(masks_at(t, 3), (std::vector<int>{0b1111, 0b1110, 0b1100, 0b1100, 0b1000, 0b1000}));
  // Lanes that leave early wait at 'done' (a higher PC) until the last one arrives.
  EXPECT_EQ(masks_at(t, 8), (std::vector<int>{0b1111}));
}

// ---- Barriers.

// Warp w spins w times before writing, so warp 3 reaches the barrier last; after the
// barrier every thread reads the word written by thread t + 4, in the next warp.
constexpr std::string_view kBarrier = R"(
.block 16
.array buf 16
.array out 16
    shl r0, %tid.x, 2        ; b0: 4t, the thread's byte offset
    mov r1, %warpid          ; b1
    mov r2, 0                ; b2
spin:
    setp.ge.u p0, r2, r1     ; b3
    @p0 bra go               ; b4
    add r2, r2, 1            ; b5
    bra spin                 ; b6
go:
    mul.lo r3, %tid.x, 10    ; b7
    st [r0+buf], r3          ; b8
    bar                      ; b9
    add r4, r0, 16           ; b10: 4(t + 4)
    and r4, r4, 63           ; b11: 4((t + 4) % 16)
    ld r5, [r4+buf]          ; b12: written by another warp before the barrier
    st [r0+out], r5          ; b13
    bar                      ; b14
    exit                     ; b15
)";

TEST(Interp, BarrierMakesOtherWarpsWritesVisible) {
  Trace t = run_text(kBarrier);
  std::vector<int32_t> want;
  for (int i = 0; i < 16; ++i) want.push_back((i + 4) % 16 * 10);
  EXPECT_EQ(output(kBarrier, t, "out"), want);
  EXPECT_EQ(count_text(t, "bar c0 ^1"), 1);
  EXPECT_EQ(count_text(t, "bar c0 ^0"), 1);  // the parity flips back at the second barrier
}

TEST(Interp, BarrierReleasesWhenTheLastWarpArrives) {
  Trace t = run_text(kBarrier);
  std::vector<std::string> r = texts(t.records);
  auto release = std::find(r.begin(), r.end(), "bar c0 ^1");
  ASSERT_NE(release, r.end());
  EXPECT_EQ(*(release - 1), "sched w3 b9 {0,1,2,3}");  // warp 3 spun longest
  std::vector<std::string> at_bar;
  for (auto it = r.begin(); it != release; ++it)
    if (it->starts_with("sched") && it->find(" b9 ") != std::string::npos) at_bar.push_back(*it);
  EXPECT_EQ(at_bar, (std::vector<std::string>{"sched w0 b9 {0,1,2,3}", "sched w1 b9 {0,1,2,3}",
                                              "sched w2 b9 {0,1,2,3}", "sched w3 b9 {0,1,2,3}"}));
  // The record after the release resumes past the barrier.
  EXPECT_EQ(*(release + 1), "sched w0 b10 {0,1,2,3}");
}

TEST(Interp, WarpsWaitingAtABarrierAreNotScheduled) {
  std::array<bool, kWarps> waiting{};
  RunOptions o;
  o.on_record = [&](const Rec& r, const MachineState& s) {
    if (r.kind == Tok::kSched) {
      EXPECT_FALSE(waiting[r.x]) << record_text(r);
      if (r.y == 9 || r.y == 14) {
        waiting[r.x] = true;
        for (int j = 0; j < kLanes; ++j) EXPECT_TRUE(lane_waiting(s, r.x, j));
      }
    }
    if (r.kind == Tok::kBar) {
      EXPECT_EQ(waiting, (std::array<bool, kWarps>{true, true, true, true}));
      waiting = {};
      for (int w = 0; w < kWarps; ++w)
        for (int j = 0; j < kLanes; ++j) EXPECT_FALSE(lane_waiting(s, w, j));
    }
  };
  run_text(kBarrier, o);
}

TEST(Interp, ExitedThreadsDoNotHoldABarrier) {
  constexpr std::string_view text = R"(
.block 8
.array out 8
    mov r0, %tid.x
    setp.ge.u p0, r0, 6
    @p0 exit                 ; threads 6, 7 leave before the barrier
    shl r3, r0, 2            ; 4t, the byte offset of out[t]
    st [r3+out], r0
    bar                      ; threads 0..5 are all that remain
    xor r1, r3, 4            ; 4(t ^ 1): the neighbour in the pair
    ld r2, [r1+out]
    st [r3+out], r2
    exit
)";
  Trace t = run_text(text);
  EXPECT_EQ(output(text, t, "out"), (std::vector<int32_t>{1, 0, 3, 2, 5, 4, 0, 0}));
  EXPECT_EQ(count_text(t, "bar c0 ^1"), 1);
}

// ---- Atomics.

constexpr std::string_view kAtomics = R"(
.block 16
.array sum 1
.array zero 1
.array last 1 = -1
.array lock 1 = -1
.array big 1 = 1000000
.array prev 16
.array got 16
    shl r0, %tid.x, 2                   ; b0: 4t, the thread's byte offset
    add r1, %tid.x, 1                   ; b1
    atom.add r2, [sum], r1              ; b2: sum += t + 1
    mov r3, 0                           ; b3
    atom.add r4, [zero], r3             ; b4: equal old values, still one record per lane
    atom.exch r5, [last], %tid.x        ; b5: r5 = the thread before this one
    st [r0+prev], r5                    ; b6
    mov r6, -1                          ; b7
    atom.cas r7, [lock], r6, %tid.x     ; b8: only the first thread finds -1
    st [r0+got], r7                     ; b9
    atom.add r8, [big], r1              ; b10: 4-byte old values
    exit                                ; b11
)";

TEST(Interp, AtomicsFromFourWarps) {
  Trace t = run_text(kAtomics);
  EXPECT_EQ(output(kAtomics, t, "sum"), (std::vector<int32_t>{136}));  // 1 + ... + 16
  EXPECT_EQ(output(kAtomics, t, "zero"), (std::vector<int32_t>{0}));
  EXPECT_EQ(output(kAtomics, t, "last"), (std::vector<int32_t>{15}));
  EXPECT_EQ(output(kAtomics, t, "lock"), (std::vector<int32_t>{0}));
  EXPECT_EQ(output(kAtomics, t, "big"), (std::vector<int32_t>{1000136}));
  std::vector<int32_t> prev, got(16, 0);
  for (int i = 0; i < 16; ++i) prev.push_back(i - 1);
  got[0] = -1;
  EXPECT_EQ(output(kAtomics, t, "prev"), prev);  // thread order 0, 1, ..., 15
  EXPECT_EQ(output(kAtomics, t, "got"), got);
}

// The records after `sched` of warp w at block b, up to the next sched.
std::vector<std::string> step_records(const Trace& t, int w, int b) {
  std::vector<std::string> out;
  for (size_t i = 0; i < t.records.size(); ++i) {
    const Rec& r = t.records[i];
    if (r.kind != Tok::kSched || r.x != w || r.y != b) continue;
    for (size_t k = i + 1; k < t.records.size() && t.records[k].kind != Tok::kSched; ++k)
      out.push_back(record_text(t.records[k]));
    break;
  }
  return out;
}

TEST(Interp, AtomicsAreSerialisedLaneByLane) {
  Trace t = run_text(kAtomics);
  // Old values of sum += t + 1, warp 0 then warp 1: running sums 0, 1, 3, 6 | 10, 15, 21, 28.
  EXPECT_EQ(step_records(t, 0, 2), (std::vector<std::string>{"v0:0", "v1:1", "v2:3", "v3:6"}));
  EXPECT_EQ(step_records(t, 1, 2),
            (std::vector<std::string>{"v0:10", "v1:15", "v2:21", "v3:28"}));
  // Equal old values are never merged into one broadcast record.
  EXPECT_EQ(step_records(t, 3, 4), (std::vector<std::string>{"v0:0", "v1:0", "v2:0", "v3:0"}));
  // exch: each lane sees the previous lane's id.
  EXPECT_EQ(step_records(t, 0, 5), (std::vector<std::string>{"v0:-1", "v1:0", "v2:1", "v3:2"}));
  EXPECT_EQ(step_records(t, 2, 5), (std::vector<std::string>{"v0:7", "v1:8", "v2:9", "v3:10"}));
  // cas: lane 0 of warp 0 finds -1 and writes 0; everyone after finds 0.
  EXPECT_EQ(step_records(t, 0, 8), (std::vector<std::string>{"v0:-1", "v1:0", "v2:0", "v3:0"}));
  // 1000000 = 0x0f4240; lane 1 sees 1000001 = 0x0f4241.
  std::vector<std::string> big = step_records(t, 0, 10);
  ASSERT_EQ(big.size(), 16u);
  EXPECT_EQ(std::vector<std::string>(big.begin(), big.begin() + 8),
            (std::vector<std::string>{"h0:40", "m1:42", "m2:0f", "t:00", "h1:41", "m1:42",
                                      "m2:0f", "t:00"}));
}

TEST(Interp, AtomicMemoryChangesWhenItsValueIsConsumed) {
  Program p = assemble(kAtomics, "atomics.qasm");
  const int sum = p.arrays[0].base, big = p.arrays[4].base;
  std::optional<uint32_t> before;
  RunOptions o;
  o.on_record = [&](const Rec& r, const MachineState& s) {
    bool in_add = s.step.y == 2 || s.step.y == 10;
    int addr = s.step.y == 2 ? sum : big;
    if (r.kind == Tok::kSched) before = in_add ? std::optional(s.mem[addr]) : std::nullopt;
    if (!in_add || r.kind == Tok::kSched) return;
    if (r.kind == Tok::kSmall || r.kind == Tok::kTail) {
      int tag = r.kind == Tok::kSmall ? r.x : s.window[0].x;  // one lane: the tag's one bit
      uint32_t add = s.lane[s.step.x][std::countr_zero(static_cast<unsigned>(tag))].r[1];
      EXPECT_EQ(s.mem[addr], *before + add) << record_text(r);  // one lane's update, now
      before = s.mem[addr];
    } else {
      EXPECT_EQ(s.mem[addr], *before) << record_text(r);  // not before the value is whole
    }
  };
  run(p, p.launch, o);
}

// ---- Waves and launch shapes.

TEST(Interp, WavesReuseTheWarps) {
  // 5 CUDA blocks of 8 threads: 2 per wave (warps 0-1, 2-3), so 3 waves, the last half full.
  constexpr std::string_view text = R"(
.grid 5
.block 8
.array out 40
.array slot 5
    mov r0, %ctaid.x
    mad.lo r1, r0, %ntid.x, %tid.x
    shl r1, r1, 2             ; the byte offset of out[ctaid * 8 + tid]
    mul.lo r2, r0, 100
    add r2, r2, %tid.x
    st [r1+out], r2
    shl r4, r0, 2             ; the byte offset of slot[ctaid]
    mov r3, %warpid
    st [r4+slot], r3          ; every thread of the block writes its warp; the last wins
    exit
)";
  Trace t = run_text(text);
  std::vector<int32_t> out;
  for (int b = 0; b < 5; ++b)
    for (int i = 0; i < 8; ++i) out.push_back(b * 100 + i);
  EXPECT_EQ(output(text, t, "out"), out);
  EXPECT_EQ(output(text, t, "slot"), (std::vector<int32_t>{1, 3, 1, 3, 1}));
  std::vector<std::string> waves;
  std::set<int> warps_in_last_wave;
  int wave = 0;
  for (const Rec& r : t.records) {
    if (r.kind == Tok::kWave) waves.push_back(record_text(r)), wave = r.x;
    if (r.kind == Tok::kSched && wave == 2) warps_in_last_wave.insert(r.x);
  }
  EXPECT_EQ(waves, (std::vector<std::string>{"wave 1", "wave 2"}));
  EXPECT_EQ(warps_in_last_wave, (std::set<int>{0, 1}));
  EXPECT_EQ(t.final.wave, 2);
}

TEST(Interp, NewWaveStartsEveryThreadAfresh) {
  Program p = assemble(".grid 3\n.block 16\nmov r0, %ctaid.x\nexit\n", "w.qasm");
  bool all_exited = false;
  RunOptions o;
  o.on_record = [&](const Rec& r, const MachineState& s) {
    bool before = all_exited;
    all_exited = true;
    for (const auto& warp : s.lane)
      for (const LaneState& l : warp) all_exited &= l.exited;
    if (r.kind != Tok::kWave) return;
    EXPECT_TRUE(before);  // the previous wave had finished
    for (int w = 0; w < kWarps; ++w)
      for (int j = 0; j < kLanes; ++j) {
        EXPECT_FALSE(s.lane[w][j].exited);  // the new wave's threads all start
        EXPECT_EQ(s.lane[w][j].pc, 0);
        EXPECT_EQ(s.lane[w][j].r_written, 0);
        EXPECT_EQ(special_value(s, w, j, Special::kCtaidX), static_cast<uint32_t>(r.x));
      }
  };
  Trace t = run(p, p.launch, o);
  EXPECT_EQ(count_text(t, "wave 1") + count_text(t, "wave 2"), 2);
  EXPECT_EQ(t.final.lane[3][3].r[0], 2u);
}

TEST(Interp, TwoDimensionalLaunchSpecials) {
  // Grid 2x2 of CUDA blocks of 3x2 threads: 6 threads = 2 warps (lanes 2, 3 of the second
  // idle), 2 CUDA blocks per wave, 2 waves. Thread (x, y) of block (cx, cy) is global
  // thread g = (cy * 2 + cx) * 6 + y * 3 + x.
  constexpr std::string_view text = R"(
.grid 2 2
.block 3 2
.array ids 24
.array lanes 24
.array dims 4
    mov r0, %ctaid.y
    mad.lo r0, r0, %nctaid.x, %ctaid.x   ; block number
    mul.lo r1, r0, 6
    mad.lo r1, %tid.y, %ntid.x, r1
    add r1, r1, %tid.x                   ; g
    shl r1, r1, 2                        ; 4g: the byte offset of element g
    mul.lo r2, %ctaid.y, 1000
    mad.lo r2, %ctaid.x, 100, r2
    mad.lo r2, %tid.y, 10, r2
    add r2, r2, %tid.x
    st [r1+ids], r2                      ; 1000 cy + 100 cx + 10 y + x
    mul.lo r3, %warpid, 10
    add r3, r3, %laneid
    st [r1+lanes], r3                    ; 10 warp + lane
    st [dims], %ntid.x
    st [dims+4], %ntid.y
    st [dims+8], %nctaid.x
    st [dims+12], %nctaid.y
    exit
)";
  Trace t = run_text(text);
  std::vector<int32_t> ids, lanes;
  for (int cy = 0; cy < 2; ++cy)
    for (int cx = 0; cx < 2; ++cx)
      for (int y = 0; y < 2; ++y)
        for (int x = 0; x < 3; ++x) {
          int tid = y * 3 + x, slot = (cy * 2 + cx) % 2;
          ids.push_back(1000 * cy + 100 * cx + 10 * y + x);
          lanes.push_back(10 * (slot * 2 + tid / 4) + tid % 4);
        }
  EXPECT_EQ(output(text, t, "ids"), ids);
  EXPECT_EQ(output(text, t, "lanes"), lanes);
  EXPECT_EQ(output(text, t, "dims"), (std::vector<int32_t>{3, 2, 2, 2}));
  EXPECT_EQ(count_text(t, "wave 1"), 1);
  // The second warp of a CUDA block has two threads: lanes 0, 1.
  EXPECT_EQ(masks_at(t, 0), (std::vector<int>{0b1111, 0b0011, 0b1111, 0b0011,    // wave 0
                                              0b1111, 0b0011, 0b1111, 0b0011}));  // wave 1
}

// ---- Guards on non-branch instructions.

TEST(Interp, GuardedMovAndStore) {
  constexpr std::string_view text = R"(
.block 4
.array out 4
    shl r0, %laneid, 2       ; b0: 4 * lane, the lane's byte offset
    setp.eq p0, r0, 4        ; b1: lane 1
    setp.ge.u p1, r0, 8      ; b2: lanes 2, 3
    setp.gt.u p2, r0, 36     ; b3: no lane
    mov r1, 7                ; b4
    @p0 mov r1, 5            ; b5: lane 1 only
    @!p1 st [r0+out], r1     ; b6: lanes 0, 1 only
    @!p1 mov r2, 3           ; b7: lanes 0, 1, one value
    @p2 mov r3, 1            ; b8: no lane: no record
    @p2 st [r0+out], r0      ; b9: no lane: no record
    @!p2 add r1, r1, %laneid ; b10: every lane
    exit                     ; b11
)";
  Trace t = run_text(text);
  EXPECT_EQ(output(text, t, "out"), (std::vector<int32_t>{7, 5, 0, 0}));
  EXPECT_EQ(step_records(t, 0, 1), (std::vector<std::string>{"pred {1} of {0,1,2,3}"}));
  EXPECT_EQ(step_records(t, 0, 3), (std::vector<std::string>{"pred {} of {0,1,2,3}"}));
  EXPECT_EQ(step_records(t, 0, 5), (std::vector<std::string>{"v1:5"}));
  EXPECT_EQ(step_records(t, 0, 6), (std::vector<std::string>{"st l0 @m0", "st l1 @m1"}));
  EXPECT_EQ(step_records(t, 0, 7), (std::vector<std::string>{"v{0,1}:3"}));
  EXPECT_EQ(step_records(t, 0, 8), std::vector<std::string>{});
  EXPECT_EQ(step_records(t, 0, 9), std::vector<std::string>{});
  EXPECT_EQ(step_records(t, 0, 10), (std::vector<std::string>{"v0:7", "v1:6", "v2:9", "v3:10"}));
  for (int j = 0; j < kLanes; ++j) {
    EXPECT_EQ(t.final.lane[0][j].r_written >> 2 & 1, j < 2) << "lane " << j;
    EXPECT_EQ(t.final.lane[0][j].r_written >> 3 & 1, 0) << "lane " << j;
  }
}

// ---- Traps.

TEST(Interp, TrapReadingAnUnwrittenRegister) {
  expect_error([] { run_text("    add r1, r0, 1\n    exit\n"); },
               "trap: warp 0 lane 0 at block 0 (add r1, r0, 1): reads r0 before any write");
}

TEST(Interp, TrapReadingAnUnwrittenGuard) {
  expect_error([] { run_text("    @p2 mov r0, 1\n    exit\n"); },
               "trap: warp 0 lane 0 at block 0 (@p2 mov r0, 1): reads p2 before any write");
}

TEST(Interp, GuardedOffLanesStillReadTheirOperands) {
  // Every lane in the step's mask reads its operands, whatever its guard: lane 1 never
  // wrote r1, so the step traps even though only lane 0 would use the result.
  expect_error(
      [] {
        run_text(
            "    mov r0, %laneid\n    setp.eq p0, r0, 0\n    @p0 mov r1, 1\n"
            "    @p0 add r2, r1, 1\n    exit\n");
      },
      "trap: warp 0 lane 1 at block 3 (@p0 add r2, r1, 1): reads r1 before any write");
}

TEST(Interp, RegistersDoNotSurviveAWave) {
  // CUDA block 1 runs in wave 1 on the warps of block 0; r1 still holds block 0's 5, but a
  // new wave has written nothing yet.
  expect_error(
      [] {
        run_text(
            ".grid 2\n.block 16\n    mov r0, %ctaid.x\n    setp.eq p0, r0, 0\n"
            "    @p0 mov r1, 5\n    mov r2, r1\n    exit\n");
      },
      "trap: warp 0 lane 0 at block 3 (mov r2, r1): reads r1 before any write");
}

TEST(Interp, TrapAddressOutsideMemory) {
  // 126 words are byte addresses 0..503; 504 is the first one past the end.
  expect_error([] { run_text(".array a 1\n    mov r0, 500\n    ld r1, [r0+4]\n    exit\n"); },
               "trap: warp 0 lane 0 at block 1 (ld r1, [r0+4]): byte address 504 is outside "
               "global memory (0..503, 126 words)");
  // Below 0: lane 0's 0 - 4 wraps to 0xfffffffc, reported as -4.
  expect_error(
      [] { run_text(".array a 4\n    shl r0, %laneid, 2\n    st [r0-4], r0\n    exit\n"); },
      "trap: warp 0 lane 0 at block 1 (st [r0-4], r0): byte address -4 is outside global "
      "memory (0..503, 126 words)");
  // An atomic checks its address too.
  expect_error(
      [] { run_text("    mov r0, 1\n    atom.add r1, [r0+600], r0\n    exit\n"); },
      "trap: warp 0 lane 0 at block 1 (atom.add r1, [r0+600], r0): byte address 601 is "
      "outside global memory (0..503, 126 words)");
}

TEST(Interp, TrapAddressNotAMultipleOfFour) {
  // An element index used as the address: lane 0's byte 0 is word 0 (one value record for
  // lane 0), lane 1's byte 1 is not a word.
  expect_error(
      [] {
        run_text(".array a 4 = 1, 2, 3, 4\n    mov r0, %laneid\n    ld r1, [r0+a]\n    exit\n");
      },
      "trap: warp 0 lane 1 at block 1 (ld r1, [r0]): byte address 1 is not a multiple of 4");
  expect_error([] { run_text(".array a 4\n    mov r0, 7\n    st [a+2], r0\n    exit\n"); },
               "trap: warp 0 lane 0 at block 1 (st [2], r0): byte address 2 is not a multiple "
               "of 4");
  // Checked before the old word is read (word 1 is unwritten here).
  expect_error(
      [] { run_text("    mov r0, 3\n    atom.add r1, [r0+4], r0\n    exit\n"); },
      "trap: warp 0 lane 0 at block 1 (atom.add r1, [r0+4], r0): byte address 7 is not a "
      "multiple of 4");
}

TEST(Interp, NegativeOffsetsWrapAt32Bits) {
  // Byte address = base + offset mod 2^32, then word = byte / 4.
  constexpr std::string_view text = R"(
.block 1
.array a 4 = 10, 20, 30, 40  ; words 0..3, bytes 0..15
.array out 2                 ; words 4, 5, bytes 16..23
    mov r0, 8                ; b0
    ld r1, [r0-4]            ; b1: byte 8 - 4 = 4, word 1: 20
    mov r2, -4               ; b2: 0xfffffffc
    ld r3, [r2+12]           ; b3: 0xfffffffc + 12 wraps to byte 8, word 2: 30
    st [out], r1             ; b4: word 4
    st [r0+out-4], r3        ; b5: 8 + 16 - 4 = byte 20, word 5
    mov r4, 500              ; b6
    st [r4], r1              ; b7: byte 500 is the last word, 125
    exit                     ; b8
)";
  Trace t = run_text(text);
  std::vector<std::string> want = {
      "sched w0 b0 {0}", "v0:8",
      "sched w0 b1 {0}", "v0:20",
      "sched w0 b2 {0}", "v0:-4",
      "sched w0 b3 {0}", "v0:30",
      "sched w0 b4 {0}", "st l0 @m4",
      "sched w0 b5 {0}", "st l0 @m5",
      "sched w0 b6 {0}", "v0:500",  // 500 = 0x1f4
      "sched w0 b7 {0}", "st l0 @m125",
      "sched w0 b8 {0}",
      "end"};
  EXPECT_EQ(texts(t.records), want);
  EXPECT_EQ(output(text, t, "out"), (std::vector<int32_t>{20, 30}));
  EXPECT_EQ(t.final.mem[125], 20u);
}

TEST(Interp, TrapLoadingAnUnwrittenWord) {
  // Words outside every array are never written by the image.
  expect_error([] { run_text(".array a 2\n    ld r1, [200]\n    exit\n"); },
               "trap: warp 0 lane 0 at block 0 (ld r1, [200]): reads memory word 50 before any "
               "write");
  // An atomic reads the old word first.
  expect_error(
      [] { run_text("    mov r0, 1\n    atom.add r1, [28], r0\n    exit\n"); },
      "trap: warp 0 lane 0 at block 1 (atom.add r1, [28], r0): reads memory word 7 before any "
      "write");
}

TEST(Interp, KernelThatNeverEnds) {
  RunOptions o;
  o.max_records = 1000;
  expect_error([&] { run_text("spin:\n    bra spin\n", o); },
               "the launch did not end within 1000 records: the kernel may loop forever (raise "
               "the limit if it is just long)");
}

TEST(Interp, LaunchLimits) {
  Program p = assemble("    exit\n", "x.qasm");
  expect_error([&] { run(p, Launch{.grid_x = 257}); },
               "grid 257x1 = 257 CUDA blocks; a launch runs at most 256 (1 too many): use fewer, "
               "larger CUDA blocks or loop inside the kernel");
  expect_error([&] { run(p, Launch{.grid_x = 16, .grid_y = 17}); },
               "grid 16x17 = 272 CUDA blocks; a launch runs at most 256 (16 too many): use "
               "fewer, larger CUDA blocks or loop inside the kernel");
  expect_error([&] { run(p, Launch{.block_x = 17}); },
               "CUDA block 17x1 = 17 threads; the machine has 16 (4 warps of 4 lanes), 1 too "
               "many: use more CUDA blocks");
  expect_error([&] { run(p, Launch{.block_x = 4, .block_y = 5}); },
               "CUDA block 4x5 = 20 threads; the machine has 16 (4 warps of 4 lanes), 4 too "
               "many: use more CUDA blocks");
  // The largest launch runs: 256 CUDA blocks of 16 threads, 256 waves.
  Trace t = run(p, Launch{.grid_x = 256, .block_x = 16});
  EXPECT_EQ(count_text(t, "wave 255"), 1);
}

// ---- Invariants on every record.

// After each record: what may change and what may not, and that a sched record picked
// the warp (round-robin) and the lanes (min-PC) the scheduler must pick.
struct Invariants {
  MachineState prev;
  bool started = false;
  int n_checked = 0;

  void check(const Rec& r, const MachineState& s) {
    ++n_checked;
    EXPECT_TRUE(valid_record(r));
    EXPECT_EQ(decode_token(token_id(r)), r);
    if (started) check_step(r, s);
    prev = s;
    started = true;
  }

  bool runnable(int w, int j) const {
    return !prev.lane[w][j].exited && !lane_waiting(prev, w, j);
  }

  void check_step(const Rec& r, const MachineState& s) {
    EXPECT_EQ(s.consumed, prev.consumed + 1);
    EXPECT_EQ(s.rom, prev.rom);  // the ROM is fixed once running
    EXPECT_EQ(s.launch, prev.launch);
    for (int i = 0; i < kMemWords; ++i) EXPECT_TRUE(!prev.mem_written[i] || s.mem_written[i]);
    if (r.kind != Tok::kBar) {
      EXPECT_EQ(s.bar_parity, prev.bar_parity) << record_text(r);
    }
    if (r.kind == Tok::kSched) check_sched(r);
    EXPECT_EQ(s.wave, prev.wave + (r.kind == Tok::kWave));
    if (r.kind == Tok::kWave) return;  // a new wave resets the lanes
    for (int w = 0; w < kWarps; ++w)
      for (int j = 0; j < kLanes; ++j) check_lane(r, w, j, prev.lane[w][j], s.lane[w][j]);
  }

  // The warps skipped since the last step have no runnable lane; the lanes in the mask
  // are runnable at the block, every other runnable lane of the warp is further ahead.
  void check_sched(const Rec& r) {
    for (int w = (prev.last_warp + 1) % kWarps; w != r.x; w = (w + 1) % kWarps)
      for (int j = 0; j < kLanes; ++j) EXPECT_FALSE(runnable(w, j)) << record_text(r);
    for (int j = 0; j < kLanes; ++j) {
      if (r.z >> j & 1) {
        EXPECT_TRUE(runnable(r.x, j)) << record_text(r);
        EXPECT_EQ(prev.lane[r.x][j].pc, r.y) << record_text(r);
      } else if (runnable(r.x, j)) {
        EXPECT_GT(prev.lane[r.x][j].pc, r.y) << record_text(r);
      }
    }
  }

  // Within a wave: written bits only grow, exited lanes stay exited, and only a sched
  // moves PCs (of the lanes in its mask).
  void check_lane(const Rec& r, int w, int j, const LaneState& a, const LaneState& b) {
    EXPECT_EQ(a.r_written & ~b.r_written, 0) << record_text(r) << " w" << w << " l" << j;
    EXPECT_EQ(a.p_written & ~b.p_written, 0) << record_text(r);
    EXPECT_TRUE(!a.exited || b.exited) << record_text(r);
    bool stepped = r.kind == Tok::kSched && r.x == w && (r.z >> j & 1);
    if (!stepped) {
      EXPECT_EQ(a.pc, b.pc) << record_text(r);
    }
  }
};

std::vector<std::filesystem::path> example_files() {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(QGPU_SOURCE_DIR "/examples"))
    if (e.path().extension() == ".qasm") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Interp, StateStaysConsistentOnEveryExample) {
  std::vector<std::filesystem::path> files = example_files();
  ASSERT_GE(files.size(), 7u);
  for (const auto& f : files) {
    SCOPED_TRACE(f.filename().string());
    Program p = assemble(read_file(f), f.string());
    Invariants inv;
    RunOptions o;
    o.on_record = [&](const Rec& r, const MachineState& s) { inv.check(r, s); };
    Trace t = run(p, p.launch, o);
    EXPECT_EQ(inv.n_checked, static_cast<int>(t.records.size()));
    EXPECT_EQ(t.records.back(), Rec{Tok::kEnd});
    EXPECT_EQ(t.final.phase, Phase::kEnded);
    // Same program, same records: no hidden state between runs.
    EXPECT_EQ(run(p, p.launch).records, t.records);
  }
}

TEST(Interp, ReplayingTheRecordsRebuildsTheState) {
  Program p = assemble(kAtomics, "atomics.qasm");
  Trace t = run(p, p.launch);
  MachineState s;
  for (const Rec& r : t.prompt) apply(s, r);
  for (const Rec& r : t.records) {
    EXPECT_EQ(next_record(s), r);  // the next record is a function of the state alone
    apply(s, r);
  }
  EXPECT_EQ(s, t.final);
}

// ---- apply() on malformed input.

MachineState after(const std::vector<Rec>& records) {
  MachineState s;
  for (const Rec& r : records) apply(s, r);
  return s;
}

const std::vector<Rec> kHeader = {
    {Tok::kBegin}, {Tok::kGridX, 1}, {Tok::kGridY, 1}, {Tok::kBlockX, 4}, {Tok::kBlockY, 1}};

std::vector<Rec> header_then(std::vector<Rec> rest) {
  std::vector<Rec> out = kHeader;
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

TEST(InterpApply, FieldBeforeAnyBlockAddress) {
  expect_error([] { after(header_then({{Tok::kOp, static_cast<int>(Op::kMov)}})); },
               "record 5: 'op:mov' must follow an '@b' block address");
  expect_error([] { after(header_then({{Tok::kMemAt, 3}, {Tok::kFieldD, field_code(reg(0))}})); },
               "record 6: 'd:r0' must follow an '@b' block address");
}

TEST(InterpApply, RunBeforeTheHeader) {
  expect_error([] { after({{Tok::kBegin}, {Tok::kRun}}); },
               "record 1: 'run' before the launch header (gx, gy, bx, by)");
  expect_error([] { after({{Tok::kBegin}, {Tok::kGridX, 2}, {Tok::kBlockX, 4}, {Tok::kRun}}); },
               "record 3: 'run' before the launch header (gx, gy, bx, by)");
  expect_error([] { after({{Tok::kRun}}); },
               "record 0: 'run' ends a prompt that 'begin' started");
}

TEST(InterpApply, ValueBytesOutOfOrder) {
  expect_error([] { after(header_then({{Tok::kMemAt, 0}, {Tok::kTail, 0x12}})); },
               "record 6: 't:12' must follow 'm2'");
  expect_error(
      [] { after(header_then({{Tok::kMemAt, 0}, {Tok::kHead, kTagData, 1}, {Tok::kMid2, 0}})); },
      "record 7: 'm2:00' must follow 'm1'");
  expect_error(
      [] {
        after(header_then({{Tok::kMemAt, 0}, {Tok::kHead, kTagData, 1}, {Tok::kMid1, 0},
                           {Tok::kTail, 0}}));
      },
      "record 8: 't:00' must follow 'm2'");
}

TEST(InterpApply, IncompleteValueIsRejected) {
  // A 4-token value must be whole: nothing else may come between its bytes.
  expect_error(
      [] {
        after(header_then({{Tok::kMemAt, 0}, {Tok::kHead, kTagData, 1}, {Tok::kMemAt, 1}}));
      },
      "record 7: '@m1' cannot follow 'h=:01': the value needs 'm1' next");
  expect_error(
      [] {
        after(header_then({{Tok::kMemAt, 0}, {Tok::kHead, kTagData, 1}, {Tok::kMid1, 2},
                           {Tok::kMid2, 3}, {Tok::kRun}}));
      },
      "record 9: 'run' cannot follow 'm2:03': the value needs 't' next");
}

TEST(InterpApply, RecordsInTheWrongPhase) {
  expect_error([] { after({{Tok::kGridX, 1}}); },
               "record 0: 'gx=1' belongs between 'begin' and 'run'");
  expect_error([] { after(header_then({{Tok::kSched, 0, 0, 1}})); },
               "record 5: 'sched w0 b0 {0}' belongs after 'run'");
  expect_error([] { after(header_then({{Tok::kRomAt, 0}, {Tok::kOp, static_cast<int>(Op::kExit)},
                                       {Tok::kRun}, {Tok::kRomAt, 1}})); },
               "record 8: '@b1' belongs between 'begin' and 'run'");
}

TEST(InterpApply, ImageValues) {
  expect_error([] { after(header_then({{Tok::kSmall, kTagData, 5}})); },
               "record 5: an image value before any '@b' or '@m' address");
  expect_error([] { after(header_then({{Tok::kMemAt, 0}, {Tok::kSmall, 1, 5}})); },
               "record 6: image values need the '=' tag");
  MachineState s = after(header_then({{Tok::kMemAt, 9}, {Tok::kSmall, kTagData, -7},
                                      {Tok::kRomAt, 2}, {Tok::kHead, kTagData, 0x78},
                                      {Tok::kMid1, 0x56}, {Tok::kMid2, 0x34}, {Tok::kTail, 0x12}}));
  EXPECT_EQ(s.mem[9], static_cast<uint32_t>(-7));
  EXPECT_TRUE(s.mem_written[9]);
  EXPECT_FALSE(s.mem_written[8]);
  EXPECT_EQ(s.rom[2].imm, 0x12345678u);
}

TEST(InterpApply, LaunchHeaderOverTheLimits) {
  expect_error(
      [] {
        after({{Tok::kBegin}, {Tok::kGridX, 1}, {Tok::kGridY, 1}, {Tok::kBlockX, 16},
               {Tok::kBlockY, 2}, {Tok::kRun}});
      },
      "record 5: CUDA block 16x2 = 32 threads; the machine has 16 (4 warps of 4 lanes), 16 too "
      "many: use more CUDA blocks");
  expect_error([] { after({{Tok::kBegin}, {Tok::kRomAt, kBlocks}}); },
               "record 1: fields out of range for '@b'");
}

TEST(InterpApply, StepRecordsMustMatchTheStep) {
  // b0 is a 'mov': a pred or st record there is malformed (not a write to p14 or memory).
  std::vector<Rec> prompt = header_then(
      {{Tok::kRomAt, 0}, {Tok::kOp, static_cast<int>(Op::kMov)}, {Tok::kFieldD, field_code(reg(14))},
       {Tok::kFieldA, field_code(imm())}, {Tok::kSmall, kTagData, 1}, {Tok::kRomAt, 1},
       {Tok::kOp, static_cast<int>(Op::kExit)}, {Tok::kRun}, {Tok::kSched, 0, 0, 15}});
  expect_error([&] { auto p = prompt; p.push_back({Tok::kPred, 15, 3}); after(p); },
               "record 14: 'pred {0,1} of {0,1,2,3}' in a step of 'mov'");
  expect_error([&] { auto p = prompt; p.push_back({Tok::kSt, 0, 4}); after(p); },
               "record 14: 'st l0 @m4' in a step of 'mov'");
}

TEST(InterpApply, MalformedRomSlotTraps) {
  // '@b0 op:add' with no operand fields: the step has no register to write.
  std::vector<Rec> prompt = header_then({{Tok::kRomAt, 0}, {Tok::kOp, static_cast<int>(Op::kAdd)}, {Tok::kRun}});
  MachineState s = after(prompt);
  expect_error(
      [&] {
        for (;;) apply(s, next_record(s));
      },
      "trap: warp 0 reached block 0, which holds a malformed 'add': operands do not fit "
      "'add rD, A, B'");
}

// ---- The image rebuilds the ROM.

constexpr std::string_view kEveryOp = R"(
.array buf 4 = 1, 2, 3, -4
    mov r0, %tid.x
    add r1, r0, 5
    sub r2, r1, -7
    mul.lo r3, r1, 0x10000
    mul.hi.s r4, r3, r3
    mul.hi.u r4, r3, %ntid.y
    mad.lo r5, r1, r2, 100000
    div.s r6, r5, -3
    div.u r6, r5, 3
    rem.s r6, r5, r1
    rem.u r6, r5, 7
    neg r7, r6
    abs r7, r7
    min.s r8, r7, -1
    min.u r8, r7, r0
    max.s r8, r8, %ntid.x
    max.u r8, r8, 2
    and r9, r8, 0xff
    or r9, r9, 256
    xor r9, r9, %laneid
    not r10, r9
    shl r10, r10, 3
    shr.u r10, r10, 1
    shr.s r10, r10, 2
    popc r11, r10
    clz r11, r11
    brev r11, r11
    setp.eq p0, r0, 0
    selp r12, r0, r1, p0
    setp.ne p1, r0, 1
    setp.lt.s p2, r0, -1
    setp.le.s p2, r0, r1
    setp.gt.s p2, r0, %ctaid.x
    setp.ge.s p2, r0, 2
    setp.lt.u p2, r0, r1
    setp.le.u p2, r0, 3
    setp.gt.u p2, r0, r1
    setp.ge.u p2, %warpid, r1
    and.pred p3, p0, p1
    or.pred p3, p3, 1
    xor.pred p3, p3, p2
    not.pred p3, p3
    mov.pred p3, 0
    @p0 ld r13, [r0+buf]
    @!p3 st [r0+buf+4], r12
    atom.add r14, [buf], r0
    atom.min.s r14, [r0+buf], r1
    atom.min.u r14, [buf+8], r0
    @!p1 atom.max.s r14, [r0-4], %nctaid.x
    atom.max.u r14, [r0+buf], %nctaid.y
    atom.exch r14, [buf+12], %ctaid.y
    atom.cas r14, [r0+buf], r1, r2
    add.f32 r1, r0, 0f3fc00000
    sub.f32 r2, r1, r0
    mul.f32 r2, r2, r1
    fma.f32 r3, r2, r1, r0
    min.f32 r3, r3, r2
    max.f32 r3, r3, 0f7fffffff
    neg.f32 r4, r3
    abs.f32 r4, r4
    div.f32 r5, r4, r3
    sqrt.f32 r5, r5
    cvt.f32.s32 r6, r0
    cvt.f32.u32 r6, r6
    cvt.s32.f32 r7, r5
    cvt.u32.f32 r7, r5
    cvt.rni.f32 r8, r5
    cvt.rmi.f32 r8, r8
    cvt.rpi.f32 r8, r8
    cvt.rzi.f32 r8, r8
    setp.eq.f32 p0, r8, r5
    setp.ne.f32 p0, r8, 0f80000000
    setp.lt.f32 p0, r8, r5
    setp.le.f32 p0, r8, r5
    setp.gt.f32 p0, r8, r5
    setp.ge.f32 p0, r8, r5
    setp.equ.f32 p0, r8, r5
    setp.neu.f32 p0, r8, r5
    setp.ltu.f32 p0, r8, r5
    setp.leu.f32 p0, r8, r5
    setp.gtu.f32 p0, r8, r5
    setp.geu.f32 p0, r8, r5
    add.f32.sig r9, r5, r8
    add.f32.rnd r9, r9, r5, r8
    bra next
next:
    bar
    exit
)";

TEST(Interp, ImageRebuildsTheRom) {
  Program p = assemble(kEveryOp, "every_op.qasm");
  std::set<Op> used;
  for (const Instr& in : p.code) used.insert(in.op);
  EXPECT_EQ(static_cast<int>(used.size()), kNumOps);  // the program uses every op
  MachineState s = after(encode_image(p, p.launch));
  ASSERT_EQ(s.phase, Phase::kRunning);
  for (size_t i = 0; i < p.code.size(); ++i) {
    std::optional<Instr> in = rom_instr(s.rom[i]);
    ASSERT_TRUE(in) << "block " << i;
    EXPECT_EQ(*in, p.code[i]) << "block " << i << ": " << instr_text(*in) << " vs "
                              << instr_text(p.code[i]);
  }
  for (size_t i = p.code.size(); i < kBlocks; ++i) EXPECT_FALSE(rom_instr(s.rom[i]));
  const Array& buf = p.arrays[0];
  EXPECT_EQ(read_array(s, buf), buf.init);
  EXPECT_EQ(s.launch, p.launch);
}

}  // namespace
}  // namespace qgpu
