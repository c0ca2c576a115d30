// The GPU-only model: its residual layout, config and the order of the stages
// (machine_model.h lists the layers; stages.h the stages; construct.h the conventions).
#include "lift/machine_model.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "gpu/vocab.h"
#include "lift/stages.h"

namespace qgpu::lift {

namespace {

// Lives (layout.h): B(s) a field first written at sublayer s and never cleared; C(s, m, h)
// one first written at s and cleared by layer m's MLP holding h hots. Sublayers: E the
// embedding, A(il) layer il's mixer, M(il) its MLP. A field is cleared where its last
// reader has run and that MLP has units left (build_clears: one unit a dim); one that the
// head or a late reader needs, or whose hot count varies (wb_word, pad), is never cleared.
constexpr int E = kEmbedding;
constexpr int A(int il) { return mixer(il); }
constexpr int M(int il) { return mlp(il); }
Life B(int born) { return {.born = born}; }
Life C(int born, int cleared, int hots) { return {.born = born, .cleared = cleared, .hots = hots}; }
Life H(Life l) {  // read by the LM head (layout.h)
  l.head = true;
  return l;
}

// The token embedding (stage_image.cpp): one hot per group, kEmbedHots in all.
void embedding_fields(Layout& l) {
  l.add("fam", kNumFamilies);
  l.add("one", 1);          // every token: the constant 1 that biases read
  l.add("one2", 1);         // every token: a second 1, the steps' offset (construct.h)
  // The head pattern's pad: with the tied head, a token's embedding also holds its head
  // row's pattern (the fields it matches), kHeadHots - that many ones here (stage_emit.cpp).
  l.add("hpad", kHeadHots, C(E, M(0), kHeadHots));
  l.add("addr", 129, C(E, M(0), 1));  // 0..125 word, 126 null (begin), 127 junk (@b, run), 128 none
  l.add("vend", 2);         // 1: the token completes an image value (v data, t) or is begin
  l.add("vnib", 8 * 17, C(E, M(0), 8));  // a `v` word's 8 nibbles, 16 = none
  l.add("hnib", 2 * 17, C(E, M(0), 2));  // byte 0 of h, then bytes 1..3 of m1, m2, t
  l.add("m1nib", 2 * 17, C(E, M(0), 2));
  l.add("m2nib", 2 * 17, C(E, M(0), 2));
  l.add("tnib", 2 * 17, C(E, M(0), 2));
  l.add("vtag", 17, C(E, M(0), 1));  // a `v` record's tag (lane mask; 0 image data), 16 = none
  l.add("htag", 17, C(E, M(3), 1));  // an `h` record's tag
  l.add("sw", 5, C(E, M(4), 1));     // sched: warp (begin: 0), 4 = none
  l.add("shi", kBlockHi + 1, C(E, M(0), 1));  // sched: block / kBlockLo (begin: the null block's), kBlockHi = none
  l.add("slo", kBlockLo + 1, C(E, M(0), 1));  // sched: block % kBlockLo, kBlockLo = none
  l.add("smask", 17, C(E, M(4), 1));  // sched: active mask (begin: 0), 16 = none
  l.add("pmask", 17, C(E, M(2), 1));  // pred: lanes written, 16 = none
  l.add("pbits", 17, C(E, M(2), 1));  // pred: result bits, 16 = none
  l.add("barc", 5, C(E, M(3), 1));    // bar: CUDA block slot, 4 = none
  l.add("barp", 3, C(E, M(3), 1));    // bar: new parity (begin: 0), 2 = none
  l.add("stl", 5, C(E, M(7), 1));     // st: the lane, 4 = none
  l.add("sthi", 17);        // st: the word / 8, 16 = none
  l.add("stlo", 9);         // st: the word % 8, 8 = none
  l.add("lh", 17, C(E, M(1), 1));  // gx gy bx by: x - 1; wave: k; run, begin: 0; / 16, 16 = none
  l.add("ll", 17, C(E, M(1), 1));  // % 16
  l.add("fx", kFx + 1, C(E, M(1), 1));  // field value of a ROM field token (0 at @b, begin), kFx = none
  l.add("bhi", kBlockHi + 1, C(E, M(0), 1));  // ROM block / kBlockLo (kBlockHi = none)
  l.add("blo", kBlockLo + 1, C(E, M(0), 1));  // ROM block % kBlockLo (kBlockLo = none)
  l.add("brom", 3, C(E, M(0), 1));  // 1: @b or begin (ROM mode), 0: @m/run, 2: none
}

// What L0-L3 read and their MLPs write: the step, the value, the fetch, the launch, the
// register reads, lane control, parity and liveness.
void state_fields(Layout& l) {
  // L0's reads.
  l.add("img_addr", 24, B(A(0)));  // the image address: / 8 (16) | % 8 (8)
  l.add("rom_addr", kBlockHi + kBlockLo + 2, C(A(0), M(1), 3));  // the ROM block address: hi | lo | rom 2
  l.add("step", kStepCode, C(A(0), M(7), 7));  // the step: warp 4 | hi | lo | lane in/out 8
  l.add("wb_word", 128, B(A(0)));  // the consumed value (0 when none)
  l.add("wb_tag", 8, C(A(0), M(6), 4));  // its tag: lane in/out
  l.add("pad", 8, B(A(0)));        // energy at pred, where wb_word is empty
  l.add("btag", 8, C(A(0), M(3), 4));  // the tag of a 4-byte value in flight at m1, m2: lane in/out
  // L1's reads: the fetch.
  l.add("f_op", kFx, B(A(1)));     // op + 1, 0 = empty block
  l.add("f_guard", 9, C(A(1), M(2), 1));
  l.add("f_d", kSpecialCode, C(A(1), M(2), 1));  // a register or a predicate
  for (const char* f : {"f_a", "f_b", "f_c"}) l.add(f, kFieldCodes, C(A(1), f[2] == 'c' ? M(6) : M(7), 1));  // the compares, mw (L7) read f_a, f_b
  l.add("f_imm", 128, C(A(1), M(11), 8));
  // L0's reads and L1's MLP: the launch (stage_launch.cpp).
  for (const char* f : {"h_gx", "h_gy", "h_bx", "h_by"}) l.add(f, 32, C(A(0), M(7), 2));  // hi 16 | lo 16
  l.add("h_wave", 32, C(A(0), M(5), 2));
  l.add("thr", 17, C(M(1), M(7), 1));  // threads per CUDA block - 1, 16 = more than 16
  for (const char* f : {"bh", "x1h", "x1l", "x2h", "x2l"}) l.add(f, 16, C(M(1), M(2), 1));  // B, B >> 1, B >> 2
  l.add("bl", 16, C(M(1), M(3), 1));
  // L2's reads: operands a, b, c (words) and the guard (nibble 0) of each lane.
  for (const char* port : {"ra", "rb", "rc"})  // the lane ops read them last: rc in L6, ra and rb in L7
    for (int lane = 0; lane < kLanes; ++lane)   // (the compares, mw)
      l.add(port + std::to_string(lane), kBitWord, C(A(2), port[1] == 'c' ? M(6) : M(7), 32));  // dual-rail bits
  for (int lane = 0; lane < kLanes; ++lane)  // cleared by L3, after host::check_launch decodes them
    l.add("rg" + std::to_string(lane), 16, C(A(2), M(3), 1));
  // L2's MLP: lane control (stage_control.cpp).
  for (int lane = 0; lane < kLanes; ++lane) {
    std::string s = std::to_string(lane);
    const int pc_cleared = lane < 2 ? M(4) : M(5);
    l.add("eff" + s, 2, H(B(M(2))));      // 0: effective (in the mask, guard passes), 1: not
    l.add("npc_hi" + s, kBlockHi + 1, C(M(2), pc_cleared, 1));  // the PC after the step / kBlockLo, kBlockHi = not in the mask
    l.add("npc_lo" + s, kBlockLo + 1, C(M(2), pc_cleared, 1));  // % kBlockLo, kBlockLo = not in the mask
    l.add("act" + s, 4, C(M(2), lane < 3 ? M(4) : M(5), 1));  // 0 none, 1 exits, 2 arrives at the barrier, 3 not a sched
  }
  for (int k = 0; k < 3; ++k) {  // the wave against B >> k: <, =, >
    l.add("cmph" + std::to_string(k), 3, C(M(2), M(5), 1));
    l.add("cmpl" + std::to_string(k), 3, C(M(2), M(5), 1));
  }
  // L3's reads and MLP: barrier parity, liveness, flags (stage_lanes.cpp).
  for (int c = 0; c < kMaxCtas; ++c) l.add("par" + std::to_string(c), 2, C(A(3), M(6), 1));
  for (int w = 0; w < kWarps; ++w)
    for (int lane = 0; lane < kLanes; ++lane)
      l.add("live" + std::to_string(w) + std::to_string(lane), 3, C(M(3), M(5), 1));
  for (int w = 0; w < kWarps; ++w) l.add("rflag" + std::to_string(w), 3, C(M(3), M(5), 1));
  for (int lane = 0; lane < kLanes; ++lane) l.add("sflag" + std::to_string(lane), 3, C(M(3), M(5), 1));
}

// The scheduler (stage_sched.cpp).
void scheduler_fields(Layout& l) {
  l.add("lastw", kWarps, C(A(0), M(5), 1));  // L0: the last warp that ran
  for (int w = 0; w < kWarps; ++w)  // L4: lane status rows (read last by L6's MLP)
    for (int lane = 0; lane < kLanes; ++lane)
      l.add("ls" + std::to_string(w) + std::to_string(lane), kLaneStatusCode, C(A(4), M(6), kLaneStatusHots));
  for (int w = 0; w < kWarps; ++w)  // L4 MLP: 0 runnable, 1 waiting, 2 finished
    for (int lane = 0; lane < kLanes; ++lane)
      l.add("rs" + std::to_string(w) + std::to_string(lane), 3, C(M(4), M(6), 1));
  l.add("wmore", 2, C(M(4), M(6), 1));  // 0: another wave follows
  l.add("nk_hi", 16, H(B(M(4))));  // the wave k + 1
  l.add("nk_lo", 16, H(B(M(4))));
  l.add("nw", kWarps + 1, H(B(M(5))));  // L5 MLP: the next warp, kWarps = none
  for (int c = 0; c < kMaxCtas; ++c)  // 0: slot c releases
    l.add("rel" + std::to_string(c), 2, C(M(5), M(6), 1));
  for (int lane = 0; lane < kLanes; ++lane) {  // L6 MLP: warp nw's lanes' PCs (kBlockHi, kBlockLo: not runnable)
    l.add("ch" + std::to_string(lane), kBlockHi + 1, B(M(6)));
    l.add("cl" + std::to_string(lane), kBlockLo + 1, B(M(6)));
  }
  l.add("bar", kMaxCtas + 1, H(B(M(6))));  // the first released slot, kMaxCtas = none
  l.add("barq", 3, H(B(M(6))));            // its new parity, 2 = none
  l.add("sfam", 4, B(M(6)));            // kSchedBar, kSchedSched, kSchedWave, kSchedEnd
  for (int i = 0; i < kLanes; ++i)  // L12 MLP: lane i's PC against lane j's: <, =, >
    for (int j = i + 1; j < kLanes; ++j) l.add("cmp" + std::to_string(i) + std::to_string(j), 3, B(M(12)));
  for (int lane = 0; lane < kLanes; ++lane) l.add("smk" + std::to_string(lane), 2, H(B(M(13))));  // L13 MLP: 0 in the mask
  l.add("mhi", kBlockHi, H(B(M(13))));  // the min PC / kBlockLo, % kBlockLo
  l.add("mlo", kBlockLo, H(B(M(13))));
}

// The word memory gets, the next record's lane and its operands (stage_operands.cpp).
void operand_fields(Layout& l) {
  l.add("mw", 128, B(M(7)));  // L7 MLP: the word memory gets (st: the lane's operand b, else wb_word)
  l.add("opf", 2 * kOpSetCount, B(M(4)));  // L4 MLP: per op set (kOpSets), 0 the op is in it, 1 not
  // The next record's lane and its operands (stage_operands.cpp).
  l.add("nl", kLanes + 1, H(B(M(3))));  // L3 MLP: kLanes = none
  l.add("wbase", 4, C(M(2), M(3), 1));  // L2 MLP: the step's warp % warps per CUDA block
  l.add("cta", 32, C(M(2), M(5), 2));   // L2 MLP: the step's CUDA block (slot + k cpw): lo | hi
  l.add("cq1", 16, C(M(3), M(7), 1));   // L3 MLP: cta's hi nibble / gx, % gx (gx <= 16)
  l.add("cr1", 16, C(M(3), M(5), 1));
  l.add("ctx", 32, C(M(4), M(7), 2));   // L4 MLP: %ctaid.x: lo | hi
  l.add("cq2", 16, C(M(4), M(7), 1));   // %ctaid.y's lo nibble (its hi is cq1)
  for (int lane = 0; lane < kLanes; ++lane) {  // L3 MLP: each lane's %tid.x, %tid.y
    l.add("tidx" + std::to_string(lane), 16, C(M(3), M(7), 1));
    l.add("tidy" + std::to_string(lane), 16, C(M(3), M(7), 1));
  }
  l.add("tidx", 16, C(M(4), M(5), 1));  // L4 MLP: lane nl's %tid.x, %tid.y
  l.add("tidy", 16, C(M(4), M(5), 1));
  for (const char* f : {"oa", "ob", "oc"}) l.add(f, 128, B(M(5)));  // L5 MLP
}

// The multiplier (stage_mul.cpp): each layer's codes are cleared by the next, their reader.
void multiplier_fields(Layout& l) {
  l.add("plo", 8 * kMulPairs, C(M(8), M(9), 4 * kMulPairs));  // L8 MLP: products, low nibble (dual-rail bits)
  l.add("phi", 8 * kMulPairs, C(M(8), M(9), 4 * kMulPairs));  // high nibble
  l.add("pbt", 8 * 10 * 2, C(M(8), M(9), 8 * 10));  // column 7's bit products: on, off
  l.add("cam", 7 * 16, C(M(9), M(10), 7));  // L9 MLP: A_k mod 16, / 16
  l.add("cad", 7 * 8, C(M(9), M(10), 7));
  l.add("cbm", 7 * 16, C(M(9), M(10), 7));  // B_k (k = 1..7) mod 16, / 16 (k <= 6)
  l.add("cbd", 6 * 8, C(M(9), M(10), 6));
  l.add("chm", 4 * 16, C(M(9), M(10), 4));  // column 7's chunks mod 16
  l.add("em", 8 * 16, C(M(10), M(11), 8));  // L10 MLP: E_k mod 16, / 16 (k <= 6)
  l.add("ed", 7 * 4, C(M(10), M(11), 7));
}

// The ALU and the emit stage (stage_alu.cpp, stage_emit.cpp).
void execute_fields(Layout& l) {
  l.add("une", kLanes * 3 * 8 * 2, C(M(6), M(7), kLanes * 3 * 8));  // L6 MLP: lane, port, nibble: 0 equal to lane nl's, 1 differs
  l.add("as", 8 * 16, C(M(11), M(13), 8));  // L11 MLP: the adder's nibble sums mod 16
  l.add("acl", 8 * 3, C(M(11), M(12), 8));  // and their classes: kill, propagate, generate
  l.add("uni", 2, B(M(7)));       // L7 MLP: 0 every effective lane reads lane nl's operands
  l.add("car", 7 * 2, C(M(12), M(13), 7));  // L12 MLP: the carry into nibbles 1..7: 0 no, 1 yes
  l.add("sum", 128, H(B(M(13))));    // L13 MLP: the adder's word
  l.add("etag", 2 * kLanes, H(B(M(13))));  // the value record's tag: lane in/out
  l.add("mr", 128, B(A(14)));     // L14: the word a ld reads (the null slot's 0 otherwise)
  l.add("res", 128, H(B(M(14))));    // L14 MLP: lane nl's result
  l.add("fits", 2, H(B(M(14))));     // 0: res is a one-token value
  l.add("ef", kEmitFamilies, H(B(M(14))));  // the record family emitted next
  // The predicate ops, per lane (stage_pred.cpp).
  for (int lane = 0; lane < kLanes; ++lane) {
    const std::string s = std::to_string(lane);
    l.add("cmpn" + s, 8 * 3, C(M(7), M(8), 8));  // L7 MLP: a against b per nibble: lt, eq, gt
    l.add("cms" + s, 3, C(M(7), M(8), 1));       // the top nibble, signed
    l.add("pl" + s, 2, B(M(7)));        // predicate logic: 0 true, 1 false
    l.add("cu" + s, 3, B(M(8)));        // L8 MLP: a against b, unsigned: lt, eq, gt
    l.add("cs" + s, 3, B(M(8)));        // signed
    l.add("pb" + s, 2, H(B(M(13))));    // L13 MLP: the pred record's bit: 0 set, 1 clear
    // The binary32 compares (stage_pred.cpp), 0 yes, 1 no: L6 MLP: a is a NaN, b is,
    // both are +-0, both have the sign bit; L9 MLP: the IEEE order of a and b (lt, eq,
    // gt, unordered) and min / max's order (lt, eq, gt with -0 < +0; a NaN, b NaN, both).
    for (const char* f : {"fna", "fnb", "fbz", "fbn"}) l.add(f + s, 2, C(M(6), M(9), 1));
    l.add("fcf" + s, 4, C(M(9), M(13), 1));
    l.add("fmo" + s, 6, C(M(9), M(13), 1));
  }
  l.add("oan", 2, C(M(9), M(14), 1));  // L9 MLP: 0 lane nl's operand a is a NaN (neg.f32, abs.f32)
  // The logic ops and min / max (stage_select.cpp).
  l.add("lbit", 8 * 4 * 2, B(M(11)));  // L11 MLP: per nibble and bit: 0 on, 1 off
  l.add("lg", 128, B(M(12)));         // L12 MLP: the logic op's word
  l.add("pka", 3, B(M(13)));          // L13 MLP: min / max take 0 a, 1 b, 2 the canonical NaN (min.f32, max.f32)
  l.add("sa", 33, B(M(11)));          // L11 MLP: the shift amount (32: 32 or more)
  l.add("sbit", 32 * 2, B(M(13)));    // L13 MLP: the shifted word's bits: 0 on, 1 off
  // An atomic's update at the token that consumes lane j's old word (stage_atomic.cpp).
  l.add("xat", 2, B(M(6)));          // L6 MLP: 0 the token consumes an atomic's old word
  l.add("jb", 128, B(M(6)));         // lane j's operand b (the word 0 when xat is 1)
  l.add("ja", 16 * 3, C(M(6), M(7), 3));  // nibbles 0..2 of lane j's base
  l.add("xs", 8 * 16, C(M(7), M(12), 8));  // L7 MLP: old + b per nibble mod 16, and the class
  l.add("xcl", 8 * 3, C(M(7), M(11), 8));
  l.add("ys", 3 * 16, C(M(7), M(12), 3));  // ja + imm per nibble mod 16, and the class
  l.add("ycl", 3 * 3, C(M(7), M(11), 3));
  l.add("xcar", 7 * 2, C(M(11), M(12), 7));  // L11 MLP: carries into nibbles 1..7 of old + b, 1..2 of the address
  l.add("ycar", 2 * 2, C(M(11), M(12), 2));
  l.add("xw", 17 + 9, B(M(12)));     // L12 MLP: the address / 4: / 8 (16 none) | % 8 (8 none)
  l.add("xc", 8 * 3, C(M(7), M(11), 8));  // L7 MLP: old against b per nibble: lt, eq, gt
  l.add("xcs", 3, C(M(7), M(11), 1));     // the top nibble, signed
  l.add("xcu", 3, C(M(11), M(12), 1));    // L11 MLP: old against b, unsigned: lt, eq, gt
  l.add("xcg", 3, C(M(11), M(12), 1));    // signed
  l.add("xpk", 3, B(M(12)));         // L12 MLP: min / max, cas keep 0 old, 1 b, 2 c
  l.add("jc", 128, B(M(6)));         // L6 MLP: lane j's operand c (cas)
}

// Every field is cleared where its life says (layout.h), so the fields born later can
// take its dims.
void build_clears(Net& n) {
  Mlp input(n, 0);  // the head pattern the tied embedding writes (hpad's clear counts its hots)
  for (const Field& f : n.l.fields)
    if (f.life.head)
      for (int i = 0; i < f.size; ++i) input.clear(f.dim(i));
  for (const Field& f : n.l.fields) {
    if (f.life.cleared == kNever) continue;
    Mlp m(n, (f.life.cleared - 1) / 2);
    for (int i = 0; i < f.size; ++i) m.clear(f.dim(i));
  }
}

}  // namespace

Layout machine_layout(bool shared) {
  Layout l;
  l.shared = shared;
  embedding_fields(l);
  state_fields(l);
  scheduler_fields(l);
  operand_fields(l);
  multiplier_fields(l);
  execute_fields(l);
  l.place();
  return l;
}

std::vector<int> machine_hots() {
  // What each sublayer adds to the residual, in order: L0 mixer, L0 MLP, L1 mixer, ...
  const int adds[] = {
      2 + 3 + 7 + 8 + 4 + 1 + 4 + 5 * 2,  // L0: img_addr, rom_addr, step, wb_word or pad, wb_tag, lastw, btag; the header and wave
      0,
      6 + 8,                              // L1: fetched fields and imm (one bank's heads read them)
      1 + 6,                              // L1 MLP: thr; B, B >> 1, B >> 2 (hi, lo)
      3 * kLanes * 32 + kLanes,           // L2: operand words (dual-rail bits), guard nibbles
      kLanes * kLaneControlHots + 6 + 1 + 2,  // L2 MLP: lane control; wave comparisons; wbase; cta
      kMaxCtas,                           // L3: parity
      kWarps * kLanes + kWarps + kLanes + 1 + 2 * kLanes + 2,  // L3 MLP: live, rflag, sflag, nl, tidx{l} tidy{l}, cq1 cr1
      kWarps * kLanes * kLaneStatusHots,  // L4: lane status (the PC's bits, finished, flag)
      kWarps * kLanes + 1 + 2 + 2 + 3 + kOpSetCount,  // L4 MLP: rs, wmore, nk, tidx, tidy, ctx, cq2, opf
      0,                                  // L5: attention no-op
      1 + kMaxCtas + 3 * 8,               // L5 MLP: nw, rel, oa, ob, oc
      0, 96 + 8 + 2 * kLanes + 3 + 1 + 8 + 3 + 4 * kLanes,  // L6 MLP: une; jc; ch, cl, bar, barq, sfam; xat, jb, ja; fna, fnb, fbz, fbn
      0, 10 * kLanes + 8 + 1 + 8 + 8 + 3 + 3 + 8 + 1,  // L7 MLP: cmpn, cms, pl; mw; uni; xs, xcl, ys, ycl; xc, xcs
      0, 8 * kMulPairs + 8 * 10 + 2 * kLanes,  // L8 MLP: plo, phi, pbt; cu, cs
      0, 7 + 7 + 7 + 6 + 4 + 2 * kLanes + 1,  // L9 MLP: cam, cad, cbm, cbd, chm; fcf, fmo, oan
      0, 8 + 7,                           // L10 MLP: em, ed
      0, 16 + 32 + 1 + 7 + 2 + 2,         // L11 MLP: as, acl; lbit, sa; xcar, ycar; xcu, xcg
      0, 6 + 7 + 8 + 2 + 1,               // L12 MLP: cmp; car; lg; xw, xpk
      0, kLanes + 2 + 8 + kLanes + kLanes + 1 + 32,  // L13 MLP: smk, mhi, mlo; sum, etag; pb; pka, sbit
      8, 8 + 1 + 1,                       // L14: mr; MLP: res, fits, ef
  };
  std::vector<int> h = {kEmbedHots + kHeadHots};
  for (int a : adds) h.push_back(h.back() + a);
  // build_clears: a field cleared by sublayer s leaves the residual after it.
  for (const Field& f : machine_layout().fields)
    if (f.life.cleared != kNever)
      for (size_t s = static_cast<size_t>(f.life.cleared) + 1; s < h.size(); ++s) h[s] -= f.life.hots;
  return h;
}

engine::Config machine_config() {
  engine::Config c;
  // The fields' placement (machine_layout(): 2,592 since a lane has 24 registers, not 15
  // (f_a, f_b and f_c: 41 field codes, not 32), 2,564 since the ROM went from 128 to
  // 256 blocks (a lane's PC took a bit, the step's lo digit 16 entries), 2,525 since the
  // ROM's op codes went from 64 to 96 for the binary32 ops, 2,493 before; 7,808 on 13
  // layers before issue 24), rounded up to 32 (the engine's bf16 vector width).
  c.hidden_size = 2592;
  c.num_hidden_layers = 15;
  c.layer_types = std::vector<std::string>(15, "linear_attention");
  c.layer_types[5] = "full_attention";
  // Qwen3.5-2B's MLP width, which the construction fills: two units per rule or step, one
  // per cleared dim (build_clears uses what the layers have left; L5 is the fullest).
  c.intermediate_size = 6144;
  c.vocab_size = (vocab_size() + 63) / 64 * 64;
  c.num_attention_heads = 8;
  c.num_key_value_heads = 2;
  c.head_dim = 256;
  c.linear_num_key_heads = 16;
  c.linear_num_value_heads = 16;
  c.linear_key_head_dim = 128;
  c.linear_value_head_dim = 128;
  c.tie_word_embeddings = true;  // the head is the embedding (stage_emit.cpp), as in Qwen3.5-2B
  c.dtype = "float32";
  c.eos_token_id = {token_id({Tok::kEnd})};
  CHECK(machine_layout().used <= c.hidden_size);
  return c;
}

Builder build_machine(int norm_width, bool shared) {
  Layout l = machine_layout(shared);
  engine::Config c = machine_config();
  if (!shared) c.hidden_size = (l.used + 63) / 64 * 64;
  Builder b(c);
  Net n{b, l, machine_hots()};
  n.norm_width = norm_width;
  n.set_norms();
  build_embedding(n);
  build_image(n);
  build_state(n);
  build_lane_control(n);
  build_launch(n);
  build_lanes(n);
  build_scheduler(n);
  build_operands(n);
  build_op_flags(n);
  build_multiplier(n);
  build_alu(n);
  build_predicates(n);
  build_select(n);
  build_atomics(n);
  build_emit(n);
  build_clears(n);
  return b;
}

std::string machine_tokenizer_json() {
  nlohmann::ordered_json vocab = nlohmann::ordered_json::object();
  for (int id = 0; id < vocab_size(); ++id) vocab[record_text(decode_token(id))] = id;
  nlohmann::ordered_json j = {
      {"version", "1.0"}, {"truncation", nullptr}, {"padding", nullptr}, {"added_tokens", nlohmann::ordered_json::array()},
      {"normalizer", nullptr}, {"pre_tokenizer", {{"type", "WhitespaceSplit"}}}, {"post_processor", nullptr},
      {"decoder", nullptr}, {"model", {{"type", "WordLevel"}, {"vocab", vocab}, {"unk_token", "end"}}}};
  return j.dump();
}

void write_machine_model(const std::string& dir, engine::DType dtype) {
  build_machine().write(dir, dtype, machine_tokenizer_json());
}

MachineCounts machine_counts(const Builder& b) {
  const engine::Config& c = b.config;
  MachineCounts n;
  n.layer_nonzero.assign(static_cast<size_t>(c.num_hidden_layers), 0);
  for (const auto& [name, t] : b.tensors) {
    n.parameters += t.numel();
    int64_t set_nonzero = 0;
    t.set.for_each([&](int64_t, float x) { set_nonzero += x != 0.0f; });
    const int64_t nz = set_nonzero + (t.fill != 0.0f ? t.numel() - static_cast<int64_t>(t.set.size()) : 0);
    n.nonzero += nz;
    for (int il = 0; il < c.num_hidden_layers; ++il)
      if (name.rfind(b.layer(il), 0) == 0) n.layer_nonzero[static_cast<size_t>(il)] += nz;
  }
  return n;
}

std::string machine_summary(const Builder& b) {
  const engine::Config& c = b.config;
  const MachineCounts counts = machine_counts(b);
  const std::vector<int64_t>& layer_nonzero = counts.layer_nonzero;
  std::string per_layer;
  for (int il = 0; il < c.num_hidden_layers; ++il)
    per_layer += fmt::format("{}L{} {}", per_layer.empty() ? "" : ", ", il, layer_nonzero[static_cast<size_t>(il)]);
  std::string heads, mlp;
  int total_heads = 0, widest = 0, widest_layer = 0;
  for (int il = 0; il < c.num_hidden_layers; ++il) {
    if (c.is_linear(il)) {
      // A head is used when its key is (it writes; memory is written and read by the host).
      std::vector<bool> used(static_cast<size_t>(c.linear_num_key_heads));
      b.tensors.at(b.layer(il) + "linear_attn.in_proj_qkv.weight").set.for_each([&](int64_t i, float x) {
        const int64_t row = i / c.hidden_size;
        if (x != 0.0f && row >= c.key_dim() && row < 2 * c.key_dim())
          used[static_cast<size_t>((row - c.key_dim()) / c.linear_key_head_dim)] = true;
      });
      const int n = static_cast<int>(std::count(used.begin(), used.end(), true));
      total_heads += n;
      heads += fmt::format("{}L{} {}", heads.empty() ? "" : ", ", il, n);
    }
    std::vector<bool> unit(static_cast<size_t>(c.intermediate_size));
    b.tensors.at(b.layer(il) + "mlp.down_proj.weight").set.for_each([&](int64_t i, float x) {
      if (x != 0.0f) unit[static_cast<size_t>(i % c.intermediate_size)] = true;
    });
    const int units = static_cast<int>(std::count(unit.begin(), unit.end(), true));
    if (units > widest) widest = units, widest_layer = il;
    mlp += fmt::format("{}L{} {}", mlp.empty() ? "" : ", ", il, units);
  }
  // Where the width goes (docs/design.md §3, "How big the merge is"): dims alive after
  // the embedding and after each layer's mixer and MLP.
  const Layout l = machine_layout();
  std::string alive = fmt::format("E {}", l.alive(kEmbedding));
  int most = 0, most_at = 0;
  for (int il = 0; il < c.num_hidden_layers; ++il) {
    alive += fmt::format(", L{} {}/{}", il, l.alive(mixer(il)), l.alive(lift::mlp(il)));
    for (int s : {mixer(il), lift::mlp(il)})
      if (l.alive(s) > most) most = l.alive(s), most_at = s;
  }
  return fmt::format(
      "residual: {} of {} dims used; the most alive at once {}, after L{}'s {}\n"
      "dims alive after each sublayer (mixer/MLP): {}\nDeltaNet heads used: {} ({})\n"
      "widest MLP: {} of {} units (layer {})\nMLP units (two per rule or step): {}\nparameters: {} ({} nonzero)\n"
      "nonzero per layer: {}\n",
      l.used, c.hidden_size, most, most_at / 2, most_at % 2 ? "MLP" : "mixer", alive, total_heads, heads, widest,
      c.intermediate_size, widest_layer, mlp, counts.parameters, counts.nonzero, per_layer);
}

}  // namespace qgpu::lift
