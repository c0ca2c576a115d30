// CUDA emulation for host C++: lets a kernels/*.cu file compile with g++ -std=c++20 -pthread
// so that scripts/gen_expected.py can compute expected outputs with no qgpu code involved.
//
// Model: the CUDA blocks of a launch run one after another (in linear order, or reversed to
// expose order dependence); the threads of one block run concurrently, one std::thread each.
// - __shared__ becomes `static`: one copy, shared by the threads of the running block.
// - threadIdx/blockIdx/blockDim/gridDim are thread_local dim3s set before the kernel runs.
// - __syncthreads() waits on the block's std::barrier. A thread that returns drops out of
//   the barrier, so the others wait only for unfinished threads (the qgpu machine's `bar`).
// - atomics are std::atomic_ref read-modify-writes: each is indivisible, and all of them
//   on one word are totally ordered, as on a GPU.
// - warps have 4 lanes, as on the qgpu machine (warpSize is 4, not CUDA's 32): thread t of
//   a block (t = tid.y*bx + tid.x) is lane t%4 of warp t/4, and a partial last warp has
//   fewer lanes. Each warp has its own std::barrier and one exchange slot per lane; a shuffle
//   or vote posts the lane's value in its slot, waits for the warp's live lanes (those that
//   have not returned: a returning thread drops out of its warp's barrier too), combines the
//   slots, and waits again before the slots can be reused. Shuffles compute the source lane
//   with PTX's shfl formula for a 4-lane warp (docs/isa.md, "Warp shuffles and votes"). What
//   CUDA leaves undefined fails the case instead of giving a number: lanes of one warp calling
//   warp functions from different places (divergent lanes), a shuffle reading a lane that has
//   returned or has no thread, a width other than 1, 2 or 4. The mask argument is not checked.
// - min/max/abs and the bit intrinsics follow CUDA's integer definitions.
// - floats are the host's binary32 (x86-64 SSE: every + - * / and sqrt correctly rounded to
//   nearest even, subnormals kept) with the qgpu machine's definitions where C's differ:
//   fminf/fmaxf (a NaN operand gives the other one, -0 < +0), fabsf/floorf/ceilf/truncf/
//   rintf/roundf/sqrtf/fmaf and the __f*_rn intrinsics return the canonical NaN 0x7fffffff, and the
//   float->int conversions saturate (NaN -> 0) instead of being undefined. The libm names are
//   macros for qgpu_emu's versions (defined after every header is in). A NaN made by an
//   operator (0.f / 0.f) has the host's payload: the driver prints every NaN in a float
//   array that the kernel changed as the canonical "nan" (print_float_array).
// - compile the kernels with -ffp-contract=off, so that a*b+c is two roundings, as the
//   corpus kernels that want one write fmaf(a, b, c); a kernel marked `// oracle: contract`
//   is compiled with -mfma -ffp-contract=fast instead (gen_expected.py).
// - dynamic shared memory (`extern __shared__ T s[];`): gen_expected.py rewrites each such
//   declaration into a reference to qgpu_emu::dynamic_shared_storage (every extern
//   __shared__ array of a launch starts at its first byte, as in CUDA). Before each block the
//   launch fills its first `shared_bytes` bytes (the run line's --shared) with garbage, 0xA5
//   bytes when blocks run forward and 0x5A when reversed, so that a kernel that reads dynamic
//   shared memory it did not write gets a result that differs between the two orders, which
//   gen_expected.py reports; under AddressSanitizer the rest of the storage is poisoned, so an
//   access past --shared bytes fails the case.
// - __syncthreads_count/_and/_or: a block barrier that also counts (ands, ors) the predicate
//   of the block's threads that have not returned.
// - vector types int2/int4/uint2/uint4/float2/float4 with CUDA's alignment (8 and 16),
//   uchar4/char4 (aligned to 4) and make_*; cooperative groups are in cooperative_groups.h
//   (this directory).
// - 8- and 16-bit data (char, signed/unsigned char, bool, short, unsigned short and the
//   <cstdint> names) is the host's: char is signed (gen_expected.py passes -fsigned-char, as
//   on the GPU), memory is byte-addressed, so threads storing adjacent bytes never disturb
//   each other, and a bool is one byte. Arrays of bool are host_array<bool> (a bool[]).
// Compile the kernels with -fwrapv: CUDA integers wrap, and so must the oracle's.
#pragma once

// Headers a kernel may include are included first, so that the qualifier macros below
// cannot reach into them.
#include <algorithm>
#include <atomic>
#include <barrier>
#include <bit>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <memory>
#include <source_location>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
using uint3 = dim3;

inline thread_local dim3 threadIdx{0, 0, 0};
inline thread_local dim3 blockIdx{0, 0, 0};
inline thread_local dim3 blockDim{1, 1, 1};
inline thread_local dim3 gridDim{1, 1, 1};

// CUDA's warpSize is 32; the qgpu machine's warps have 4 lanes, and so do the emulator's.
constexpr int warpSize = 4;

