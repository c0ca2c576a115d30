// The construction, stage by stage. Conventions (docs/design.md §3, DESIGN-NOTES §2-3):
// - The token embedding sets exactly one dim per field group (a "none" entry where the
//   token has no such field), 19 ones per token, so every token's residual has the same
//   norm and RMSNorm is a compile-time constant: a hot dim reads as u = 1/rms after it.
// - GDN heads are exact RAMs: keys are one-hot after SiLU and the L2 norm (pre-activations
//   +alpha/2 or <= -alpha/2, alpha = 400: SiLU gives alpha/2 or exactly 0), beta =
//   sigmoid(30) = 1, decay exp(-exp(-30) ln 2) = 1. Writes that must not land go to the
//   junk slot 127; `begin` writes the null slot 126.
// - Values are codes of equal entries (lambda after SiLU), so a row is replaced exactly
//   (x + (v - x) is exact when both are 0 or lambda) and reads are renormalised by the
//   gated RMSNorm to the same pattern whatever the scale.
#include "lift/machine_model.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "base/error.h"
#include "gpu/vocab.h"

namespace qgpu::lift {
namespace {

using engine::Config;

constexpr float kAlpha = 400.0f;    // key pre-activation scale
constexpr float kLambda = 24.0f;    // value code entries (SiLU(24) = 24 in f32/bf16/f16)
constexpr float kQuery = 32.0f;     // query pre-activation
constexpr float kBeta = 30.0f;      // sigmoid(30) = 1
constexpr float kGate = 20.0f;      // SiLU(20) = 20: the z gate of a head that always reads
constexpr int kNone = 16;           // the "none" entry of a nibble group
constexpr int kHotsPerToken = 23;
constexpr int kFx = 64;             // field value x of op (op + 1), guard, d, a, b, c tokens

// One-hot groups of the embedding, in order.
struct EmbedFields {
  int fam, addr, vend, vnib, hnib, m1nib, m2nib, tnib;
};

int nibble(uint32_t v, int g) { return static_cast<int>(v >> (4 * g) & 0xf); }

bool is_field(Tok t) {
  return t == Tok::kOp || t == Tok::kGuard || t == Tok::kFieldD || t == Tok::kFieldA ||
         t == Tok::kFieldB || t == Tok::kFieldC;
}

// The dims token `r` sets (value 1 each).
std::vector<int> embedding_dims(const Layout& l, const Rec& r) {
  std::vector<int> d;
  d.push_back(l["fam"].dim(static_cast<int>(r.kind)));
  int addr = 128;
  if (r.kind == Tok::kMemAt) addr = r.x;
  if (r.kind == Tok::kBegin) addr = kNullSlot;
  if (r.kind == Tok::kRomAt || r.kind == Tok::kRun) addr = kJunkSlot;
  d.push_back(l["addr"].dim(addr));
  bool vend = (r.kind == Tok::kSmall && r.x == kTagData) || r.kind == Tok::kTail || r.kind == Tok::kBegin;
  d.push_back(l["vend"].dim(vend ? 1 : 0));
  auto group = [&](const char* field, int groups, int g0, std::optional<uint32_t> v) {
    for (int g = 0; g < groups; ++g) d.push_back(l[field].dim(17 * g + (v ? nibble(*v, g0 + g) : kNone)));
  };
  std::optional<uint32_t> small, byte;
  if (r.kind == Tok::kSmall) small = static_cast<uint32_t>(r.y);
  if (r.kind == Tok::kBegin || r.kind == Tok::kRomAt) small = 0u;  // null word; a block's imm 0
  if (r.kind == Tok::kHead) byte = static_cast<uint32_t>(r.y);
  if (r.kind == Tok::kMid1 || r.kind == Tok::kMid2 || r.kind == Tok::kTail) byte = static_cast<uint32_t>(r.x);
  group("vnib", 8, 0, small);
  group("hnib", 2, 0, r.kind == Tok::kHead ? byte : std::nullopt);
  group("m1nib", 2, 0, r.kind == Tok::kMid1 ? byte : std::nullopt);
  group("m2nib", 2, 0, r.kind == Tok::kMid2 ? byte : std::nullopt);
  group("tnib", 2, 0, r.kind == Tok::kTail ? byte : std::nullopt);
  // The field value: op + 1 (0 = empty block), the guard or field code; @b clears all to 0.
  int fx = kFx;
  if (is_field(r.kind)) fx = r.kind == Tok::kOp ? r.x + 1 : r.x;
  if (r.kind == Tok::kRomAt) fx = 0;
  d.push_back(l["fx"].dim(fx));
  // The ROM block address (8 * hi + lo, rom = 1) at @b; cleared by begin/@m/run.
  bool sets_addr = addr != 128;
  int block = r.kind == Tok::kRomAt ? r.x : 0;
  d.push_back(l["bhi"].dim(sets_addr ? block / 8 : 16));
  d.push_back(l["blo"].dim(sets_addr ? block % 8 : 8));
  d.push_back(l["brom"].dim(sets_addr ? (r.kind == Tok::kRomAt ? 1 : 0) : 2));
  CHECK(static_cast<int>(d.size()) == kHotsPerToken);
  return d;
}

void build_embedding(Builder& b, const Layout& l) {
  for (int id = 0; id < vocab_size(); ++id)
    for (int dim : embedding_dims(l, decode_token(id))) b.at("model.embed_tokens.weight", id, dim) = 1.0f;
}

// Weight that makes a hot dim contribute `target` to a pre-activation, given rms.
float w(float target, float rms) { return target * rms; }

// Rows of in_proj_qkv for head h: q row i, k row i, v row j.
int64_t q_row(const Config& c, int h, int i) { return int64_t{h} * c.linear_key_head_dim + i; }
int64_t k_row(const Config& c, int h, int i) { return c.key_dim() + q_row(c, h, i); }
int64_t v_row(const Config& c, int h, int j) { return 2 * int64_t{c.key_dim()} + int64_t{h} * c.linear_value_head_dim + j; }

// A constant pre-activation: every token has exactly one `fam` dim hot.
void add_constant(Builder& b, const std::string& tensor, int64_t row, const Layout& l, float target, float rms) {
  for (int f = 0; f < l["fam"].size; ++f) b.at(tensor, row, l["fam"].dim(f)) += w(target, rms);
}

// Head h of layer il always writes (beta 1), never decays, reads through a constant gate.
void head_basics(Builder& b, const Layout& l, int il, int h, float rms) {
  std::string a = b.layer(il) + "linear_attn.";
  add_constant(b, a + "in_proj_b.weight", h, l, kBeta, rms);
  for (int j = 0; j < b.config.linear_value_head_dim; ++j)
    add_constant(b, a + "in_proj_z.weight", int64_t{h} * b.config.linear_value_head_dim + j, l, kGate, rms);
}

// The current-token tap only, for q/k/v channels of head h.
void current_tap(Builder& b, int il, int h) {
  const Config& c = b.config;
  int K = c.linear_conv_kernel_dim;
  for (int i = 0; i < c.linear_key_head_dim; ++i) {
    b.conv(il, q_row(c, h, i), K - 1) = 1.0f;
    b.conv(il, k_row(c, h, i), K - 1) = 1.0f;
  }
  for (int j = 0; j < c.linear_value_head_dim; ++j) b.conv(il, v_row(c, h, j), K - 1) = 1.0f;
}

float embed_rms(const Config& c) { return std::sqrt(float(kHotsPerToken) / float(c.hidden_size)); }
// After L0: the embedding, img_addr (1 hot) and rom_addr (3 hots).
float l1_rms(const Config& c) { return std::sqrt(float(kHotsPerToken + 4) / float(c.hidden_size)); }

// out_proj scale that turns a read of an n-hot code into ones: the gated norm leaves
// sqrt(dv / n) at each hot entry, times SiLU(z) = kGate.
float read_scale(const Config& c, int n_hot) {
  return 1.0f / (std::sqrt(float(c.linear_value_head_dim) / float(n_hot)) * kGate);
}

// Head h of layer il: slot 0 is written by tokens that set an address (begin/@m/@b/run),
// the junk slot by all others; every token reads slot 0 (query constant).
void address_head(Builder& b, const Layout& l, int il, int h, float rms) {
  const Config& c = b.config;
  std::string qkv = b.layer(il) + "linear_attn.in_proj_qkv.weight";
  head_basics(b, l, il, h, rms);
  current_tap(b, il, h);
  add_constant(b, qkv, q_row(c, h, 0), l, kQuery, rms);
  add_constant(b, qkv, k_row(c, h, 0), l, kAlpha / 2, rms);
  b.at(qkv, k_row(c, h, 0), l["addr"].dim(128)) += w(-kAlpha, rms);
  add_constant(b, qkv, k_row(c, h, kJunkSlot), l, -kAlpha / 2, rms);
  b.at(qkv, k_row(c, h, kJunkSlot), l["addr"].dim(128)) += w(kAlpha, rms);
}

// L1 of the ROM: head 1 of L0 holds the block address as hi | lo | rom one-hots.
void build_rom_address(Builder& b, const Layout& l) {
  const Config& c = b.config;
  const int il = kImageAddrLayer, h = 1;
  const float rms = embed_rms(c);
  std::string qkv = b.layer(il) + "linear_attn.in_proj_qkv.weight";
  address_head(b, l, il, h, rms);
  for (int j = 0; j < 16; ++j) b.at(qkv, v_row(c, h, j), l["bhi"].dim(j)) = w(kLambda, rms);
  for (int j = 0; j < 8; ++j) b.at(qkv, v_row(c, h, 16 + j), l["blo"].dim(j)) = w(kLambda, rms);
  for (int j = 0; j < 2; ++j) b.at(qkv, v_row(c, h, 24 + j), l["brom"].dim(j)) = w(kLambda, rms);
  for (int j = 0; j < 26; ++j)
    b.at(b.layer(il) + "linear_attn.out_proj.weight", l["rom_addr"].dim(j), int64_t{h} * 128 + j) = read_scale(c, 3);
}

// L0: the image address. begin/@m/@b/run write slot 0 with their address code; every
// token reads slot 0 into img_addr (about 1.0 at the address, 0 elsewhere).
void build_image_address(Builder& b, const Layout& l) {
  const Config& c = b.config;
  const int il = kImageAddrLayer, h = 0;
  const float rms = embed_rms(c);
  std::string qkv = b.layer(il) + "linear_attn.in_proj_qkv.weight";
  address_head(b, l, il, h, rms);
  for (int j = 0; j < 128; ++j) b.at(qkv, v_row(c, h, j), l["addr"].dim(j)) = w(kLambda, rms);
  for (int j = 0; j < 128; ++j)
    b.at(b.layer(il) + "linear_attn.out_proj.weight", l["img_addr"].dim(j), int64_t{h} * 128 + j) = read_scale(c, 1);
}

// The value channels of a word, as the memory heads take them: head `small` from a `v`
// token, head `bytes` from the `h m1 m2 t` the conv assembles.
void word_values(Builder& b, const Layout& l, int il, int small, int bytes, float rms) {
  const Config& c = b.config;
  const int K = c.linear_conv_kernel_dim;
  std::string qkv = b.layer(il) + "linear_attn.in_proj_qkv.weight";
  const char* byte_field[4] = {"hnib", "m1nib", "m2nib", "tnib"};
  for (int g = 0; g < 8; ++g)
    for (int n = 0; n < 16; ++n) {
      int j = 16 * g + n;
      b.at(qkv, v_row(c, small, j), l["vnib"].dim(17 * g + n)) = w(kLambda, rms);
      b.at(qkv, v_row(c, bytes, j), l[byte_field[g / 2]].dim(17 * (g % 2) + n)) = w(kLambda, rms);
      b.conv(il, v_row(c, bytes, j), K - 1) = 0.0f;
      b.conv(il, v_row(c, bytes, j), g / 2) = 1.0f;  // byte g/2 sits 3 - g/2 tokens back
    }
}

// L1: memory. Slot i < 127 is keyed alpha (img_addr_i + vend - 1.5); the junk slot
// alpha (img_addr_127 - vend + 0.5).
void build_memory(Builder& b, const Layout& l) {
  const Config& c = b.config;
  const int il = kMemoryLayer;
  const float rms = l1_rms(c);
  std::string qkv = b.layer(il) + "linear_attn.in_proj_qkv.weight";
  for (int h : kMemoryHeads) {
    head_basics(b, l, il, h, rms);
    current_tap(b, il, h);
    for (int i = 0; i < kJunkSlot; ++i) {
      b.at(qkv, k_row(c, h, i), l["img_addr"].dim(i)) += w(kAlpha, rms);
      b.at(qkv, k_row(c, h, i), l["vend"].dim(1)) += w(kAlpha, rms);
      add_constant(b, qkv, k_row(c, h, i), l, -1.5f * kAlpha, rms);
    }
    b.at(qkv, k_row(c, h, kJunkSlot), l["img_addr"].dim(kJunkSlot)) += w(kAlpha, rms);
    b.at(qkv, k_row(c, h, kJunkSlot), l["vend"].dim(1)) += w(-kAlpha, rms);
    add_constant(b, qkv, k_row(c, h, kJunkSlot), l, 0.5f * kAlpha, rms);
  }
  word_values(b, l, il, kMemoryHeads[0], kMemoryHeads[1], rms);
}

// L1 ROM heads: block slot i is keyed alpha (hi + lo + rom + writes - 3.5), where
// `writes` is 1 for the head's own field token and for @b (which clears every field to
// 0); otherwise the key is zero and nothing is written (k = 0 leaves S unchanged).
void build_rom(Builder& b, const Layout& l) {
  const Config& c = b.config;
  const int il = kRomLayer;
  const float rms = l1_rms(c);
  std::string qkv = b.layer(il) + "linear_attn.in_proj_qkv.weight";
  const Tok fields[6] = {Tok::kOp, Tok::kGuard, Tok::kFieldD, Tok::kFieldA, Tok::kFieldB, Tok::kFieldC};
  const Field& ra = l["rom_addr"];
  for (int f = 0; f < kRomHeadCount; ++f) {
    int h = kRomHeads[f];
    head_basics(b, l, il, h, rms);
    current_tap(b, il, h);
    for (int i = 0; i < kBlocks; ++i) {
      int64_t row = k_row(c, h, i);
      b.at(qkv, row, ra.dim(i / 8)) += w(kAlpha, rms);
      b.at(qkv, row, ra.dim(16 + i % 8)) += w(kAlpha, rms);
      b.at(qkv, row, ra.dim(25)) += w(kAlpha, rms);
      b.at(qkv, row, l["fam"].dim(static_cast<int>(Tok::kRomAt))) += w(kAlpha, rms);
      if (f < 6)
        b.at(qkv, row, l["fam"].dim(static_cast<int>(fields[f]))) += w(kAlpha, rms);
      else
        b.at(qkv, row, l["vend"].dim(1)) += w(kAlpha, rms);
      add_constant(b, qkv, row, l, -3.5f * kAlpha, rms);
    }
    if (f < 6)
      for (int j = 0; j < kFx; ++j) b.at(qkv, v_row(c, h, j), l["fx"].dim(j)) = w(kLambda, rms);
  }
  word_values(b, l, il, kRomHeads[6], kRomHeads[7], rms);
}

}  // namespace

Layout machine_layout() {
  Layout l;
  l.add("fam", kNumFamilies);
  l.add("addr", 129);       // 0..125 word, 126 null (begin), 127 junk (@b, run), 128 none
  l.add("vend", 2);         // 1: the token completes an image value (v data, t) or is begin
  l.add("vnib", 8 * 17);    // a `v` word's 8 nibbles, 16 = none
  l.add("hnib", 2 * 17);    // byte 0 of h, then bytes 1..3 of m1, m2, t
  l.add("m1nib", 2 * 17);
  l.add("m2nib", 2 * 17);
  l.add("tnib", 2 * 17);
  l.add("fx", kFx + 1);     // field value of a ROM field token, none = kFx
  l.add("bhi", 17);         // ROM block / 8 (16 = none)
  l.add("blo", 9);          // ROM block % 8 (8 = none)
  l.add("brom", 3);         // 1: @b (ROM mode), 0: begin/@m/run, 2: none
  l.add("img_addr", 128);   // L0's read of the image address
  l.add("rom_addr", 26);    // L0's read of the ROM block address: hi 16 | lo 8 | rom 2
  return l;
}

Config machine_config() {
  Config c;
  c.hidden_size = 768;
  c.num_hidden_layers = 3;
  c.layer_types = {"linear_attention", "linear_attention", "full_attention"};
  c.intermediate_size = 6144;
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

Builder build_machine() {
  Builder b(machine_config());
  Layout l = machine_layout();
  build_embedding(b, l);
  build_image_address(b, l);
  build_rom_address(b, l);
  build_memory(b, l);
  build_rom(b, l);
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

}  // namespace qgpu::lift
