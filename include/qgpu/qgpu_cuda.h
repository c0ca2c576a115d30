/* qgpu_cuda.h: the CUDA surface qgpu supports, pre-included into every kernel.
 *
 * qgpu compiles kernels with clang in CUDA device mode without a CUDA SDK
 * (-nocudainc -nocudalib), so this header supplies what nvcc's runtime headers would:
 * the qualifiers, the thread/block built-ins, __syncthreads, integer atomics,
 * min/max/abs and bit intrinsics, warp shuffles, votes and __syncwarp (warpSize is 4), and
 * the float (IEEE binary32) functions and intrinsics the machine has exactly: fmaf, sqrtf,
 * fminf, fmaxf, fabsf, floorf, ceilf, truncf, rintf, nearbyintf, roundf, copysignf, the
 * round-to-nearest __f*_rn intrinsics and __frcp_rn, conversions and bit casts; the others
 * (expf, tanhf, __expf, ...) are declared unavailable, with a message. A .cu file written
 * for nvcc compiles unchanged if it uses no more.
 * Under nvcc this header does nothing. */
#ifndef QGPU_CUDA_H
#define QGPU_CUDA_H
#if !defined(__NVCC__)

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __restrict__ __restrict

#ifndef NULL
#define NULL __null /* as <stddef.h> has it in C++; nvcc's headers bring it in */
#endif

typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;

/* Declared as CUDA declares them, so that a file whose other kernels call them still
 * compiles: only a kernel that calls one is refused, by name. */
extern "C" __device__ int printf(const char *, ...);
extern "C" __device__ void *malloc(__SIZE_TYPE__);
extern "C" __device__ void free(void *);

/* clang's built-in variables header defines warpSize as 32; this machine's warp has 4
 * lanes, so its definition gets another name and warpSize is defined below. */
#define warpSize __qgpu_clang_warp_size
#include <__clang_cuda_builtin_vars.h> /* threadIdx, blockIdx, blockDim, gridDim */
#undef warpSize
static __device__ const int warpSize = 4;

/* CUDA's vector types and dim3, as vector_types.h defines them (sizes and alignments), with
 * their make_* functions. A load or store of an int4 is one ld.v4/st.v4, which qgpu splits
 * into four word accesses (the machine's memory is words); a uchar4's into four bytes. */
#define QGPU_VEC2(T, name, align)                                                            \
  struct __attribute__((aligned(align))) name { T x, y; };                                    \
  static __host__ __device__ __forceinline__ name make_##name(T x, T y) { name v = {x, y}; return v; }
#define QGPU_VEC3(T, name)                                                                   \
  struct name { T x, y, z; };                                                                  \
  static __host__ __device__ __forceinline__ name make_##name(T x, T y, T z) { name v = {x, y, z}; return v; }
#define QGPU_VEC4(T, name, align)                                                            \
  struct __attribute__((aligned(align))) name { T x, y, z, w; };                              \
  static __host__ __device__ __forceinline__ name make_##name(T x, T y, T z, T w) {          \
    name v = {x, y, z, w};                                                                     \
    return v;                                                                                  \
  }
QGPU_VEC2(signed char, char2, 2)
QGPU_VEC2(unsigned char, uchar2, 2)
QGPU_VEC2(short, short2, 4)
QGPU_VEC2(unsigned short, ushort2, 4)
QGPU_VEC2(int, int2, 8)
QGPU_VEC2(unsigned, uint2, 8)
QGPU_VEC2(float, float2, 8)
QGPU_VEC3(int, int3)
QGPU_VEC3(float, float3)
QGPU_VEC4(signed char, char4, 4)
QGPU_VEC4(unsigned char, uchar4, 4)
QGPU_VEC4(short, short4, 8)
QGPU_VEC4(unsigned short, ushort4, 8)
QGPU_VEC4(int, int4, 16)
QGPU_VEC4(unsigned, uint4, 16)
QGPU_VEC4(float, float4, 16)
#undef QGPU_VEC2
#undef QGPU_VEC3
#undef QGPU_VEC4
struct uint3 { unsigned x, y, z; };
static __host__ __device__ __forceinline__ uint3 make_uint3(unsigned x, unsigned y, unsigned z) {
  uint3 v = {x, y, z};
  return v;
}
struct dim3 {
  unsigned x, y, z;
  __host__ __device__ constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
  __host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  __host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }
};
/* The built-in variables convert to dim3 and uint3 (clang declares the operators). */
#define QGPU_BUILTIN_DIM3(type)                                                                \
  __device__ inline type::operator dim3() const { return dim3(x, y, z); }                     \
  __device__ inline type::operator uint3() const { return uint3{x, y, z}; }
