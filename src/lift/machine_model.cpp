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

// The token embedding (stage_image.cpp): one hot per group, kEmbedHots in all.
void embedding_fields(Layout& l) {
  l.add("fam", kNumFamilies);
  l.add("one", 1);          // every token: the constant 1 that biases read
  l.add("addr", 129);       // 0..125 word, 126 null (begin), 127 junk (@b, run), 128 none
  l.add("vend", 2);         // 1: the token completes an image value (v data, t) or is begin
  l.add("vnib", 8 * 17);    // a `v` word's 8 nibbles, 16 = none
  l.add("hnib", 2 * 17);    // byte 0 of h, then bytes 1..3 of m1, m2, t
  l.add("m1nib", 2 * 17);
  l.add("m2nib", 2 * 17);
  l.add("tnib", 2 * 17);
  l.add("vtag", 17);        // a `v` record's tag (lane mask; 0 image data), 16 = none
  l.add("htag", 17);        // an `h` record's tag
  l.add("sw", 5);           // sched: warp (begin: 0), 4 = none
  l.add("shi", 17);         // sched: block / 8 (begin: 15), 16 = none
  l.add("slo", 9);          // sched: block % 8 (begin: 7), 8 = none
  l.add("smask", 17);       // sched: active mask (begin: 0), 16 = none
  l.add("pmask", 17);       // pred: lanes written, 16 = none
  l.add("pbits", 17);       // pred: result bits, 16 = none
  l.add("barc", 5);         // bar: CUDA block slot, 4 = none
  l.add("barp", 3);         // bar: new parity (begin: 0), 2 = none
  l.add("stl", 5);          // st: the lane, 4 = none
  l.add("sthi", 17);        // st: the word / 8, 16 = none
  l.add("stlo", 9);         // st: the word % 8, 8 = none
  l.add("lh", 17);          // gx gy bx by: x - 1; wave: k; run, begin: 0; / 16, 16 = none
  l.add("ll", 17);          // % 16
  l.add("fx", 65);          // field value of a ROM field token (0 at @b, begin), 64 = none
  l.add("bhi", 17);         // ROM block / 8 (16 = none)
  l.add("blo", 9);          // ROM block % 8 (8 = none)
  l.add("brom", 3);         // 1: @b or begin (ROM mode), 0: @m/run, 2: none
}

// What L0-L3 read and their MLPs write: the step, the value, the fetch, the launch, the
// register reads, lane control, parity and liveness.
void state_fields(Layout& l) {
  // L0's reads.
  l.add("img_addr", 24);    // the image address: / 8 (16) | % 8 (8)
  l.add("rom_addr", 26);    // the ROM block address: hi 16 | lo 8 | rom 2
  l.add("step", kStepCode);        // the step: warp 4 | hi 16 | lo 8 | lane in/out 8
  l.add("wb_word", 128);    // the consumed value (0 when none)
  l.add("wb_tag", 8);       // its tag: lane in/out
  l.add("pad", 8);          // energy at pred, where wb_word is empty
  l.add("btag", 8);         // the tag of a 4-byte value in flight at m1, m2: lane in/out
  // L1's reads: the fetch.
  l.add("f_op", 64);        // op + 1, 0 = empty block
  l.add("f_guard", 9);
  for (const char* f : {"f_d", "f_a", "f_b", "f_c"}) l.add(f, 32);
  l.add("f_imm", 128);
  // L1's reads and MLP: the launch (stage_launch.cpp).
  for (const char* f : {"h_gx", "h_gy", "h_bx", "h_by", "h_wave"}) l.add(f, 32);  // hi 16 | lo 16
  l.add("thr", 17);         // threads per CUDA block - 1, 16 = more than 16
  for (const char* f : {"bh", "bl", "x1h", "x1l", "x2h", "x2l"}) l.add(f, 16);  // B, B >> 1, B >> 2
  // L2's reads: operands a, b, c (words) and the guard (nibble 0) of each lane.
  for (const char* port : {"ra", "rb", "rc"})
    for (int lane = 0; lane < kLanes; ++lane) l.add(port + std::to_string(lane), 128);
  for (int lane = 0; lane < kLanes; ++lane) l.add("rg" + std::to_string(lane), 16);
  // L2's MLP: lane control (stage_control.cpp).
  for (int lane = 0; lane < kLanes; ++lane) {
    std::string s = std::to_string(lane);
    l.add("eff" + s, 2);      // 0: effective (in the mask, guard passes), 1: not
    l.add("npc_hi" + s, 17);  // the PC after the step / 8, 16 = not in the mask
    l.add("npc_lo" + s, 9);   // % 8, 8 = not in the mask
    l.add("act" + s, 4);      // 0 none, 1 exits, 2 arrives at the barrier, 3 not a sched
  }
  for (int k = 0; k < 3; ++k) {  // the wave against B >> k: <, =, >
    l.add("cmph" + std::to_string(k), 3);
    l.add("cmpl" + std::to_string(k), 3);
  }
  // L3's reads and MLP: barrier parity, liveness, flags (stage_lanes.cpp).
  for (int c = 0; c < kMaxCtas; ++c) l.add("par" + std::to_string(c), 2);
  for (int w = 0; w < kWarps; ++w)
    for (int lane = 0; lane < kLanes; ++lane) l.add("live" + std::to_string(w) + std::to_string(lane), 3);
  for (int w = 0; w < kWarps; ++w) l.add("rflag" + std::to_string(w), 3);
  for (int lane = 0; lane < kLanes; ++lane) l.add("sflag" + std::to_string(lane), 3);
}

