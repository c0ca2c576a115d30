// The residual fields, each with its code, meaning and life; the hot counts and the config
// that follow from them (plan.h).
#include "lift/plan.h"

#include <string>

#include "base/error.h"
#include "gpu/vocab.h"
#include "lift/stages.h"

namespace qgpu::lift {

namespace {

// Lives (layout.h): B(s) a field first written at sublayer s and never cleared; C(s, m) one
// first written at s and cleared by layer m's MLP (holding its code's hots). Sublayers: E
// the embedding, A(il) layer il's mixer, M(il) its MLP. A field is cleared where its last
// reader has run and that MLP has units left (build_clears: one unit a dim); one that the
// head or a late reader needs, or whose hot count varies (wb_word, pad), is never cleared.
constexpr int E = kEmbedding;
constexpr int A(int il) { return mixer(il); }
constexpr int M(int il) { return mlp(il); }
Life B(int born) { return {.born = born}; }
Life C(int born, int cleared) { return {.born = born, .cleared = cleared}; }
Life H(Life l) {  // read by the LM head (layout.h)
  l.head = true;
  return l;
}
std::string S(int i) { return std::to_string(i); }

// The token embedding (stage_image.cpp): one hot per group, "none" included.
void embedding_fields(Layout& l) {
  l.add("fam", one_hot(kNumFamilies), B(E), "the token's family (begin, run, sched, a value byte, ...)");
  l.add("one", one_hot(1), B(E), "1 at every token: the constant that biases read");
  l.add("one2", one_hot(1), B(E), "1 at every token: a second constant, the threshold rules' offset");
  l.add("hpad", ones(kHeadHots, kHeadHots), C(E, M(0)),
        "the head pattern's pad: the tied embedding also holds the token's LM head row (the fields it matches), "
        "made up to a constant count here");
  l.add("addr", one_hot(129), C(E, M(0)), "an image token's word: 0..125 a word, 126 the null slot (begin), 127 junk, 128 none");
  l.add("vend", one_hot(2), B(E), "0: the token completes an image value or is begin");
  l.add("vnib", groups(8, 17), C(E, M(0)), "a v token's word: 8 nibbles, 16 = none");
  l.add("hnib", groups(2, 17), C(E, M(0)), "an h token's byte 0: 2 nibbles, 16 = none");
  l.add("m1nib", groups(2, 17), C(E, M(0)), "an m1 token's byte 1: 2 nibbles, 16 = none");
  l.add("m2nib", groups(2, 17), C(E, M(0)), "an m2 token's byte 2: 2 nibbles, 16 = none");
  l.add("tnib", groups(2, 17), C(E, M(0)), "a t token's byte 3: 2 nibbles, 16 = none");
  l.add("vtag", one_hot(17), C(E, M(0)), "a v record's tag (lane mask; 0 image data), 16 = none");
  l.add("htag", one_hot(17), C(E, M(3)), "an h record's tag, 16 = none");
  l.add("sw", one_hot(5), C(E, M(4)), "sched: the warp (begin: 0), 4 = none");
  l.add("shi", one_hot(kBlockHi + 1), C(E, M(0)), "sched: block / 16 (begin: the null block's), 16 = none");
  l.add("slo", one_hot(kBlockLo + 1), C(E, M(0)), "sched: block % 16, 16 = none");
  l.add("smask", one_hot(17), C(E, M(4)), "sched: the active mask (begin: 0), 16 = none");
  l.add("pmask", one_hot(17), C(E, M(2)), "pred: the lanes written, 16 = none");
  l.add("pbits", one_hot(17), C(E, M(2)), "pred: the result bits, 16 = none");
  l.add("barc", one_hot(5), C(E, M(3)), "bar: the CUDA block slot, 4 = none");
  l.add("barp", one_hot(3), C(E, M(3)), "bar: the new parity (begin: 0), 2 = none");
  l.add("stl", one_hot(5), C(E, M(7)), "st: the lane, 4 = none");
  l.add("sthi", one_hot(17), B(E), "st: the word / 8, 16 = none");
  l.add("stlo", one_hot(9), B(E), "st: the word % 8, 8 = none");
  l.add("lh", one_hot(17), C(E, M(1)), "launch header gx gy bx by: x - 1; wave: k; run, begin: 0; / 16 (16 = none)");
  l.add("ll", one_hot(17), C(E, M(1)), "the same % 16");
  l.add("fx", one_hot(kFx + 1), C(E, M(1)), "a ROM field token's value (0 at @b, begin), 96 = none");
  l.add("bhi", one_hot(kBlockHi + 1), C(E, M(0)), "a ROM token's block / 16, 16 = none");
  l.add("blo", one_hot(kBlockLo + 1), C(E, M(0)), "a ROM token's block % 16, 16 = none");
  l.add("brom", one_hot(3), C(E, M(0)), "1: @b or begin (ROM mode), 0: @m or run, 2: none");
}

// What L0-L3 read and their MLPs write: the step, the value, the fetch, the launch, the
// register reads, lane control, parity and liveness.
void state_fields(Layout& l) {
  l.add("img_addr", digits({16, 8}), B(A(0)), "the image address: word / 8 | word % 8");
  l.add("rom_addr", digits({kBlockHi, kBlockLo, 2}), C(A(0), M(1)), "the ROM block address: block / 16 | % 16 | ROM mode");
  l.add("step", digits({kWarps, kBlockHi, kBlockLo, 2, 2, 2, 2}), C(A(0), M(7)),
        "the step (the latest sched): warp | block / 16 | block % 16 | lane 0..3 in the mask (0) or not (1)");
  l.add("wb_word", nibbles(), B(A(0)), "the value a token completes (empty when none)");
  l.add("wb_tag", groups(kLanes, 2), C(A(0), M(6)), "the value's tag: per lane, 0 written, 1 not");
  l.add("pad", ones(8, 0), B(A(0)), "energy at pred, where wb_word is empty (wb_word books its 8 hots)");
  l.add("btag", groups(kLanes, 2), C(A(0), M(3)), "the tag of a 4-byte value in flight at m1, m2: per lane, 0 in, 1 out");
  l.add("f_op", one_hot(kFx), B(A(1)), "the fetch: the step's op + 1, 0 the empty block");
  l.add("f_guard", one_hot(kGuardCodes), C(A(1), M(2)), "the fetch: the guard (0 none, 1 + N @pN, 5 + N @!pN)");
  l.add("f_d", one_hot(kSpecialCode), C(A(1), M(2)), "the fetch: d, a register or a predicate (field code)");
  for (const char* f : {"f_a", "f_b", "f_c"})  // the compares, mw (L7) read f_a, f_b
    l.add(f, one_hot(kFieldCodes), C(A(1), f[2] == 'c' ? M(6) : M(7)),
          std::string("the fetch: operand ") + f[2] + " (register, predicate, special or immediate field code)");
  l.add("f_imm", nibbles(), C(A(1), M(11)), "the fetch: the immediate");
  for (const char* f : {"h_gx", "h_gy", "h_bx", "h_by"})
    l.add(f, digits({16, 16}), C(A(0), M(7)), std::string("the launch header's ") + (f + 2) + " - 1: / 16 | % 16");
  l.add("h_wave", digits({16, 16}), C(A(0), M(5)), "the current wave: / 16 | % 16");
  l.add("thr", one_hot(17), C(M(1), M(7)), "threads per CUDA block - 1, 16 = more than 16");
  l.add("bh", one_hot(16), C(M(1), M(2)), "the grid's block count B: / 16");
  l.add("bl", one_hot(16), C(M(1), M(3)), "B % 16");
  for (const char* f : {"x1h", "x1l", "x2h", "x2l"})
    l.add(f, one_hot(16), C(M(1), M(2)), std::string("B >> ") + f[1] + (f[2] == 'h' ? ": / 16" : ": % 16"));
  for (const char* port : {"ra", "rb", "rc"})  // the lane ops read them last: rc in L6, ra and rb in L7
    for (int lane = 0; lane < kLanes; ++lane)
      l.add(port + S(lane), bits(), C(A(2), port[1] == 'c' ? M(6) : M(7)),
            "lane " + S(lane) + "'s operand " + port[1] + " read from the register file");
  for (int lane = 0; lane < kLanes; ++lane)  // cleared by L3, after host::check_launch decodes them
    l.add("rg" + S(lane), one_hot(16), C(A(2), M(3)), "lane " + S(lane) + "'s guard predicate (nibble 0 of its register)");
  for (int lane = 0; lane < kLanes; ++lane) {
    const std::string s = S(lane);
    const int pc_cleared = lane < 2 ? M(4) : M(5);
    l.add("eff" + s, one_hot(2), H(B(M(2))), "lane " + s + ": 0 effective (in the mask, its guard passes), 1 not");
    l.add("npc_hi" + s, one_hot(kBlockHi + 1), C(M(2), pc_cleared), "lane " + s + "'s PC after the step / 16, 16 = not in the mask");
    l.add("npc_lo" + s, one_hot(kBlockLo + 1), C(M(2), pc_cleared), "lane " + s + "'s PC after the step % 16, 16 = not in the mask");
    l.add("act" + s, one_hot(4), C(M(2), lane < 3 ? M(4) : M(5)),
          "lane " + s + ": 0 none, 1 exits, 2 arrives at the barrier, 3 not a sched");
  }
  for (int k = 0; k < 3; ++k) {
    l.add("cmph" + S(k), one_hot(3), C(M(2), M(5)), "the wave against B >> " + S(k) + ", / 16: <, =, >");
    l.add("cmpl" + S(k), one_hot(3), C(M(2), M(5)), "the wave against B >> " + S(k) + ", % 16: <, =, >");
  }
  for (int c = 0; c < kMaxCtas; ++c)
    l.add("par" + S(c), one_hot(2), C(A(3), M(6)), "the barrier parity of CUDA block slot " + S(c));
  for (int w = 0; w < kWarps; ++w)
    for (int lane = 0; lane < kLanes; ++lane)
      l.add("live" + S(w) + S(lane), one_hot(3), C(M(3), M(5)), "warp " + S(w) + " lane " + S(lane) + " in a new wave");
  for (int w = 0; w < kWarps; ++w) l.add("rflag" + S(w), one_hot(3), C(M(3), M(5)), "the barrier flag warp " + S(w) + "'s rows get");
  for (int lane = 0; lane < kLanes; ++lane)
    l.add("sflag" + S(lane), one_hot(3), C(M(3), M(5)), "the barrier flag lane " + S(lane) + " of the step gets");
}

// The scheduler (stage_sched.cpp).
void scheduler_fields(Layout& l) {
  l.add("lastw", one_hot(kWarps), C(A(0), M(5)), "the last warp that ran (round-robin's start)");
  for (int w = 0; w < kWarps; ++w)  // read last by L6's MLP
    for (int lane = 0; lane < kLanes; ++lane)
      l.add("ls" + S(w) + S(lane), groups(kLanePcBits + 2, 2), C(A(4), M(6)),
            "warp " + S(w) + " lane " + S(lane) + "'s status: the PC's 8 bits (dual rail), finished, barrier flag");
  for (int w = 0; w < kWarps; ++w)
    for (int lane = 0; lane < kLanes; ++lane)
      l.add("rs" + S(w) + S(lane), one_hot(3), C(M(4), M(6)), "warp " + S(w) + " lane " + S(lane) + ": 0 runnable, 1 waiting, 2 finished");
  l.add("wmore", one_hot(2), C(M(4), M(6)), "0: another wave follows");
  l.add("nk_hi", one_hot(16), H(B(M(4))), "the next wave k + 1, / 16");
  l.add("nk_lo", one_hot(16), H(B(M(4))), "the next wave k + 1, % 16");
  l.add("nw", one_hot(kWarps + 1), H(B(M(5))), "the next warp, 4 = none");
  for (int c = 0; c < kMaxCtas; ++c) l.add("rel" + S(c), one_hot(2), C(M(5), M(6)), "0: CUDA block slot " + S(c) + " releases");
  for (int lane = 0; lane < kLanes; ++lane) {
    l.add("ch" + S(lane), one_hot(kBlockHi + 1), B(M(6)), "warp nw's lane " + S(lane) + "'s PC / 16, 16 = not runnable");
    l.add("cl" + S(lane), one_hot(kBlockLo + 1), B(M(6)), "warp nw's lane " + S(lane) + "'s PC % 16, 16 = not runnable");
  }
  l.add("bar", one_hot(kMaxCtas + 1), H(B(M(6))), "the first released CUDA block slot, 4 = none");
  l.add("barq", one_hot(3), H(B(M(6))), "its new parity, 2 = none");
  l.add("sfam", one_hot(4), B(M(6)), "the scheduler's record: bar, sched, wave, end");
  for (int i = 0; i < kLanes; ++i)
    for (int j = i + 1; j < kLanes; ++j)
      l.add("cmp" + S(i) + S(j), one_hot(3), B(M(12)), "lane " + S(i) + "'s PC against lane " + S(j) + "'s: <, =, >");
  for (int lane = 0; lane < kLanes; ++lane)
    l.add("smk" + S(lane), one_hot(2), H(B(M(13))), "sched's mask: 0 lane " + S(lane) + " is in it");
  l.add("mhi", one_hot(kBlockHi), H(B(M(13))), "sched's block (the min PC) / 16");
  l.add("mlo", one_hot(kBlockLo), H(B(M(13))), "sched's block % 16");
}

// The word memory gets, the next record's lane and its operands (stage_operands.cpp).
void operand_fields(Layout& l) {
  l.add("mw", nibbles(), B(M(7)), "the word memory gets: at st the lane's operand b, else wb_word");
  l.add("opf", groups(kOpSetCount, 2), B(M(4)), "per op set (stages.h kOpSets): 0 the step's op is in it, 1 not");
  l.add("nl", one_hot(kLanes + 1), H(B(M(3))), "the lane of the next value or st record, 4 = none");
  l.add("wbase", one_hot(4), C(M(2), M(3)), "the step's warp % warps per CUDA block");
  l.add("cta", digits({16, 16}), C(M(2), M(5)), "the step's CUDA block (slot + k x CUDA blocks a wave): % 16 | / 16");
  l.add("cq1", one_hot(16), C(M(3), M(7)), "cta / 16 / gx (gx <= 16)");
  l.add("cr1", one_hot(16), C(M(3), M(5)), "cta / 16 % gx");
  l.add("ctx", digits({16, 16}), C(M(4), M(7)), "%ctaid.x: % 16 | / 16");
  l.add("cq2", one_hot(16), C(M(4), M(7)), "%ctaid.y % 16");
  for (int lane = 0; lane < kLanes; ++lane) {
    l.add("tidx" + S(lane), one_hot(16), C(M(3), M(7)), "lane " + S(lane) + "'s %tid.x");
    l.add("tidy" + S(lane), one_hot(16), C(M(3), M(7)), "lane " + S(lane) + "'s %tid.y");
  }
  l.add("tidx", one_hot(16), C(M(4), M(5)), "lane nl's %tid.x");
  l.add("tidy", one_hot(16), C(M(4), M(5)), "lane nl's %tid.y");
  for (const char* f : {"oa", "ob", "oc"})
    l.add(f, nibbles(), B(M(5)), std::string("lane nl's operand ") + f[1] + " (register, immediate or special)");
}

// The multiplier (stage_mul.cpp): each layer's codes are cleared by the next, their reader.
void multiplier_fields(Layout& l) {
  l.add("plo", groups(4 * kMulPairs, 2), C(M(8), M(9)), "the nibble products' low nibbles (dual-rail bits)");
  l.add("phi", groups(4 * kMulPairs, 2), C(M(8), M(9)), "the nibble products' high nibbles (dual-rail bits)");
  l.add("pbt", groups(8 * 10, 2), C(M(8), M(9)), "column 7's bit products: on, off");
  l.add("cam", groups(7, 16), C(M(9), M(10)), "column sums A_k % 16");
  l.add("cad", groups(7, 8), C(M(9), M(10)), "column sums A_k / 16");
  l.add("cbm", groups(7, 16), C(M(9), M(10)), "column sums B_k % 16 (k = 1..7)");
  l.add("cbd", groups(6, 8), C(M(9), M(10)), "column sums B_k / 16 (k <= 6)");
  l.add("chm", groups(4, 16), C(M(9), M(10)), "column 7's chunks % 16");
  l.add("em", groups(8, 16), C(M(10), M(11)), "the product's digits E_k % 16");
  l.add("ed", groups(7, 4), C(M(10), M(11)), "the digits' carries E_k / 16 (k <= 6)");
}

// The ALU and the emit stage (stage_alu.cpp, stage_emit.cpp).
void execute_fields(Layout& l) {
  l.add("une", groups(kLanes * 3 * 8, 2), C(M(6), M(7)),
        "per lane, port a b c and nibble: 0 equal to lane nl's operand, 1 differs");
  l.add("as", groups(8, 16), C(M(11), M(13)), "the adder's nibble sums % 16 (before the carries)");
  l.add("acl", groups(8, 3), C(M(11), M(12)), "the adder's nibble classes: kill, propagate, generate");
  l.add("uni", one_hot(2), B(M(7)), "0: every effective lane reads lane nl's operands");
  l.add("car", groups(7, 2), C(M(12), M(13)), "the adder's carries into nibbles 1..7: 0 no, 1 yes");
  l.add("sum", nibbles(), H(B(M(13))), "the adder's word");
  l.add("etag", groups(kLanes, 2), H(B(M(13))), "the value record's tag: per lane, 0 in, 1 out");
  l.add("mr", nibbles(), B(A(14)), "the word a ld reads (the null slot's 0 otherwise)");
  l.add("res", nibbles(), H(B(M(14))), "lane nl's result");
  l.add("fits", one_hot(2), H(B(M(14))), "0: res is a one-token value");
  l.add("ef", one_hot(kEmitFamilies), H(B(M(14))), "the record family emitted next");
  for (int lane = 0; lane < kLanes; ++lane) {  // the predicate ops (stage_pred.cpp)
    const std::string s = S(lane);
    l.add("cmpn" + s, groups(8, 3), C(M(7), M(8)), "lane " + s + ": a against b per nibble: <, =, >");
    l.add("cms" + s, one_hot(3), C(M(7), M(8)), "lane " + s + ": the top nibble, signed: <, =, >");
    l.add("pl" + s, one_hot(2), B(M(7)), "lane " + s + "'s predicate logic: 0 true, 1 false");
    l.add("cu" + s, one_hot(3), B(M(8)), "lane " + s + ": a against b, unsigned: <, =, >");
    l.add("cs" + s, one_hot(3), B(M(8)), "lane " + s + ": a against b, signed: <, =, >");
    l.add("pb" + s, one_hot(2), H(B(M(13))), "the pred record's bit for lane " + s + ": 0 set, 1 clear");
    for (const char* f : {"fna", "fnb", "fbz", "fbn"})  // binary32 flags, 0 yes, 1 no
      l.add(f + s, one_hot(2), C(M(6), M(9)),
            "lane " + s + ": 0 " +
                (f[2] == 'a' ? "a is a NaN" : f[2] == 'b' ? "b is a NaN" : f[2] == 'z' ? "both are +-0" : "both have the sign bit"));
    l.add("fcf" + s, one_hot(4), C(M(9), M(13)), "lane " + s + ": the IEEE order of a and b: <, =, >, unordered");
    l.add("fmo" + s, one_hot(6), C(M(9), M(13)), "lane " + s + ": min / max's order: <, =, > (-0 < +0); a NaN, b NaN, both");
  }
  l.add("oan", one_hot(2), C(M(9), M(14)), "0: lane nl's operand a is a NaN (neg.f32, abs.f32)");
  l.add("lbit", bits(), B(M(11)), "the logic ops' and shifts' input bits");
  l.add("lg", nibbles(), B(M(12)), "the logic op's word");
  l.add("pka", one_hot(3), B(M(13)), "min / max take 0 a, 1 b, 2 the canonical NaN");
  l.add("sa", one_hot(33), B(M(11)), "the shift amount (32: 32 or more)");
  l.add("sbit", bits(), B(M(13)), "the shifted word");
  l.add("xat", one_hot(2), B(M(6)), "0: the token consumes an atomic's old word");
  l.add("jb", nibbles(), B(M(6)), "the atomic's lane j's operand b (0 when xat is 1)");
  l.add("ja", groups(3, 16), C(M(6), M(7)), "nibbles 0..2 of the atomic's lane j's base address");
  l.add("xs", groups(8, 16), C(M(7), M(12)), "old + b per nibble % 16");
  l.add("xcl", groups(8, 3), C(M(7), M(11)), "old + b's nibble classes: kill, propagate, generate");
  l.add("ys", groups(3, 16), C(M(7), M(12)), "ja + imm per nibble % 16");
  l.add("ycl", groups(3, 3), C(M(7), M(11)), "ja + imm's nibble classes");
  l.add("xcar", groups(7, 2), C(M(11), M(12)), "carries into nibbles 1..7 of old + b");
  l.add("ycar", groups(2, 2), C(M(11), M(12)), "carries into nibbles 1..2 of the address");
  l.add("xw", digits({17, 9}), B(M(12)), "the atomic's word: / 8 (16 none) | % 8 (8 none)");
  l.add("xc", groups(8, 3), C(M(7), M(11)), "old against b per nibble: <, =, >");
  l.add("xcs", one_hot(3), C(M(7), M(11)), "old against b, the top nibble signed");
  l.add("xcu", one_hot(3), C(M(11), M(12)), "old against b, unsigned: <, =, >");
  l.add("xcg", one_hot(3), C(M(11), M(12)), "old against b, signed: <, =, >");
  l.add("xpk", one_hot(3), B(M(12)), "min / max, cas keep 0 old, 1 b, 2 c");
  l.add("jc", nibbles(), B(M(6)), "the atomic's lane j's operand c (cas)");
}

// The float microcode (stage_float.cpp): add.f32.sig's and add.f32.rnd's addends.
void float_fields(Layout& l) {
  l.add("fdh", one_hot(31), C(M(8), M(9)), "add.f32.sig: a's exponent bits 27..30 less b's, + 15");
  l.add("fdl", one_hot(31), C(M(8), M(9)), "add.f32.sig: a's exponent bits 23..26 less b's, + 15");
  l.add("fz", groups(2, 2), C(M(8), M(10)), "add.f32.sig: a's, b's exponent is 0: 0 yes, 1 no");
  l.add("fmc", groups(8, 3), C(M(8), M(9)), "add.f32.sig: |a| against |b| per nibble: <, =, >");
  l.add("fk", one_hot(32), C(M(8), M(10)), "add.f32.rnd: the normalising left shift 0..30, 31 = another op");
  l.add("fs", groups(6, 2), C(M(8), M(12)),
        "add.f32.rnd: 0 yes, 1 no: the sum is 0, x's exponent is 0, a NaN, b NaN, a infinite, b infinite");
  l.add("fov", one_hot(2), C(M(8), M(10)), "add.f32.rnd: 0 the rounded sum overflows");
  l.add("fce", one_hot(35), C(M(8), M(10)),
        "cvt.s32.f32, cvt.u32.f32: a's exponent - 127 for 127..158 (the range that converts), 32 below, 33 above "
        "(saturated, or NaN), 34 another op");
  l.add("fxb", one_hot(3), C(M(9), M(10)), "add.f32.sig: x (the larger magnitude) is 0 a, 1 b, 2 another op");
  l.add("fd", one_hot(33), C(M(9), M(10)), "add.f32.sig: the alignment shift 0..31 (31: 31 or more), 32 = another op");
  l.add("fx1", bits(), C(M(9), M(11)), "the float microcode's first addend (0 for other ops)");
  l.add("fx2", bits(), C(M(10), M(11)), "the second addend, complemented when fneg");
  l.add("fx3", groups(9, 2), C(M(9), M(11)), "the third addend's bits 23..31 (0 off, 1 on; the rest are 0)");
  l.add("fneg", one_hot(2), C(M(10), M(11)), "1: the adder takes ~fx2 (add.f32.sig of unlike signs)");
  l.add("fcin", one_hot(2), C(M(10), M(11)), "the float microcode's carry into the adder: 0, 1");
  l.add("fcls", one_hot(kFloatClasses), B(M(12)), "add.f32.rnd's result: the sum, +, -; NaN; +inf, -inf; +0, -0");
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
  float_fields(l);
  l.place();
  return l;
}

const Layout& machine_fields() {
  static const Layout l = machine_layout();
  return l;
}

std::vector<int> machine_hots() {
  // h[s + 1] = h[s] + what sublayer s writes first - what it clears; h[0] the embedding's.
  const Layout l = machine_layout();
  std::vector<int> h(2 * kLayerCount + 1, 0);
  for (const Field& f : l.fields) {
    const int from = f.life.born + 1, to = f.life.cleared == kNever ? static_cast<int>(h.size()) : f.life.cleared + 1;
    for (int s = from; s < to && s < static_cast<int>(h.size()); ++s) h[static_cast<size_t>(s)] += f.life.hots;
  }
  return h;
}

int embedding_hots(const Layout& l) {
  int hots = 0;
  for (const Field& f : l.fields)
    if (f.life.born == kEmbedding && f.code.kind != Code::Kind::kOnes) hots += f.life.hots;
  return hots;
}

int machine_hidden_size() { return (machine_layout().used + 31) / 32 * 32; }

}  // namespace qgpu::lift