QGPU_BUILTIN_DIM3(__cuda_builtin_threadIdx_t)
QGPU_BUILTIN_DIM3(__cuda_builtin_blockIdx_t)
QGPU_BUILTIN_DIM3(__cuda_builtin_blockDim_t)
QGPU_BUILTIN_DIM3(__cuda_builtin_gridDim_t)
#undef QGPU_BUILTIN_DIM3

/* Barriers and fences are inline PTX with a "memory" clobber, not clang's builtins. The
 * builtins are LLVM intrinsics (llvm.nvvm.barrier0, llvm.nvvm.membar.*) that LLVM 14's
 * GlobalsAA takes to only *read* a __shared__ variable whose address never escapes, so at
 * -Os/-O2/-O3 it moves a load of that variable above the barrier and forwards a value
 * stored before it (a __shared__ scalar written by thread 0, then __syncthreads(), read
 * stale by the others). An asm call is opaque to that analysis: nothing moves across it,
 * in any clang, at any level. The builtins' names are macros for these functions, so code
 * that calls the builtin spellings gets them too. */
static __device__ __forceinline__ void __qgpu_bar_sync(void) { asm volatile("bar.sync 0;" ::: "memory"); }
static __device__ __forceinline__ void __qgpu_fence(void) { asm volatile("membar.gl;" ::: "memory"); }
#define __syncthreads() __qgpu_bar_sync()
#define __barrier_sync(n) __qgpu_bar_sync_n(n)
#define __nvvm_bar_sync(n) __qgpu_bar_sync_n(n)
#define __nvvm_barrier_sync(n) __qgpu_bar_sync_n(n)
#define __nvvm_bar0() __qgpu_bar_sync()
#define __threadfence() __qgpu_fence()
#define __threadfence_block() __qgpu_fence()
#define __threadfence_system() __qgpu_fence()
#define __nvvm_membar_gl() __qgpu_fence()
#define __nvvm_membar_cta() __qgpu_fence()
#define __nvvm_membar_sys() __qgpu_fence()
/* bar.sync with another barrier id: the lowering names what it supports (bar.sync 0). */
static __device__ __forceinline__ void __qgpu_bar_sync_n(int n) { asm volatile("bar.sync %0;" : : "r"(n) : "memory"); }

#define QGPU_ATOMIC(name, builtin)                                                   \
  static __device__ __forceinline__ int name(int *p, int v) { return builtin(p, v); } \
  static __device__ __forceinline__ unsigned name(unsigned *p, unsigned v) {          \
    return (unsigned)builtin((int *)p, (int)v);                                      \
  }
QGPU_ATOMIC(atomicAdd, __nvvm_atom_add_gen_i)
QGPU_ATOMIC(atomicExch, __nvvm_atom_xchg_gen_i)
#undef QGPU_ATOMIC

static __device__ __forceinline__ int atomicSub(int *p, int v) { return __nvvm_atom_add_gen_i(p, -v); }
static __device__ __forceinline__ unsigned atomicSub(unsigned *p, unsigned v) {
  return (unsigned)__nvvm_atom_add_gen_i((int *)p, -(int)v);
}
static __device__ __forceinline__ int atomicMin(int *p, int v) { return __nvvm_atom_min_gen_i(p, v); }
static __device__ __forceinline__ unsigned atomicMin(unsigned *p, unsigned v) {
  return __nvvm_atom_min_gen_ui(p, v);
}
static __device__ __forceinline__ int atomicMax(int *p, int v) { return __nvvm_atom_max_gen_i(p, v); }
static __device__ __forceinline__ unsigned atomicMax(unsigned *p, unsigned v) {
  return __nvvm_atom_max_gen_ui(p, v);
}
static __device__ __forceinline__ int atomicCAS(int *p, int compare, int v) {
  return __nvvm_atom_cas_gen_i(p, compare, v);
}
static __device__ __forceinline__ unsigned atomicCAS(unsigned *p, unsigned compare, unsigned v) {
  return (unsigned)__nvvm_atom_cas_gen_i((int *)p, (int)compare, (int)v);
}