namespace qgpu_emu {
inline thread_local std::barrier<> *block_barrier = nullptr;

// What a lane posts for one warp function: its value, and where and in which order it
// called, so that lanes arriving from different calls (divergent lanes) are caught.
struct WarpSlot {
  unsigned value = 0;
  unsigned call = 0;  // how many warp functions this lane had called, this one included
  const char *op = "";
  unsigned line = 0, column = 0;  // the call site in the kernel file
};

// One warp of the running block: its barrier counts the lanes that have not returned.
struct Warp {
  explicit Warp(unsigned lanes) : barrier(lanes), live((1u << lanes) - 1) {}
  std::barrier<> barrier;
  std::atomic<unsigned> live;  // bit i: lane i has a thread that has not returned
  WarpSlot slot[4];            // written by its lane before the first wait, read after it
};
inline thread_local Warp *warp = nullptr;
inline thread_local unsigned lane = 0;        // this thread's lane in `warp`
inline thread_local unsigned warp_calls = 0;  // warp functions this thread has called

// What __syncthreads_count/_and/_or combine, per block: three rotating slots, so that call n
// can clear call n+1's slot (last used by call n-2, which every thread has finished reading
// once all have passed call n-1's barrier) before its own barrier.
struct BlockReduceSlots {
  std::atomic<int> count[3] = {0, 0, 0};
};
inline thread_local BlockReduceSlots *block_slots = nullptr;
inline thread_local unsigned block_reduce_calls = 0;

// Dynamic shared memory: every `extern __shared__` array of the running block (the
// declarations are rewritten by gen_expected.py to name this storage). 126 words is all the
// memory the machine has; launch() fills the first shared_bytes bytes with 0xA5 before each
// block and poisons the rest under AddressSanitizer.
constexpr unsigned kDynamicSharedMax = 512;
alignas(16) inline unsigned char dynamic_shared_storage[kDynamicSharedMax];
}  // namespace qgpu_emu

// `extern __shared__ T name[];` as rewritten by gen_expected.py: a reference to the storage.
#define QGPU_EMU_DYNAMIC_SHARED(name, ...) \
  __VA_ARGS__(&name)[] = reinterpret_cast<__VA_ARGS__(&)[]>(qgpu_emu::dynamic_shared_storage)

#define __global__
#define __device__
#define __host__
#define __shared__ static
#define __constant__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)

inline void __syncthreads() { qgpu_emu::block_barrier->arrive_and_wait(); }
// Memory fences: the emulator's threads share one host memory; a fence orders this thread's
// accesses (blocks run one after another, so no other block can be mid-way).
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_system() { std::atomic_thread_fence(std::memory_order_seq_cst); }

namespace qgpu_emu {
// The number of the block's live threads whose pred is nonzero, after a block barrier.
inline int syncthreads_count(int pred) {
  const unsigned n = block_reduce_calls++;
  block_slots->count[(n + 1) % 3].store(0);
  if (pred) block_slots->count[n % 3].fetch_add(1);
  block_barrier->arrive_and_wait();
  return block_slots->count[n % 3].load();
}
}  // namespace qgpu_emu
inline int __syncthreads_count(int pred) { return qgpu_emu::syncthreads_count(pred != 0); }
inline int __syncthreads_and(int pred) { return qgpu_emu::syncthreads_count(pred == 0) == 0; }
inline int __syncthreads_or(int pred) { return qgpu_emu::syncthreads_count(pred != 0) != 0; }

// ---- atomics: return the old word, like CUDA ------------------------------------------

namespace qgpu_emu {
// Applies new = f(old) atomically (a compare-exchange loop) and returns old.
template <class T, class F>
T atomic_update(T *p, F f) {
  std::atomic_ref<T> ref(*p);
  T old = ref.load();
  while (!ref.compare_exchange_weak(old, f(old))) {
  }
  return old;
}
}  // namespace qgpu_emu

// One overload per CUDA signature, (int*, int) and (unsigned*, unsigned), as in CUDA, so
// that argument conversions (atomicAdd(unsigned_ptr, 1)) pick the same function.
#define QGPU_EMU_ATOMICS(T)                                                                 \
  inline T atomicAdd(T *p, T v) { return std::atomic_ref<T>(*p).fetch_add(v); }            \
  inline T atomicSub(T *p, T v) { return std::atomic_ref<T>(*p).fetch_sub(v); }            \
  inline T atomicExch(T *p, T v) { return std::atomic_ref<T>(*p).exchange(v); }            \
  inline T atomicMax(T *p, T v) {                                                          \
    return qgpu_emu::atomic_update(p, [v](T old) { return old > v ? old : v; });           \
  }                                                                                        \
  inline T atomicMin(T *p, T v) {                                                          \
    return qgpu_emu::atomic_update(p, [v](T old) { return old < v ? old : v; });           \
  }                                                                                        \
  inline T atomicCAS(T *p, T compare, T v) {                                               \
    std::atomic_ref<T>(*p).compare_exchange_strong(compare, v);                            \
    return compare; /* the old word, whether or not the swap happened */                   \
  }