// The scheduler (stage_sched.cpp).
void scheduler_fields(Layout& l) {
  l.add("lastw", kWarps);   // L0: the last warp that ran
  for (int w = 0; w < kWarps; ++w)  // L4: lane status rows
    for (int lane = 0; lane < kLanes; ++lane) l.add("ls" + std::to_string(w) + std::to_string(lane), kLaneStatusCode);
  for (int w = 0; w < kWarps; ++w)  // L4 MLP: 0 runnable, 1 waiting, 2 finished
    for (int lane = 0; lane < kLanes; ++lane) l.add("rs" + std::to_string(w) + std::to_string(lane), 3);
  l.add("wmore", 2);        // 0: another wave follows
  l.add("nk_hi", 16);       // the wave k + 1
  l.add("nk_lo", 16);
  l.add("nw", kWarps + 1);  // L5 MLP: the next warp, kWarps = none
  for (int c = 0; c < kMaxCtas; ++c) l.add("rel" + std::to_string(c), 2);  // 0: slot c releases
  for (int lane = 0; lane < kLanes; ++lane) {  // L6 MLP: warp nw's lanes' PCs (16, 8: not runnable)
    l.add("ch" + std::to_string(lane), 17);
    l.add("cl" + std::to_string(lane), 9);
  }
  l.add("bar", kMaxCtas + 1);  // the first released slot, kMaxCtas = none
  l.add("barq", 3);            // its new parity, 2 = none
  l.add("sfam", 4);            // kSchedBar, kSchedSched, kSchedWave, kSchedEnd
  for (int i = 0; i < kLanes; ++i)  // L7 MLP: lane i's PC against lane j's: <, =, >
    for (int j = i + 1; j < kLanes; ++j) l.add("cmp" + std::to_string(i) + std::to_string(j), 3);
  for (int lane = 0; lane < kLanes; ++lane) l.add("smk" + std::to_string(lane), 2);  // L8 MLP: 0 in the mask
  l.add("mhi", 16);         // the min PC / 8, % 8
  l.add("mlo", 8);
}