/* The other 32-bit atomics are compare-and-swap loops over atomicCAS, each as indivisible
 * as CUDA's (the word changes only by a CAS that saw the value the update was computed
 * from); they return the old word. atomicAdd on a float is one IEEE add, rounded to nearest
 * even. */
#define QGPU_ATOMIC_CAS_LOOP(T, name, update)                                                  \
  static __device__ __forceinline__ T name(T *p, T v) {                                       \
    unsigned old = *(volatile unsigned *)p, seen;                                              \
    for (;;) {                                                                                 \
      T x = __builtin_bit_cast(T, old);                                                        \
      T y = (update);                                                                          \
      seen = (unsigned)atomicCAS((unsigned *)p, old, __builtin_bit_cast(unsigned, y));         \
      if (seen == old) return x;                                                               \
      old = seen;                                                                              \
    }                                                                                          \
  }
QGPU_ATOMIC_CAS_LOOP(int, atomicAnd, x & v)
QGPU_ATOMIC_CAS_LOOP(unsigned, atomicAnd, x & v)
QGPU_ATOMIC_CAS_LOOP(int, atomicOr, x | v)
QGPU_ATOMIC_CAS_LOOP(unsigned, atomicOr, x | v)
QGPU_ATOMIC_CAS_LOOP(int, atomicXor, x ^ v)
QGPU_ATOMIC_CAS_LOOP(unsigned, atomicXor, x ^ v)
QGPU_ATOMIC_CAS_LOOP(unsigned, atomicInc, x >= v ? 0u : x + 1)
QGPU_ATOMIC_CAS_LOOP(unsigned, atomicDec, x == 0u || x > v ? v : x - 1)
QGPU_ATOMIC_CAS_LOOP(float, atomicAdd, x + v)
#undef QGPU_ATOMIC_CAS_LOOP
static __device__ __forceinline__ float atomicExch(float *p, float v) {
  return __builtin_bit_cast(float, atomicExch((int *)p, __builtin_bit_cast(int, v)));
}

/* __syncthreads_count/_and/_or: a barrier that also counts the threads whose predicate is
 * nonzero, through a word of shared memory: each thread adds its 0 or 1, the barrier, the
 * count read, a second barrier, and each takes its own back (so the word is 0 again for the
 * next call: a thread reaches that call's barrier only after its subtraction). */
static __device__ __forceinline__ int __syncthreads_count(int predicate) {
  __shared__ int __qgpu_barrier_count;
  atomicAdd(&__qgpu_barrier_count, predicate != 0);
  __syncthreads();
  int n = *(volatile int *)&__qgpu_barrier_count;
  __syncthreads();
  atomicSub(&__qgpu_barrier_count, predicate != 0);
  return n;
}
static __device__ __forceinline__ int __syncthreads_and(int predicate) { return __syncthreads_count(!predicate) == 0; }
static __device__ __forceinline__ int __syncthreads_or(int predicate) { return __syncthreads_count(predicate) != 0; }