QGPU_EMU_ATOMICS(int)
QGPU_EMU_ATOMICS(unsigned)
#undef QGPU_EMU_ATOMICS

#define QGPU_EMU_BIT_ATOMICS(T)                                                             \
  inline T atomicAnd(T *p, T v) { return std::atomic_ref<T>(*p).fetch_and(v); }            \
  inline T atomicOr(T *p, T v) { return std::atomic_ref<T>(*p).fetch_or(v); }              \
  inline T atomicXor(T *p, T v) { return std::atomic_ref<T>(*p).fetch_xor(v); }
QGPU_EMU_BIT_ATOMICS(int)
QGPU_EMU_BIT_ATOMICS(unsigned)
#undef QGPU_EMU_BIT_ATOMICS

// atomicInc: ((old >= val) ? 0 : old + 1); atomicDec: ((old == 0 || old > val) ? val : old - 1).
inline unsigned atomicInc(unsigned *p, unsigned v) {
  return qgpu_emu::atomic_update(p, [v](unsigned old) { return old >= v ? 0u : old + 1; });
}
inline unsigned atomicDec(unsigned *p, unsigned v) {
  return qgpu_emu::atomic_update(p, [v](unsigned old) { return (old == 0 || old > v) ? v : old - 1; });
}

// ---- integer math: CUDA's min/max/abs and bit intrinsics ------------------------------

inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
// abs(int) comes from <cstdlib>; with -fwrapv, abs(INT_MIN) is INT_MIN as on the GPU.

inline int __popc(unsigned x) { return std::popcount(x); }
inline int __clz(int x) { return std::countl_zero((unsigned)x); }  // __clz(0) = 32
inline int __ffs(int x) { return x == 0 ? 0 : std::countr_zero((unsigned)x) + 1; }
inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; i++) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
inline int __mulhi(int a, int b) { return (int)(((int64_t)a * b) >> 32); }
inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((uint64_t)a * b) >> 32); }
inline int __mul24(int x, int y) {  // the low word of the 24-bit signed operands' product
  const int64_t a = (x & 0x800000) ? (x & 0xffffff) - 0x1000000 : (x & 0xffffff);
  const int64_t b = (y & 0x800000) ? (y & 0xffffff) - 0x1000000 : (y & 0xffffff);
  return (int)(uint32_t)(a * b);
}
inline unsigned __umul24(unsigned x, unsigned y) { return (unsigned)((uint64_t)(x & 0xffffff) * (y & 0xffffff)); }
inline int __hadd(int x, int y) { return (int)(((int64_t)x + y) >> 1); }
inline int __rhadd(int x, int y) { return (int)(((int64_t)x + y + 1) >> 1); }
inline unsigned __uhadd(unsigned x, unsigned y) { return (unsigned)(((uint64_t)x + y) >> 1); }
inline unsigned __urhadd(unsigned x, unsigned y) { return (unsigned)(((uint64_t)x + y + 1) >> 1); }
inline unsigned __sad(int x, int y, unsigned z) { return (unsigned)std::llabs((int64_t)x - y) + z; }
inline unsigned __usad(unsigned x, unsigned y, unsigned z) { return (unsigned)std::llabs((int64_t)x - (int64_t)y) + z; }
inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned s) {
  return (unsigned)(((((uint64_t)hi << 32) | lo) << (s & 31)) >> 32);
}
inline unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned s) {
  return (unsigned)(((((uint64_t)hi << 32) | lo) << std::min(s, 32u)) >> 32);
}
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned s) {
  return (unsigned)((((uint64_t)hi << 32) | lo) >> (s & 31));
}
inline unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned s) {
  return (unsigned)((((uint64_t)hi << 32) | lo) >> std::min(s, 32u));
}
template <typename T>
inline T __ldg(const T *p) { return *p; }
inline int __dp4a(int a, int b, int c) {
  int64_t r = c;
  for (int i = 0; i < 4; i++) r += (int64_t)(int8_t)(a >> (8 * i)) * (int8_t)(b >> (8 * i));
  return (int)(uint32_t)r;
}
inline unsigned __dp4a(unsigned a, unsigned b, unsigned c) {
  uint64_t r = c;
  for (int i = 0; i < 4; i++) r += (uint64_t)(uint8_t)(a >> (8 * i)) * (uint8_t)(b >> (8 * i));
  return (unsigned)r;
}

// ---- floats: the machine's binary32 semantics (docs/isa.md) -------------------------