// The word memory gets, the next record's lane and its operands (stage_operands.cpp).
void operand_fields(Layout& l) {
  l.add("mw", 128);         // L8 MLP: the word memory gets (st: the lane's operand b, else wb_word)
  l.add("opf", 2 * kOpSetCount);  // L4 MLP: per op set (kOpSets), 0 the op is in it, 1 not
  // The next record's lane and its operands (stage_operands.cpp).
  l.add("nl", kLanes + 1);  // L3 MLP: kLanes = none
  l.add("wbase", 4);        // L2 MLP: the step's warp % warps per CUDA block
  l.add("cta", 32);         // L2 MLP: the step's CUDA block (slot + k cpw): lo | hi
  l.add("cq1", 16);         // L3 MLP: cta's hi nibble / gx, % gx (gx <= 16)
  l.add("cr1", 16);
  l.add("ctx", 32);         // L4 MLP: %ctaid.x: lo | hi
  l.add("cq2", 16);         // %ctaid.y's lo nibble (its hi is cq1)
  for (int lane = 0; lane < kLanes; ++lane) {  // L3 MLP: each lane's %tid.x, %tid.y
    l.add("tidx" + std::to_string(lane), 16);
    l.add("tidy" + std::to_string(lane), 16);
  }
  l.add("tidx", 16);        // L4 MLP: lane nl's %tid.x, %tid.y
  l.add("tidy", 16);
  for (const char* f : {"oa", "ob", "oc"}) l.add(f, 128);  // L5 MLP
}

// The multiplier (stage_mul.cpp): one region whose codes each layer clears for the next's.
void multiplier_fields(Layout& l) {
  l.add("mulx", 16 * kMulPairs + kMulHiValues * kMulPairs + 8 * 10 * 2);
  l.add_over("plo", 16 * kMulPairs, "mulx", 0);  // L6 MLP: products, low nibble
  l.add_over("phi", kMulHiValues * kMulPairs, "mulx", 16 * kMulPairs);  // high nibble
  l.add_over("pbt", 8 * 10 * 2, "mulx", (16 + kMulHiValues) * kMulPairs);  // column 7's bit products: on, off
  int at = 0;
  auto over = [&](const char* name, int size) {
    l.add_over(name, size, "mulx", at);
    at += size;
  };
  over("cam", 7 * 16);  // L7 MLP: A_k mod 16, / 16
  over("cad", 7 * 8);
  over("cbm", 7 * 16);  // B_k (k = 1..7) mod 16, / 16 (k <= 6)
  over("cbd", 6 * 8);
  over("chm", 4 * 16);  // column 7's chunks mod 16
  over("em", 8 * 16);   // L8 MLP: E_k mod 16, / 16 (k <= 6)
  over("ed", 7 * 4);
}