static __device__ __forceinline__ int min(int a, int b) { return a < b ? a : b; }
static __device__ __forceinline__ unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
static __device__ __forceinline__ int max(int a, int b) { return a > b ? a : b; }
static __device__ __forceinline__ unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
static __device__ __forceinline__ int abs(int a) { return a < 0 ? -a : a; }
static __device__ __forceinline__ int __popc(unsigned x) { return __builtin_popcount(x); }
static __device__ __forceinline__ int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
static __device__ __forceinline__ unsigned __brev(unsigned x) { return __builtin_bitreverse32(x); }
static __device__ __forceinline__ int __ffs(int x) { return __builtin_ffs(x); }
static __device__ __forceinline__ unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  return __nvvm_prmt(x, y, s);
}
/* The high word of a 32 x 32-bit product is PTX's mul.hi, as inline PTX: written as a 64-bit
 * product, LLVM 14 and 15 rewrote __mulhi(INT_MIN, x) into mul.wide.s32 x, -2147483648 (their
 * NVPTX mul.wide combine of sext(shl nsw x, 31), fixed upstream in 2026), which is wrong for
 * x = -1: a silent wrong answer scripts/difftest.sh found (kernels/difftest_5114.cu). */
static __device__ __forceinline__ int __mulhi(int a, int b) {
  int r;
  asm("mul.hi.s32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
static __device__ __forceinline__ unsigned __umulhi(unsigned a, unsigned b) {
  unsigned r;
  asm("mul.hi.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
  return r;
}
/* More of CUDA's integer intrinsics, each a few machine ops: 24-bit products (the low word
 * of the product of the operands' low 24 bits, sign-extended for __mul24), halving adds
 * without overflow, sums of absolute differences, funnel shifts of hi:lo (the shift taken
 * mod 32; the _lc/_rc forms clamp it to 32), and __ldg, a plain load here. */
static __device__ __forceinline__ int __mul24(int x, int y) {
  return (int)((unsigned)((int)((unsigned)x << 8) >> 8) * (unsigned)((int)((unsigned)y << 8) >> 8));
}
static __device__ __forceinline__ unsigned __umul24(unsigned x, unsigned y) { return (x & 0xffffffu) * (y & 0xffffffu); }
static __device__ __forceinline__ int __hadd(int x, int y) { return (x >> 1) + (y >> 1) + (x & y & 1); }
static __device__ __forceinline__ int __rhadd(int x, int y) { return (x >> 1) + (y >> 1) + ((x | y) & 1); }
static __device__ __forceinline__ unsigned __uhadd(unsigned x, unsigned y) { return (x >> 1) + (y >> 1) + (x & y & 1u); }
static __device__ __forceinline__ unsigned __urhadd(unsigned x, unsigned y) { return (x >> 1) + (y >> 1) + ((x | y) & 1u); }
static __device__ __forceinline__ unsigned __sad(int x, int y, unsigned z) {
  return (x > y ? (unsigned)x - (unsigned)y : (unsigned)y - (unsigned)x) + z;
}
static __device__ __forceinline__ unsigned __usad(unsigned x, unsigned y, unsigned z) { return (x > y ? x - y : y - x) + z; }
static __device__ __forceinline__ unsigned qgpu_funnel_l(unsigned lo, unsigned hi, unsigned s) {  // s <= 32
  return s == 0 ? hi : s == 32 ? lo : (hi << s) | (lo >> (32 - s));
}
static __device__ __forceinline__ unsigned qgpu_funnel_r(unsigned lo, unsigned hi, unsigned s) {
  return s == 0 ? lo : s == 32 ? hi : (lo >> s) | (hi << (32 - s));
}
static __device__ __forceinline__ unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned shift) {
  return qgpu_funnel_l(lo, hi, shift & 31);
}
static __device__ __forceinline__ unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned shift) {
  return qgpu_funnel_l(lo, hi, shift < 32 ? shift : 32);
}
static __device__ __forceinline__ unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned shift) {
  return qgpu_funnel_r(lo, hi, shift & 31);
}
static __device__ __forceinline__ unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned shift) {
  return qgpu_funnel_r(lo, hi, shift < 32 ? shift : 32);
}
template <typename T>
static __device__ __forceinline__ T __ldg(const T *p) { return *p; }
/* __dp4a, the int8 dot product of quantised kernels: c plus the four products of a's and
 * b's bytes (signed, or unsigned). */