namespace qgpu_emu {
constexpr uint32_t kCanonicalNan = 0x7fffffffu;  // every NaN the machine's ops produce

inline float canon(float x) { return std::isnan(x) ? std::bit_cast<float>(kCanonicalNan) : x; }

// Keeps g++ from fusing what a kernel wrote as separate roundings (__fmul_rn(a, b) + c under
// -ffp-contract=fast): the value passes through an empty asm, in an SSE register.
inline float opaque(float x) {
  asm("" : "+x"(x));
  return x;
}

inline float fminf(float a, float b) {
  if (std::isnan(a)) return std::isnan(b) ? std::bit_cast<float>(kCanonicalNan) : b;
  if (std::isnan(b)) return a;
  if (a == b) return std::signbit(a) ? a : b;  // -0 < +0
  return a < b ? a : b;
}
inline float fmaxf(float a, float b) {
  if (std::isnan(a)) return std::isnan(b) ? std::bit_cast<float>(kCanonicalNan) : b;
  if (std::isnan(b)) return a;
  if (a == b) return std::signbit(a) ? b : a;  // +0 > -0
  return a > b ? a : b;
}
inline float fabsf(float x) {
  return std::isnan(x) ? std::bit_cast<float>(kCanonicalNan)
                       : std::bit_cast<float>(std::bit_cast<uint32_t>(x) & 0x7fffffffu);
}
inline float sqrtf(float x) { return canon(std::sqrt(opaque(x))); }
inline float fmaf(float a, float b, float c) { return canon(std::fma(a, b, c)); }  // one rounding
inline float floorf(float x) { return canon(std::floor(x)); }
inline float ceilf(float x) { return canon(std::ceil(x)); }
inline float truncf(float x) { return canon(std::trunc(x)); }
inline float rintf(float x) { return canon(std::nearbyint(x)); }  // ties to even (the default mode)
inline float nearbyintf(float x) { return rintf(x); }  // the same in the default mode
inline float roundf(float x) { return canon(std::round(x)); }  // half away from zero

inline float fadd_rn(float a, float b) { return canon(opaque(opaque(a) + opaque(b))); }
inline float fsub_rn(float a, float b) { return canon(opaque(opaque(a) - opaque(b))); }
inline float fmul_rn(float a, float b) { return canon(opaque(opaque(a) * opaque(b))); }
inline float fdiv_rn(float a, float b) { return canon(opaque(opaque(a) / opaque(b))); }

// float -> int toward zero, saturating, NaN -> 0 (cvt.rzi.s32.f32).
inline int float2int_rz(float x) {
  if (std::isnan(x)) return 0;
  if (x >= 2147483648.0f) return INT_MAX;
  if (x < -2147483648.0f) return INT_MIN;
  return static_cast<int>(x);
}
inline unsigned float2uint_rz(float x) {
  if (std::isnan(x) || x < 1.0f) return 0;  // (-1, 1) truncates to 0; <= -1 saturates to 0
  if (x >= 4294967296.0f) return UINT_MAX;
  return static_cast<unsigned>(x);
}
}  // namespace qgpu_emu

// CUDA's C++ float overloads of the math names (abs(1.5f) is 1.5f, not the int abs of 1),
// with the machine's definitions; <cmath> leaves only the C double ones in this namespace.
inline float abs(float x) { return qgpu_emu::fabsf(x); }
inline float fabs(float x) { return qgpu_emu::fabsf(x); }
inline float sqrt(float x) { return qgpu_emu::sqrtf(x); }
inline float floor(float x) { return qgpu_emu::floorf(x); }
inline float ceil(float x) { return qgpu_emu::ceilf(x); }
inline float trunc(float x) { return qgpu_emu::truncf(x); }
inline float rint(float x) { return qgpu_emu::rintf(x); }
inline float nearbyint(float x) { return qgpu_emu::nearbyintf(x); }
inline float round(float x) { return qgpu_emu::roundf(x); }
inline float fmin(float a, float b) { return qgpu_emu::fminf(a, b); }
inline float fmax(float a, float b) { return qgpu_emu::fmaxf(a, b); }
inline float fma(float a, float b, float c) { return qgpu_emu::fmaf(a, b, c); }
inline float copysign(float x, float y) { return std::copysign(x, y); }
inline bool isnan(float x) { return std::isnan(x); }
inline bool isinf(float x) { return std::isinf(x); }
inline bool isfinite(float x) { return std::isfinite(x); }
inline bool signbit(float x) { return std::signbit(x); }
inline float min(float a, float b) { return qgpu_emu::fminf(a, b); }  // CUDA's float overloads
inline float max(float a, float b) { return qgpu_emu::fmaxf(a, b); }
inline float __fadd_rn(float a, float b) { return qgpu_emu::fadd_rn(a, b); }
inline float __fsub_rn(float a, float b) { return qgpu_emu::fsub_rn(a, b); }
inline float __fmul_rn(float a, float b) { return qgpu_emu::fmul_rn(a, b); }
inline float __fdiv_rn(float a, float b) { return qgpu_emu::fdiv_rn(a, b); }
inline float __fmaf_rn(float a, float b, float c) { return qgpu_emu::fmaf(a, b, c); }
inline float __fsqrt_rn(float x) { return qgpu_emu::sqrtf(x); }
inline float __frcp_rn(float x) { return qgpu_emu::fdiv_rn(1.0f, x); }
inline int __float2int_rz(float x) { return qgpu_emu::float2int_rz(x); }
inline unsigned __float2uint_rz(float x) { return qgpu_emu::float2uint_rz(x); }
inline int __float2int_rn(float x) { return qgpu_emu::float2int_rz(std::nearbyint(x)); }  // half to even
inline int __float2int_rd(float x) { return qgpu_emu::float2int_rz(std::floor(x)); }
inline int __float2int_ru(float x) { return qgpu_emu::float2int_rz(std::ceil(x)); }
inline unsigned __float2uint_rn(float x) { return qgpu_emu::float2uint_rz(std::nearbyint(x)); }
inline unsigned __float2uint_rd(float x) { return qgpu_emu::float2uint_rz(std::floor(x)); }
inline unsigned __float2uint_ru(float x) { return qgpu_emu::float2uint_rz(std::ceil(x)); }
inline float __int2float_rn(int x) { return static_cast<float>(x); }            // cvtsi2ss: nearest even
inline float __uint2float_rn(unsigned x) { return static_cast<float>(x); }
inline int __float_as_int(float x) { return std::bit_cast<int>(x); }
inline unsigned __float_as_uint(float x) { return std::bit_cast<unsigned>(x); }
inline float __int_as_float(int x) { return std::bit_cast<float>(x); }
inline float __uint_as_float(unsigned x) { return std::bit_cast<float>(x); }