// The ALU and the emit stage (stage_alu.cpp, stage_emit.cpp).
void execute_fields(Layout& l) {
  l.add("une", kLanes * 3 * 8 * 2);  // L6 MLP: lane, port, nibble: 0 equal to lane nl's, 1 differs
  l.add("as", 8 * 16);      // L6 MLP: the adder's nibble sums mod 16
  l.add("acl", 8 * 3);      // and their classes: kill, propagate, generate
  l.add("uni", 2);          // L7 MLP: 0 every effective lane reads lane nl's operands
  l.add("car", 7 * 2);      // the carry into nibbles 1..7: 0 no, 1 yes
  l.add("sum", 128);        // L8 MLP: the adder's word
  l.add("etag", 2 * kLanes);  // the value record's tag: lane in/out
  l.add("mr", 128);         // L9: the word a ld reads (the null slot's 0 otherwise)
  l.add("res", 128);        // L9 MLP: lane nl's result
  l.add("fits", 2);         // 0: res is a one-token value
  l.add("ef", kEmitFamilies);  // the record family emitted next
  // The predicate ops, per lane (stage_pred.cpp).
  for (int lane = 0; lane < kLanes; ++lane) {
    const std::string s = std::to_string(lane);
    l.add("cmpn" + s, 8 * 3);  // L6 MLP: a against b per nibble: lt, eq, gt
    l.add("cms" + s, 3);       // the top nibble, signed
    l.add("pl" + s, 2);        // predicate logic: 0 true, 1 false
    l.add("cu" + s, 3);        // L7 MLP: a against b, unsigned: lt, eq, gt
    l.add("cs" + s, 3);        // signed
    l.add("pb" + s, 2);        // L8 MLP: the pred record's bit: 0 set, 1 clear
  }
  // The logic ops and min / max (stage_select.cpp).
  l.add("lbit", 8 * 4 * 2);  // L6 MLP: per nibble and bit: 0 on, 1 off
  l.add("lg", 128);          // L7 MLP: the logic op's word
  l.add("pka", 2);           // L8 MLP: min / max take 0 a, 1 b
  l.add("sa", 33);           // L6 MLP: the shift amount (32: 32 or more)
  l.add("sbit", 32 * 2);     // L8 MLP: the shifted word's bits: 0 on, 1 off
  // An atomic's update at the token that consumes lane j's old word (stage_atomic.cpp).
  l.add("xat", 2);          // L7 MLP: 0 the token consumes an atomic's old word
  l.add("jb", 128);         // lane j's operand b (the word 0 when xat is 1)
  l.add("ja", 16 * 3);      // nibbles 0..2 of lane j's base
  l.add("xs", 8 * 16);      // L8 MLP: old + b per nibble mod 16, and the class
  l.add("xcl", 8 * 3);
  l.add("ys", 3 * 16);      // ja + imm per nibble mod 16, and the class
  l.add("ycl", 3 * 3);
  l.add("xcar", 7 * 2);     // L9 MLP: carries into nibbles 1..7 of old + b, 1..2 of the address
  l.add("ycar", 2 * 2);
  l.add("xw", 17 + 9);      // L10 MLP: the address / 4: / 8 (16 none) | % 8 (8 none)
  l.add("xc", 8 * 3);       // L8 MLP: old against b per nibble: lt, eq, gt
  l.add("xcs", 3);          // the top nibble, signed
  l.add("xcu", 3);          // L9 MLP: old against b, unsigned: lt, eq, gt
  l.add("xcg", 3);          // signed
  l.add("xpk", 3);          // L10 MLP: min / max, cas keep 0 old, 1 b, 2 c
  l.add("jc", 128);         // L4 MLP (nibbles 0..3), L6 MLP (4..7): lane j's operand c (cas)
}

}  // namespace

Layout machine_layout() {
  Layout l;
  embedding_fields(l);
  state_fields(l);
  scheduler_fields(l);
  operand_fields(l);
  multiplier_fields(l);
  execute_fields(l);
  return l;
}

std::vector<int> machine_hots() {
  // What each sublayer adds to the residual, in order: L0 mixer, L0 MLP, L1 mixer, ...
  const int adds[] = {
      2 + 3 + 7 + 8 + 4 + 1 + 4,          // L0: img_addr, rom_addr, step, wb_word or pad, wb_tag, lastw, btag
      0,
      6 + 8 + 5 * 2,                      // L1: fetched fields and imm; the header and wave
      1 + 6,                              // L1 MLP: thr; B, B >> 1, B >> 2 (hi, lo)
      3 * kLanes * 8 + kLanes,            // L2: operand words, guard nibbles
      kLanes * kLaneControlHots + 6 + 1 + 2,  // L2 MLP: lane control; wave comparisons; wbase; cta
      kMaxCtas,                           // L3: parity
      kWarps * kLanes + kWarps + kLanes + 1 + 2 * kLanes + 2,  // L3 MLP: live, rflag, sflag, nl, tidx{l} tidy{l}, cq1 cr1
      kWarps * kLanes * 4,                // L4: lane status (PC hi, lo, finished, flag)
      kWarps * kLanes + 1 + 2 + 2 + 3 + kOpSetCount + 4,  // L4 MLP: rs, wmore, nk, tidx, tidy, ctx, cq2, opf; jc's low half
      0,                                  // L5: attention no-op
      1 + kMaxCtas + 3 * 8,               // L5 MLP: nw, rel, oa, ob, oc
      0, 2 * kMulPairs + 8 * 10 + 4,      // L6 MLP: plo, phi, pbt; jc's high half
      0, 7 + 7 + 7 + 6 + 4 - (2 * kMulPairs + 8 * 10) + 1 + 8 + 3,  // L7 MLP: cam, cad, cbm, cbd, chm; L6's cleared; xat, jb, ja
      0, 8 + 7 - (7 + 7 + 7 + 6 + 4) + 8 + 8 + 8 + 3 + 3 + 8 + 1,  // L8 MLP: em, ed; L7's cleared; mw; xs, xcl, ys, ycl; xc, xcs
      0, 2 * kLanes + 3 + 96 + 16 + 10 * kLanes + 32 + 1 + 7 + 2 + 2,  // L9 MLP: ch, cl, bar, barq, sfam; une, as, acl; cmpn, cms, pl; lbit, sa; xcar, ycar; xcu, xcg
      0, 6 + 1 + 7 + 2 * kLanes + 8 + 2 + 1,  // L10 MLP: cmp; uni, car; cu, cs; lg; xw, xpk
      0, kLanes + 2 + 8 + kLanes + kLanes + 1 + 32,  // L11 MLP: smk, mhi, mlo; sum, etag; pb; pka, sbit
      8, 8 + 1 + 1,                       // L12: mr; MLP: res, fits, ef
  };
  std::vector<int> h = {kEmbedHots};
  for (int a : adds) h.push_back(h.back() + a);
  return h;
}