static __device__ __forceinline__ int __dp4a(int a, int b, int c) {  // wraps, as the GPU's
  unsigned r = (unsigned)c;
  for (int i = 0; i < 32; i += 8)
    r += (unsigned)(((int)((unsigned)a << (24 - i)) >> 24) * ((int)((unsigned)b << (24 - i)) >> 24));
  return (int)r;
}
static __device__ __forceinline__ unsigned __dp4a(unsigned a, unsigned b, unsigned c) {
  unsigned r = c;
  for (int i = 0; i < 32; i += 8) r += ((a >> i) & 0xffu) * ((b >> i) & 0xffu);
  return r;
}

/* Floats (IEEE binary32, round to nearest even, subnormals kept: docs/isa.md). The libm
 * functions are clang builtins (llvm.fma/sqrt/minnum/maxnum/fabs/floor/ceil/trunc/rint ->
 * fma.rn, sqrt.rn, min, max, abs, cvt.rmi/rpi/rzi/rni.f32.f32); the __f*_rn intrinsics are
 * NVVM builtins that clang never contracts into an fma (a*b+c written with operators may
 * become fma.rn.f32: clang contracts by default in CUDA mode). The transcendental and
 * approximate functions (expf, __expf, __fdividef, ...) are unavailable (below).
 * Each function also has its C++ name, CUDA's float overload of the math name (its
 * math_functions.hpp): fabs(x), sqrt(x), fmin(x, y) ... on a float are the float functions
 * (the double ones stay unsupported), and abs(1.5f) is 1.5f, not the int abs of 1. */
#define QGPU_FLOAT_FN(fname, name, params, args, body)                                         \
  static __device__ __forceinline__ float fname params { return body args; }                  \
  static __device__ __forceinline__ float name params { return body args; }
QGPU_FLOAT_FN(fmaf, fma, (float a, float b, float c), (a, b, c), __builtin_fmaf)
QGPU_FLOAT_FN(sqrtf, sqrt, (float x), (x), __builtin_sqrtf)
QGPU_FLOAT_FN(fminf, fmin, (float a, float b), (a, b), __builtin_fminf)
QGPU_FLOAT_FN(fmaxf, fmax, (float a, float b), (a, b), __builtin_fmaxf)
QGPU_FLOAT_FN(fabsf, fabs, (float x), (x), __builtin_fabsf)
QGPU_FLOAT_FN(floorf, floor, (float x), (x), __builtin_floorf)
QGPU_FLOAT_FN(ceilf, ceil, (float x), (x), __builtin_ceilf)
QGPU_FLOAT_FN(truncf, trunc, (float x), (x), __builtin_truncf)
QGPU_FLOAT_FN(rintf, rint, (float x), (x), __builtin_rintf)
QGPU_FLOAT_FN(nearbyintf, nearbyint, (float x), (x), __builtin_rintf)
/* copysignf moves bits (a NaN keeps its payload, as on a GPU); roundf rounds half away from
 * zero: x - truncf(x) is exact, so one compare decides (no x + 0.5 double rounding). */
static __device__ __forceinline__ float qgpu_copysign(float x, float y) {
  return __builtin_bit_cast(float, (__builtin_bit_cast(unsigned, x) & 0x7fffffffu) |
                                       (__builtin_bit_cast(unsigned, y) & 0x80000000u));
}
static __device__ __forceinline__ float qgpu_round(float x) {
  const float t = __builtin_truncf(x);
  return __builtin_fabsf(x - t) >= 0.5f ? t + qgpu_copysign(1.0f, x) : t;
}
QGPU_FLOAT_FN(copysignf, copysign, (float x, float y), (x, y), qgpu_copysign)
QGPU_FLOAT_FN(roundf, round, (float x), (x), qgpu_round)
#undef QGPU_FLOAT_FN
/* On an integer CUDA's overloads compute in double precision (sqrt(16777217) is exact there,
 * not in a float), which qgpu lacks: an error, not a silent float. */
