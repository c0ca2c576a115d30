// The construction's stages (internal to src/lift), each writing the weights of one part
// of the machine into a Net. machine_model.cpp calls them in order.
#pragma once

#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>

#include "gpu/isa.h"
#include "lift/construct.h"
#include "lift/machine_model.h"

namespace qgpu::lift {

// f_op dims (code op + 1; 0 the empty block) of the listed ops, or of every other code: a
// rule's literal "the op is one of these", or a threshold rule's veto "unless the op is one
// of these".
std::vector<int> op_dims(Net& n, std::initializer_list<Op> ops, bool except = false);
// The op sets the ALU's threshold rules are vetoed by, as dual-rail flags (opf, L4 MLP: 0
// the op is in the set, 1 not), so a threshold rule's veto is one dim instead of the 60-odd
// other op codes.
inline constexpr struct OpSet {
  const char* name;
  std::initializer_list<Op> ops;
} kOpSets[] = {
    {"mul", {Op::kMulLo, Op::kMadLo}}, {"mul.lo", {Op::kMulLo}}, {"mad.lo", {Op::kMadLo}},
    {"add", {Op::kAdd}}, {"sub", {Op::kSub}},
    {"addr", {Op::kLd, Op::kSt, Op::kAtomAdd, Op::kAtomMinS, Op::kAtomMinU, Op::kAtomMaxS, Op::kAtomMaxU, Op::kAtomExch, Op::kAtomCas}},
    {"neg", {Op::kNeg, Op::kAbs}}, {"and", {Op::kAnd}}, {"or", {Op::kOr}}, {"xor", {Op::kXor}}, {"not", {Op::kNot}},
    {"abits", {Op::kShl, Op::kShrU, Op::kShrS, Op::kPopc, Op::kClz}},  // ops that take a's bits into lbit as they are
    {"shl", {Op::kShl}}, {"shr.u", {Op::kShrU}}, {"shr.s", {Op::kShrS}},
    {"logic", {Op::kAnd, Op::kOr, Op::kXor, Op::kNot, Op::kBrev}},  // lg is lbit's word
    {"popc", {Op::kPopc}}, {"clz", {Op::kClz}}, {"brev", {Op::kBrev}},
    {"atom.add", {Op::kAtomAdd}}, {"atom.exch", {Op::kAtomExch}},
    {"atom.mm", {Op::kAtomMinS, Op::kAtomMinU, Op::kAtomMaxS, Op::kAtomMaxU}},  // the update is old or b by a compare
    {"atom.cmp", {Op::kAtomMinS, Op::kAtomMinU, Op::kAtomMaxS, Op::kAtomMaxU, Op::kAtomCas}}};  // old against b
inline constexpr int kOpSetCount = sizeof(kOpSets) / sizeof(kOpSets[0]);
// A threshold rule's veto "unless the op is in set `name`": its flag's "not" rail.
std::vector<int> op_veto(Net& n, std::string_view name);
// A rule's literal "the op is in set `name`": its flag's "in" rail.
std::vector<int> op_in(Net& n, std::string_view name);
// The set's op dims (op_dims of its ops).
std::vector<int> op_set_dims(Net& n, std::string_view name);
void build_op_flags(Net& n);

// A one-hot group of `size` dims of a field from `first` as a threshold term weighted by value
// (entry v weighs v; 0 left out).
Mlp::Term value_term(Net& n, const std::string& field, int first, int size);
// Nibble g of a word field (one-hot nibbles) as a threshold term: value v weighs w(v); the
// entries of weight 0 are left out (a term of none is empty).
Mlp::Term nibble_term(Net& n, const std::string& field, int g, const std::function<int(int)>& w);

// The same for the ops whose effect is listed.
std::vector<int> effect_dims(Net& n, std::initializer_list<Effect> effects, bool except = false);

// The token embedding: one hot per field group ("none" included) and the constants `one`
// and `one2` (embedding_hots() per token), and the head pattern (kHeadHots, plan.h).
// The pad channel of the ROM field heads (op, guard, d, a, b, c: a code and the pad).
inline constexpr int kRomPad = 127;
static_assert(kNumOps + 1 <= kFx && kFieldCodes <= kFx && kFx < kRomPad);
void build_embedding(Net& n);

// stage_image.cpp: the program image and memory. L0 image address and ROM block address;
// L1 the ROM's writes; L14 memory (image values and `st`).
void build_image(Net& n);

// stage_state.cpp: what consumed records write and what every token reads. L0 step and
// value word/tag; L1 the fetch (ROM reads at the step's block); L2 the register file.
void build_state(Net& n);

// The literals "nibble g of bit word `field` is v" (one rail per bit).
std::vector<Mlp::Literal> nibble_is(Net& n, const std::string& field, int g, int v);
// Nibble g of bit word `field` as threshold terms, times sign: one term per bit (the on rail,
// weight 2^b; top_signed: bit 3 weighs -8, the nibble as a signed value).
std::vector<Mlp::Term> nibble_bits(Net& n, const std::string& field, int g, int sign, bool top_signed = false);

// stage_float.cpp: add.f32.sig and add.f32.rnd's addends (L8-L10) and digits (L11), and
// add.f32.rnd's result class (fcls, L12), which the emit stage turns into res.
enum FloatClass { kPlus, kMinus, kNaN, kPlusInf, kMinusInf, kPlusZero, kMinusZero, kFloatClasses };
void build_float(Net& n);

// stage_launch.cpp: the header and wave heads (L1), threads and block counts (L1 MLP),
// the wave against the block count (L2 MLP).
void build_launch(Net& n);

// stage_lanes.cpp: barrier parity (L3), liveness and flags (L3 MLP), lane status (L4).
void build_lanes(Net& n);

// stage_sched.cpp: the last warp (L0 head 8), the lane status reads (L4), and the
// scheduler's MLPs (L4, L5, L6, L12, L13).
void build_scheduler(Net& n);

// stage_operands.cpp: btag (L0 heads 9, 10), the next record's lane nl (L3 MLP), each
// lane's %tid (L3 MLP), nl's operands oa, ob, oc (L5 MLP), and mw, the word memory gets
// (L7 MLP).
void build_operands(Net& n);

// stage_mul.cpp: the multiplier's products (plo, phi: dual-rail bits; pbt), column sums
// (cam, cad, cbm, cbd, chm) and digits (em, ed), L8-L10 MLPs; kMulPairs nibble pairs of
// columns 0..6.
inline constexpr int kMulPairs = 28;
void build_multiplier(Net& n);

// stage_alu.cpp: the uniform-operand check (une, uni), the adder (as, acl, car, sum) and
// the value record's tag (etag), L6, L7, L11-L13 MLPs.
void build_alu(Net& n);

// Carry lookahead over a class field (per nibble kill, propagate, generate at 3 g + 0..2):
// the carry into nibble g = 1..nibbles-1 at 2 (g - 1) of `car` (0 no, 1 yes), decided by
// the nearest nibble below that does not propagate: the adder's car (L12), the atomic's
// xcar and ycar (L11).
void carries(Net& n, Mlp& m, const char* cls, const char* car, int nibbles);
// The outputs of a threshold rule "nibble g's sum >= v" that telescopes the sum's digit
// (field `sum`, group g) from (v - 1) % 16 to v % 16 and its class (field `cls` at 3 g:
// kill, propagate, generate) from kill to propagate at 15 and to generate at 16.
std::vector<Mlp::Out> sum_step(Net& n, const char* sum, const char* cls, int g, int v);

// stage_pred.cpp: the predicate ops for all four lanes (cmpn, cms, pl; cu, cs; pb), L7, L8, L13,
// and the binary32 compares' flags and orders (fna, fnb, fbz, fbn; fcf, fmo), L6, L9.
void build_predicates(Net& n);
// A binary32 NaN as a threshold rule "sum >= 1" over a word's bits, bit i weighing
// f32_nan_weight(i, on): a mantissa bit on 1, an exponent bit off -24 (more than the 23
// mantissa bits together), so the sum reaches 1 only with every exponent bit and a
// mantissa bit on (theta 1 and weights below 128: exact in bf16).
int f32_nan_weight(int bit, bool on);

// stage_select.cpp: the logic ops' bits and nibbles (lbit, lg) and min / max's choice (pka), L11-L13.
void build_select(Net& n);

// stage_atomic.cpp: an atomic's update at the token that consumes a lane's old word:
// lane j's b, c and base (jb, jc, ja, xat: L6), the update's and the address's adders (L7,
// L11, L12), the new word into mw and the word index xw for the memory key (L12, L13).
void build_atomics(Net& n);

// stage_emit.cpp: the load read (L14 memory head), the result, whether it fits one token
// and the record family (L14 MLP), the LM head.
void build_emit(Net& n);

// stage_control.cpp: L2's MLP, what the step does to each lane (eff, npc_hi, npc_lo, act).

// A nibble adder's carry classes (kill, propagate, generate) and a nibble compare's
// (less, equal, greater): the fields that hold them have three dims a nibble.
inline constexpr int kKill = 0, kPropagate = 1, kGenerate = 2;
inline constexpr int kLt = 0, kEq = 1, kGt = 2;

// Nibble g (0 lowest) of a word.
inline int word_nibble(uint32_t v, int g) { return static_cast<int>(v >> (4 * g) & 0xf); }
void build_lane_control(Net& n);

}  // namespace qgpu::lift