// One binary32 add (round to nearest even; a NaN result is the canonical 0x7fffffff, as the
// machine's add makes it), done indivisibly on the word's bits; returns the old value.
inline float atomicAdd(float *p, float v) {
  const unsigned old = qgpu_emu::atomic_update(reinterpret_cast<unsigned *>(p), [v](unsigned o) {
    return std::bit_cast<unsigned>(qgpu_emu::fadd_rn(std::bit_cast<float>(o), v));
  });
  return std::bit_cast<float>(old);
}

// ---- vector types: CUDA's alignment (8 for two elements, 16 for four) -------------------

struct alignas(8) int2 { int x, y; };
struct alignas(16) int4 { int x, y, z, w; };
struct alignas(8) uint2 { unsigned x, y; };
struct alignas(16) uint4 { unsigned x, y, z, w; };
struct alignas(8) float2 { float x, y; };
struct alignas(16) float4 { float x, y, z, w; };
inline int2 make_int2(int x, int y) { return int2{x, y}; }
inline int4 make_int4(int x, int y, int z, int w) { return int4{x, y, z, w}; }
inline uint2 make_uint2(unsigned x, unsigned y) { return uint2{x, y}; }
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return uint4{x, y, z, w}; }
inline float2 make_float2(float x, float y) { return float2{x, y}; }
inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }
// 8-bit vectors: 4 bytes, aligned to 4 (one word), as CUDA's uchar4/char4.
struct alignas(4) uchar4 { unsigned char x, y, z, w; };
struct alignas(4) char4 { signed char x, y, z, w; };
inline uchar4 make_uchar4(unsigned char x, unsigned char y, unsigned char z, unsigned char w) {
  return uchar4{x, y, z, w};
}
inline char4 make_char4(signed char x, signed char y, signed char z, signed char w) {
  return char4{x, y, z, w};
}

// <cmath> declares these in the global namespace with C's definitions; a kernel gets the
// machine's. (Every header is included above, so the macros reach only the kernel file.)
#define fminf qgpu_emu::fminf
#define fmaxf qgpu_emu::fmaxf
#define fabsf qgpu_emu::fabsf
#define sqrtf qgpu_emu::sqrtf
#define fmaf qgpu_emu::fmaf
#define floorf qgpu_emu::floorf
#define ceilf qgpu_emu::ceilf
#define truncf qgpu_emu::truncf
#define rintf qgpu_emu::rintf
#define nearbyintf qgpu_emu::nearbyintf
#define roundf qgpu_emu::roundf

// ---- warp functions: shuffles and votes over the 4 lanes of a warp ------------------

