// The launch and its waves (docs/design.md §3, "lane status"): what the lane status layer
// needs to know which lanes live in a wave.
//   L0 GDN heads 11-15: the header gx, gy, bx, by and the wave, each written by its token
//      (the wave by `run` and `wave`; all by `begin`, with the value 1 or wave 0) as x - 1
//      (the wave as k) in hi and lo nibbles, read at every token: h_gx, h_gy, h_bx, h_by,
//      h_wave;
//   L1 MLP: threads = bx * by (thr: t - 1, 16 = more than 16), and B = gx * gy - 1 with
//      B >> 1 and B >> 2 (bh bl, x1h x1l, x2h x2l: nibbles), tables over the header;
//   L2 MLP: the wave k against B >> s for s = 0, 1, 2 (ctas_per_wave 1, 2, 4), nibble by
//      nibble: cmph{s}, cmpl{s} in {<, =, >}.
// A lane of CUDA block slot c lives in wave k iff k * cpw + c <= B, i.e. k < B >> s, or
// k == B >> s and c <= B % cpw (stage_lanes.cpp combines them).
#include "lift/machine_model.h"
#include "lift/stages.h"

namespace qgpu::lift {
namespace {

// L0's heads kHeaderHeads, beside the control heads: the header's values are in its
// tokens' embeddings.
const char* const kHeaderFields[5] = {"h_gx", "h_gy", "h_bx", "h_by", "h_wave"};

void build_header(Net& n) {
  const Tok writers[5] = {Tok::kGridX, Tok::kGridY, Tok::kBlockX, Tok::kBlockY, Tok::kWave};
  for (int i = 0; i < 5; ++i) {
    Head h(n, kHeaderLayer, kHeaderHeads[i]);
    h.key(0, n.fam(writers[i]));
    h.key(0, n.fam(Tok::kBegin));
    if (i == 4) h.key(0, n.fam(Tok::kRun));
    h.key_bias(0, -0.5f);
    h.query_bias(0, 0.5f);
    for (int v = 0; v < 16; ++v) {
      h.value(v, n.dim("lh", v));
      h.value(16 + v, n.dim("ll", v));
    }
    for (int j = 32; j < 38; ++j) h.pad(j);
    for (int j = 0; j < 32; ++j) h.read(j, n.dim(kHeaderFields[i], j), 8);
  }
}

// A header value x - 1 (or the wave) as its two nibble literals.
Mlp::Literal nib(Net& n, const char* field, int hi_lo, int v) { return {n.digit(field, hi_lo, v)}; }

void build_geometry(Net& n) {
  Mlp m(n, kLaunchLayer);
  for (int i = 1; i <= 16; ++i)
    for (int j = 1; j <= 16; ++j)
      m.rule({nib(n, "h_bx", 1, i - 1), nib(n, "h_by", 1, j - 1)}, {n.dim("thr", i * j <= 16 ? i * j - 1 : 16)});
  for (int gx = 1; gx <= kMaxGridBlocks; ++gx)
    for (int gy = 1; gx * gy <= kMaxGridBlocks; ++gy) {
      int B = gx * gy - 1;
      m.rule({nib(n, "h_gx", 0, (gx - 1) / 16), nib(n, "h_gx", 1, (gx - 1) % 16), nib(n, "h_gy", 0, (gy - 1) / 16),
              nib(n, "h_gy", 1, (gy - 1) % 16)},
             {n.dim("bh", B / 16), n.dim("bl", B % 16), n.dim("x1h", (B >> 1) / 16), n.dim("x1l", (B >> 1) % 16),
              n.dim("x2h", (B >> 2) / 16), n.dim("x2l", (B >> 2) % 16)});
    }
}

void build_wave_compare(Net& n) {
  Mlp m(n, kRegisterLayer);
  const char* hi[3] = {"bh", "x1h", "x2h"};
  const char* lo[3] = {"bl", "x1l", "x2l"};
  for (int s = 0; s < 3; ++s)
    for (int a = 0; a < 16; ++a)
      for (int b = 0; b < 16; ++b) {
        int c = a < b ? 0 : a == b ? 1 : 2;
        m.rule({nib(n, "h_wave", 0, a), {n.dim(hi[s], b)}}, {n.dim("cmph" + std::to_string(s), c)});
        m.rule({nib(n, "h_wave", 1, a), {n.dim(lo[s], b)}}, {n.dim("cmpl" + std::to_string(s), c)});
      }
}

}  // namespace

void build_launch(Net& n) {
  build_header(n);
  build_geometry(n);
  build_wave_compare(n);
}

}  // namespace qgpu::lift