#define QGPU_NO_INT_ARG_OF(name, type)                                                         \
  static __device__ float name(type) __attribute__((unavailable(                               \
      "CUDA computes " #name " of an integer in double precision, which qgpu lacks: write "    \
      #name "f((float)x) for the float function")));
#define QGPU_NO_INT_ARG(name) QGPU_NO_INT_ARG_OF(name, int) QGPU_NO_INT_ARG_OF(name, unsigned)
QGPU_NO_INT_ARG(fabs) QGPU_NO_INT_ARG(sqrt) QGPU_NO_INT_ARG(floor) QGPU_NO_INT_ARG(ceil)
QGPU_NO_INT_ARG(trunc) QGPU_NO_INT_ARG(rint) QGPU_NO_INT_ARG(nearbyint) QGPU_NO_INT_ARG(round)
#undef QGPU_NO_INT_ARG
#undef QGPU_NO_INT_ARG_OF
static __device__ __forceinline__ float abs(float x) { return __builtin_fabsf(x); }
static __device__ __forceinline__ bool isnan(float x) { return x != x; }
static __device__ __forceinline__ bool isinf(float x) { return __builtin_fabsf(x) == __builtin_inff(); }
static __device__ __forceinline__ bool isfinite(float x) { return __builtin_fabsf(x) < __builtin_inff(); }
static __device__ __forceinline__ bool signbit(float x) { return (__builtin_bit_cast(unsigned, x) >> 31) != 0; }
#ifndef INFINITY
#define INFINITY (__builtin_inff ()) /* as <math.h> has them */
#endif
#ifndef NAN
#define NAN (__builtin_nanf (""))
#endif
static __device__ __forceinline__ float min(float a, float b) { return __builtin_fminf(a, b); }
static __device__ __forceinline__ float max(float a, float b) { return __builtin_fmaxf(a, b); }

/* __fadd_rn, __fsub_rn and __fmul_rn are never fused into an fma (CUDA's promise; the point
 * of writing them). clang turns __nvvm_{add,mul}_rn_f into plain fadd/fmul, which its
 * -ffp-contract=fast (the CUDA default) then fuses with a neighbouring add or multiply, so
 * they are inline PTX here, as nvcc emits them: add.rn, sub.rn, mul.rn (an explicit .rn
 * also tells ptxas not to contract). */
#define QGPU_FLOAT_RN(name, op)                                                                \
  static __device__ __forceinline__ float name(float a, float b) {                            \
    float r;                                                                                   \
    asm(op ".rn.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));                                  \
    return r;                                                                                  \
  }
QGPU_FLOAT_RN(__fadd_rn, "add")
QGPU_FLOAT_RN(__fsub_rn, "sub")
QGPU_FLOAT_RN(__fmul_rn, "mul")
#undef QGPU_FLOAT_RN
static __device__ __forceinline__ float __fmaf_rn(float a, float b, float c) { return __nvvm_fma_rn_f(a, b, c); }
static __device__ __forceinline__ float __fdiv_rn(float a, float b) { return __nvvm_div_rn_f(a, b); }
static __device__ __forceinline__ float __fsqrt_rn(float x) { return __nvvm_sqrt_rn_f(x); }
static __device__ __forceinline__ float __frcp_rn(float x) { return __nvvm_div_rn_f(1.0f, x); }

/* The functions libdevice computes by its own approximations (and the approximate
 * intrinsics, whose results are the GPU's hardware tables): qgpu has no exact definition
 * of them, so a call is a compile error that says so instead of clang's "undeclared". */
#define QGPU_NO_FLOAT_FN(name, params)                                                         \
  static __device__ float name params __attribute__((unavailable(                              \
      "qgpu has no " #name ": its machine computes +, -, *, /, fmaf, sqrtf, fminf, fmaxf, "    \
      "fabsf, floorf, ceilf, truncf, rintf, roundf and copysignf exactly, not libdevice's "    \
      "approximations; write it from those (a polynomial, as libdevice does) or pass its "     \
      "values in an input array (docs/cuda-reference.md)")));
/* Each name with an f: the f function and the C++ float overload (expf and exp on a float). */
#define QGPU_NO_FLOAT_FN1(name) QGPU_NO_FLOAT_FN(name##f, (float)) QGPU_NO_FLOAT_FN(name, (float))
#define QGPU_NO_FLOAT_FN2(name) QGPU_NO_FLOAT_FN(name##f, (float, float)) QGPU_NO_FLOAT_FN(name, (float, float))
QGPU_NO_FLOAT_FN1(exp) QGPU_NO_FLOAT_FN1(exp2) QGPU_NO_FLOAT_FN1(exp10) QGPU_NO_FLOAT_FN1(expm1)
QGPU_NO_FLOAT_FN1(log) QGPU_NO_FLOAT_FN1(log2) QGPU_NO_FLOAT_FN1(log10) QGPU_NO_FLOAT_FN1(log1p)
QGPU_NO_FLOAT_FN1(sin) QGPU_NO_FLOAT_FN1(cos) QGPU_NO_FLOAT_FN1(tan) QGPU_NO_FLOAT_FN1(asin)
QGPU_NO_FLOAT_FN1(acos) QGPU_NO_FLOAT_FN1(atan) QGPU_NO_FLOAT_FN1(sinh) QGPU_NO_FLOAT_FN1(cosh)
QGPU_NO_FLOAT_FN1(tanh) QGPU_NO_FLOAT_FN1(asinh) QGPU_NO_FLOAT_FN1(acosh) QGPU_NO_FLOAT_FN1(atanh)
QGPU_NO_FLOAT_FN1(erf) QGPU_NO_FLOAT_FN1(erfc) QGPU_NO_FLOAT_FN1(rsqrt) QGPU_NO_FLOAT_FN1(cbrt)
QGPU_NO_FLOAT_FN1(lgamma) QGPU_NO_FLOAT_FN1(tgamma) QGPU_NO_FLOAT_FN2(pow) QGPU_NO_FLOAT_FN2(atan2)
QGPU_NO_FLOAT_FN2(hypot) QGPU_NO_FLOAT_FN2(fmod) QGPU_NO_FLOAT_FN2(remainder)
#undef QGPU_NO_FLOAT_FN2
#undef QGPU_NO_FLOAT_FN1
/* The approximate intrinsics. */
QGPU_NO_FLOAT_FN(__expf, (float)) QGPU_NO_FLOAT_FN(__exp10f, (float)) QGPU_NO_FLOAT_FN(__logf, (float))
QGPU_NO_FLOAT_FN(__log2f, (float)) QGPU_NO_FLOAT_FN(__log10f, (float)) QGPU_NO_FLOAT_FN(__sinf, (float))
QGPU_NO_FLOAT_FN(__cosf, (float)) QGPU_NO_FLOAT_FN(__tanf, (float)) QGPU_NO_FLOAT_FN(__frsqrt_rn, (float))
QGPU_NO_FLOAT_FN(__powf, (float, float)) QGPU_NO_FLOAT_FN(__fdividef, (float, float))
#undef QGPU_NO_FLOAT_FN

/* The float -> integer conversions saturate (NaN gives 0), as PTX's cvt does. They are inline
 * PTX, not __nvvm_f2i_rz and friends: LLVM (14 to 19 at least) folds those intrinsics of a
 * constant out of the int's range to poison, and the store of it disappears: a silent wrong
 * answer that scripts/difftest.sh found. */
#define QGPU_FLOAT_TO_INT(name, type, cvt, reg)                                                \
  static __device__ __forceinline__ type name(float x) {                                      \
    type r;                                                                                    \
    asm("cvt." cvt ".f32 %0, %1;" : "=" reg(r) : "f"(x));                                      \
    return r;                                                                                  \
  }
QGPU_FLOAT_TO_INT(__float2int_rz, int, "rzi.s32", "r")
QGPU_FLOAT_TO_INT(__float2int_rn, int, "rni.s32", "r")
QGPU_FLOAT_TO_INT(__float2int_rd, int, "rmi.s32", "r")
QGPU_FLOAT_TO_INT(__float2int_ru, int, "rpi.s32", "r")
QGPU_FLOAT_TO_INT(__float2uint_rz, unsigned, "rzi.u32", "r")
QGPU_FLOAT_TO_INT(__float2uint_rn, unsigned, "rni.u32", "r")
QGPU_FLOAT_TO_INT(__float2uint_rd, unsigned, "rmi.u32", "r")
QGPU_FLOAT_TO_INT(__float2uint_ru, unsigned, "rpi.u32", "r")
#undef QGPU_FLOAT_TO_INT
static __device__ __forceinline__ float __int2float_rn(int x) { return __nvvm_i2f_rn(x); }
static __device__ __forceinline__ float __uint2float_rn(unsigned x) { return __nvvm_ui2f_rn(x); }
static __device__ __forceinline__ int __float_as_int(float x) { return __builtin_bit_cast(int, x); }
static __device__ __forceinline__ unsigned __float_as_uint(float x) { return __builtin_bit_cast(unsigned, x); }
static __device__ __forceinline__ float __int_as_float(int x) { return __builtin_bit_cast(float, x); }
static __device__ __forceinline__ float __uint_as_float(unsigned x) { return __builtin_bit_cast(float, x); }

/* Warp-level functions, as CUDA's own headers write them: shfl.sync and vote.sync in
 * inline PTX. qgpu compiles each into a few ops of the machine through memory (a word
 * per lane and one per warp: docs/isa.md, "Warp shuffles and votes"). The c operand
 * packs the segment mask (warpSize - width) and the clamp, as CUDA's does. */
#define QGPU_SHFL(name, mode, clamp)                                                           \
  static __device__ __forceinline__ int name(unsigned mask, int var, int b, int width = warpSize) { \
    int r;                                                                                     \
    asm volatile("shfl.sync." mode ".b32 %0, %1, %2, %3, %4;"                                  \
                 : "=r"(r) : "r"(var), "r"(b), "r"(((warpSize - width) << 8) | (clamp)), "r"(mask)); \
    return r;                                                                                  \
  }                                                                                            \
  static __device__ __forceinline__ unsigned name(unsigned mask, unsigned var, int b, int width = warpSize) { \
    return (unsigned)name(mask, (int)var, b, width);                                          \
  }
QGPU_SHFL(__shfl_sync, "idx", 0x1f)
QGPU_SHFL(__shfl_up_sync, "up", 0)
QGPU_SHFL(__shfl_down_sync, "down", 0x1f)
QGPU_SHFL(__shfl_xor_sync, "bfly", 0x1f)
#undef QGPU_SHFL
#define QGPU_SHFL_FLOAT(name)                                                                  \
  static __device__ __forceinline__ float name(unsigned mask, float var, int b, int width = warpSize) { \
    return __int_as_float(name(mask, __float_as_int(var), b, width));                         \
  }
QGPU_SHFL_FLOAT(__shfl_sync)
QGPU_SHFL_FLOAT(__shfl_up_sync)
QGPU_SHFL_FLOAT(__shfl_down_sync)
QGPU_SHFL_FLOAT(__shfl_xor_sync)
#undef QGPU_SHFL_FLOAT

static __device__ __forceinline__ unsigned __ballot_sync(unsigned mask, int predicate) {
  unsigned r;
  asm volatile("{ .reg .pred %%qgpu_vote; setp.ne.u32 %%qgpu_vote, %1, 0; "
               "vote.sync.ballot.b32 %0, %%qgpu_vote, %2; }"
               : "=r"(r) : "r"(predicate), "r"(mask));
  return r;
}
static __device__ __forceinline__ int __any_sync(unsigned mask, int predicate) {
  return __ballot_sync(mask, predicate) != 0;
}
static __device__ __forceinline__ int __all_sync(unsigned mask, int predicate) {
  return __ballot_sync(mask, !predicate) == 0;
}
/* bar.warp.sync: qgpu compiles it (and every shuffle and vote) to a rendezvous, where the
 * warp's live lanes meet before any of them goes on; memory is sequentially consistent. */
static __device__ __forceinline__ void __syncwarp(unsigned mask = 0xffffffff) {
  asm volatile("bar.warp.sync %0;" : : "r"(mask) : "memory"); /* a memory barrier too */
}
static __device__ __forceinline__ unsigned __activemask(void) {
  unsigned r;
  asm volatile("activemask.b32 %0;" : "=r"(r));
  return r;
}

#endif /* !__NVCC__ */
#endif /* QGPU_CUDA_H */