namespace qgpu_emu {

// Fails the case (the driver's process) at what CUDA leaves undefined, naming the call site.
// `what` may name one other lane with %d.
[[noreturn]] inline void warp_error(const std::source_location &where, const char *what,
                                    int other_lane = 0) {
  char detail[160], line[512];  // one write, so that lanes failing together do not interleave
  std::snprintf(detail, sizeof detail, what, other_lane);
  std::snprintf(line, sizeof line, "%s:%u: warp function: lane %u of warp %u (thread %u,%u of "
                "block %u,%u): %s\n", where.file_name(), (unsigned)where.line(), lane,
                (threadIdx.y * blockDim.x + threadIdx.x) / warpSize, threadIdx.x, threadIdx.y,
                blockIdx.x, blockIdx.y, detail);
  std::fputs(line, stderr);
  std::abort();
}

// One warp-wide exchange: every live lane posts `value`, waits until all live lanes have,
// evaluates combine(slots, live mask), and waits again so that nobody overwrites a slot
// before every lane has read it. Returns combine's result.
template <class F>
unsigned warp_exchange(const char *op, unsigned value, const std::source_location &where,
                       F combine) {
  Warp &w = *warp;
  WarpSlot &mine = w.slot[lane];
  mine = WarpSlot{value, ++warp_calls, op, (unsigned)where.line(), (unsigned)where.column()};
  w.barrier.arrive_and_wait();  // every live lane has posted (returned lanes dropped out)
  const unsigned live = w.live.load();
  for (unsigned i = 0; i < 4; i++) {
    const WarpSlot &s = w.slot[i];
    if ((live >> i & 1) && (s.call != mine.call || std::strcmp(s.op, op) != 0 ||
                            s.line != mine.line || s.column != mine.column))
      warp_error(where, "lane %d of the warp is in another warp function call (called in a "
                 "divergent branch?)", (int)i);
  }
  const unsigned result = combine(w.slot, live);
  w.barrier.arrive_and_wait();  // every lane has read the slots: they may be reused
  return result;
}

enum class ShflMode { idx, up, down, bfly };

// PTX's shfl.sync for a 4-lane warp (the machine's definition, docs/isa.md): c is what
// CUDA's __shfl*_sync pass, ((warpSize - width) << 8) | 0x1f, or (warpSize - width) << 8
// for up; seg splits the warp into segments of `width` lanes, and a source lane j out of
// the valid range gives the lane its own value.
inline unsigned shfl(ShflMode mode, unsigned v, int b, int width, const std::source_location &where) {
  if (width != 1 && width != 2 && width != 4)
    warp_error(where, "width must be 1, 2 or 4 (a power of 2 up to warpSize)");
  const unsigned c = ((unsigned)(warpSize - width) << 8) | (mode == ShflMode::up ? 0u : 0x1fu);
  const int seg = (int)(c >> 8) & 3, cval = (int)c & 3, me = (int)lane;
  const int minl = me & seg, maxl = (me & seg) | (cval & ~seg & 3);
  int j = me;
  bool ok = false;
  switch (mode) {
    case ShflMode::idx: j = minl | (b & 3 & ~seg); ok = j <= maxl; break;
    case ShflMode::bfly: j = me ^ (b & 3); ok = j <= maxl; break;
    case ShflMode::down: j = me + (b & 31); ok = j <= maxl; break;
    case ShflMode::up: j = me - (b & 31); ok = j >= maxl; break;
  }
  if (!ok) j = me;
  static const char *const names[] = {"__shfl_sync", "__shfl_up_sync", "__shfl_down_sync",
                                      "__shfl_xor_sync"};
  return warp_exchange(names[(int)mode], v, where, [&](const WarpSlot *slot, unsigned live) {
    if (!(live >> j & 1))  // CUDA: undefined; the machine: a stale word
      warp_error(where, "shuffle reads lane %d, which has returned or has no thread", j);
    return slot[j].value;
  });
}

inline unsigned ballot(const char *op, unsigned mask, bool pred, const std::source_location &where) {
  return warp_exchange(op, pred, where, [mask](const WarpSlot *slot, unsigned live) {
    unsigned bits = 0;
    for (unsigned i = 0; i < 4; i++)
      if ((live >> i & 1) && slot[i].value) bits |= 1u << i;
    return bits & mask;
  });
}

}  // namespace qgpu_emu

// CUDA's signatures for int and unsigned; `loc` is the emulator's own (the call site, for
// the divergence check), never passed by a kernel.
#define QGPU_EMU_SHUFFLES(T)                                                                \
  inline T __shfl_sync(unsigned mask, T v, int srcLane, int width = warpSize,              \
                       std::source_location loc = std::source_location::current()) {        \
    (void)mask;                                                                             \
    return (T)qgpu_emu::shfl(qgpu_emu::ShflMode::idx, (unsigned)v, srcLane, width, loc);    \
  }                                                                                         \
  inline T __shfl_up_sync(unsigned mask, T v, unsigned delta, int width = warpSize,         \
                          std::source_location loc = std::source_location::current()) {     \
    (void)mask;                                                                             \
    return (T)qgpu_emu::shfl(qgpu_emu::ShflMode::up, (unsigned)v, (int)delta, width, loc);  \
  }                                                                                         \
  inline T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = warpSize,       \
                            std::source_location loc = std::source_location::current()) {   \
    (void)mask;                                                                             \
    return (T)qgpu_emu::shfl(qgpu_emu::ShflMode::down, (unsigned)v, (int)delta, width, loc);\
  }                                                                                         \
  inline T __shfl_xor_sync(unsigned mask, T v, int laneMask, int width = warpSize,          \
                           std::source_location loc = std::source_location::current()) {    \
    (void)mask;                                                                             \
    return (T)qgpu_emu::shfl(qgpu_emu::ShflMode::bfly, (unsigned)v, laneMask, width, loc);  \
  }