engine::Config machine_config() {
  engine::Config c;
  c.hidden_size = 7808;
  c.num_hidden_layers = 13;
  c.layer_types = std::vector<std::string>(13, "linear_attention");
  c.layer_types[5] = "full_attention";
  // The MLP units the construction uses today (two per rule or step; the widest: L4's
  // scheduler, %ctaid's division and half of cas's operand c, 6,056; L10's scheduler
  // compares, carries, logic words, the atomic's new word and address, 5,958), rounded up
  // to 64; at most Qwen3.5-2B's 6144, which a merge pads to with zero units.
  c.intermediate_size = 6080;
  c.vocab_size = (vocab_size() + 63) / 64 * 64;
  c.num_attention_heads = 8;
  c.num_key_value_heads = 2;
  c.head_dim = 256;
  c.linear_num_key_heads = 16;
  c.linear_num_value_heads = 16;
  c.linear_key_head_dim = 128;
  c.linear_value_head_dim = 128;
  c.tie_word_embeddings = false;
  c.dtype = "float32";
  c.eos_token_id = {token_id({Tok::kEnd})};
  CHECK(machine_layout().used <= c.hidden_size);
  return c;
}

Builder build_machine(int norm_width) {
  Builder b(machine_config());
  Layout l = machine_layout();
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

std::string machine_summary(const Builder& b) {
  const engine::Config& c = b.config;
  int64_t params = 0, nonzero = 0;
  std::vector<int64_t> layer_nonzero(static_cast<size_t>(c.num_hidden_layers), 0);
  for (const auto& [name, t] : b.tensors) {
    params += t.numel();
    int64_t set_nonzero = 0;
    t.set.for_each([&](int64_t, float x) { set_nonzero += x != 0.0f; });
    const int64_t nz = set_nonzero + (t.fill != 0.0f ? t.numel() - static_cast<int64_t>(t.set.size()) : 0);
    nonzero += nz;
    for (int il = 0; il < c.num_hidden_layers; ++il)
      if (name.rfind(b.layer(il), 0) == 0) layer_nonzero[static_cast<size_t>(il)] += nz;
  }
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
  return fmt::format(
      "residual: {} of {} dims used\nDeltaNet heads used: {} ({})\nwidest MLP: {} of {} units (layer {})\n"
      "MLP units (two per rule or step): {}\nparameters: {} ({} nonzero)\nnonzero per layer: {}\n",
      machine_layout().used, c.hidden_size, total_heads, heads, widest, c.intermediate_size, widest_layer, mlp, params,
      nonzero, per_layer);
}

}  // namespace qgpu::lift