QGPU_EMU_SHUFFLES(int)
QGPU_EMU_SHUFFLES(unsigned)
#undef QGPU_EMU_SHUFFLES

// float shuffles move the bits (CUDA's float overloads).
#define QGPU_EMU_FLOAT_SHUFFLE(name, B)                                                      \
  inline float name(unsigned mask, float v, B b, int width = warpSize,                       \
                    std::source_location loc = std::source_location::current()) {            \
    return std::bit_cast<float>(name(mask, std::bit_cast<unsigned>(v), b, width, loc));      \
  }
QGPU_EMU_FLOAT_SHUFFLE(__shfl_sync, int)
QGPU_EMU_FLOAT_SHUFFLE(__shfl_up_sync, unsigned)
QGPU_EMU_FLOAT_SHUFFLE(__shfl_down_sync, unsigned)
QGPU_EMU_FLOAT_SHUFFLE(__shfl_xor_sync, int)
#undef QGPU_EMU_FLOAT_SHUFFLE

// Bit i: live lane i (one that has not returned) whose pred is nonzero, and bit i of mask.
inline unsigned __ballot_sync(unsigned mask, int pred,
                              std::source_location loc = std::source_location::current()) {
  return qgpu_emu::ballot("__ballot_sync", mask, pred != 0, loc);
}
inline int __any_sync(unsigned mask, int pred,
                      std::source_location loc = std::source_location::current()) {
  return qgpu_emu::ballot("__any_sync", mask, pred != 0, loc) != 0;
}
inline int __all_sync(unsigned mask, int pred,
                      std::source_location loc = std::source_location::current()) {
  return qgpu_emu::ballot("__all_sync", mask, pred == 0, loc) == 0;
}
// A barrier for the warp's live lanes (memory written before it is seen after it).
inline void __syncwarp(unsigned mask = 0xffffffff,
                       std::source_location loc = std::source_location::current()) {
  (void)mask;
  qgpu_emu::warp_exchange("__syncwarp", 0, loc, [](const qgpu_emu::WarpSlot *, unsigned) { return 0u; });
}
// The warp's live lanes: all of them that have not returned (a partial last warp has fewer).
inline unsigned __activemask(std::source_location loc = std::source_location::current()) {
  return qgpu_emu::ballot("__activemask", ~0u, true, loc);
}

// ---- launch --------------------------------------------------------------------------

namespace qgpu_emu {

// Runs `kernel` once per CUDA thread of a grid x block launch. Blocks run one at a time,
// in linear order (blockIdx.y * grid.x + blockIdx.x), or reversed when `reverse` is set
// (threads are then also started last first); the threads of a block run concurrently and
// meet at __syncthreads().
// shared_bytes: the launch's dynamic shared memory (<<<grid, block, shared_bytes>>>).
void launch(dim3 grid, dim3 block, const std::function<void()> &kernel, bool reverse,
            unsigned shared_bytes = 0);

// Runs run_case(k, reverse) for every case k, blocks in forward and then reverse order,
// each in a forked child so that every run starts from the program's initial globals.
// The child prints "k forward|reverse {json}"; a child that fails makes this return 1.
int run_cases(int n_cases, int (*run_case)(int, bool));

// An array argument of a driver: std::vector<T>, except that bool gets a real bool[] (a kernel
// takes bool *, which std::vector<bool> cannot give). Heap memory either way, so that
// AddressSanitizer catches an access past its end; 16-byte aligned (uchar4 through a cast).
class BoolArray {
 public:
  BoolArray(std::initializer_list<bool> v) : n_(v.size()), p_(new bool[v.size()]) {
    size_t i = 0;
    for (bool b : v) p_[i++] = b;
  }
  bool *data() { return p_.get(); }
  size_t size() const { return n_; }
  bool operator[](size_t i) const { return p_[i]; }

 private:
  size_t n_;
  std::unique_ptr<bool[]> p_;
};
template <class T>
struct HostArray { using type = std::vector<T>; };
template <>
struct HostArray<bool> { using type = BoolArray; };
template <class T>
using host_array = typename HostArray<T>::type;

// Prints one named array as `"name": [v, ...]`, each element as its value in its C type
// widened to int: a signed 32-bit int (unsigned data as its signed view); unsigned char
// 0..255, char -128..127, bool 0/1, short, unsigned short 0..65535.
template <class A>
void print_array(const char *name, const A &a, bool first) {
  std::printf("%s\"%s\": [", first ? "" : ", ", name);
  for (size_t i = 0; i < a.size(); i++) std::printf(i ? ", %d" : "%d", (int)a[i]);
  std::printf("]");
}

// Prints one float array as `"name": ["1.5", ...]`: every element as a JSON string, the
// shortest text that reads back as the same float (std::to_chars), "inf", "-inf", "nan" for
// the canonical NaN 0x7fffffff and "nan:0x%08x" for another NaN. A NaN the kernel wrote (its
// bits differ from the array's initial contents at that index) prints as "nan" whatever its
// payload: the machine's ops all produce 0x7fffffff, the host's (0.f / 0.f) do not.
inline void print_float_array(const char *name, const std::vector<float> &a,
                              const std::vector<float> &initial, bool first) {
  std::printf("%s\"%s\": [", first ? "" : ", ", name);
  for (size_t i = 0; i < a.size(); i++) {
    const uint32_t bits = std::bit_cast<uint32_t>(a[i]);
    char text[64];
    if (std::isnan(a[i])) {
      if (bits == kCanonicalNan || bits != std::bit_cast<uint32_t>(initial[i]))
        std::snprintf(text, sizeof text, "nan");
      else
        std::snprintf(text, sizeof text, "nan:0x%08x", (unsigned)bits);
    } else if (std::isinf(a[i])) {
      std::snprintf(text, sizeof text, "%s", a[i] < 0 ? "-inf" : "inf");
    } else {
      *std::to_chars(text, text + sizeof text - 1, a[i]).ptr = '\0';
    }
    std::printf(i ? ", \"%s\"" : "\"%s\"", text);
  }
  std::printf("]");
}

}  // namespace qgpu_emu

// The definitions of launch and run_cases, compiled once into one object file by a source
// that defines QGPU_EMU_IMPLEMENTATION before including this header (the single-header
// library pattern): every driver then links it instead of compiling it again.
#ifdef QGPU_EMU_IMPLEMENTATION
namespace qgpu_emu {

void launch(dim3 grid, dim3 block, const std::function<void()> &kernel, bool reverse,
            unsigned shared_bytes) {
  const unsigned n_threads = block.x * block.y * block.z;
  const unsigned n_blocks = grid.x * grid.y * grid.z;
  if (shared_bytes > kDynamicSharedMax) {
    std::fprintf(stderr, "launch: %u bytes of dynamic shared memory (at most %u)\n", shared_bytes,
                 kDynamicSharedMax);
    std::abort();
  }
  for (unsigned k = 0; k < n_blocks; k++) {
    const unsigned b = reverse ? n_blocks - 1 - k : k;
    const dim3 block_idx{b % grid.x, b / grid.x % grid.y, b / (grid.x * grid.y)};
    // Each block's own dynamic shared memory: garbage, not zeros, as a GPU leaves it.
#if defined(__SANITIZE_ADDRESS__)
    ASAN_UNPOISON_MEMORY_REGION(dynamic_shared_storage, kDynamicSharedMax);
#endif
    std::memset(dynamic_shared_storage, reverse ? 0x5A : 0xA5, kDynamicSharedMax);
#if defined(__SANITIZE_ADDRESS__)
    ASAN_POISON_MEMORY_REGION(dynamic_shared_storage + shared_bytes, kDynamicSharedMax - shared_bytes);
#endif
    BlockReduceSlots slots;
    std::barrier<> barrier(n_threads);
    std::vector<std::unique_ptr<Warp>> warps;  // thread t is lane t%4 of warp t/4
    for (unsigned first = 0; first < n_threads; first += warpSize)
      warps.push_back(std::make_unique<Warp>(n_threads - first < 4 ? n_threads - first : 4));
    std::vector<std::jthread> threads;
    for (unsigned i = 0; i < n_threads; i++) {
      const unsigned t = reverse ? n_threads - 1 - i : i;  // reversed: start last thread first
      threads.emplace_back([&, t] {
        threadIdx = dim3{t % block.x, t / block.x % block.y, t / (block.x * block.y)};
        blockIdx = block_idx;
        blockDim = block;
        gridDim = grid;
        block_barrier = &barrier;
        block_slots = &slots;
        block_reduce_calls = 0;
        warp = warps[t / warpSize].get();
        lane = t % warpSize;
        kernel();
        // Finished threads no longer hold up __syncthreads() or their warp's functions, and
        // leave the warp's live mask first, so that a vote the others complete sees it gone.
        warp->live.fetch_and(~(1u << lane));
        warp->barrier.arrive_and_drop();
        barrier.arrive_and_drop();
      });
    }
  }  // ~jthread joins: the block is done before the next one starts
}

int run_cases(int n_cases, int (*run_case)(int, bool)) {
  for (int k = 0; k < n_cases; k++) {
    for (bool reverse : {false, true}) {
      std::fflush(stdout);
      const pid_t pid = fork();
      if (pid == 0) {
        std::printf("%d %s ", k, reverse ? "reverse" : "forward");
        const int rc = run_case(k, reverse);
        std::fflush(stdout);
        _exit(rc);
      }
      int status = 0;
      if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
          WEXITSTATUS(status) != 0) {
        std::fprintf(stderr, "case %d (%s) failed: status %d\n", k,
                     reverse ? "reverse" : "forward", status);
        return 1;
      }
    }
  }
  return 0;
}

}  // namespace qgpu_emu
#endif  // QGPU_EMU_IMPLEMENTATION
