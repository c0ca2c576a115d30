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
// - min/max/abs and the bit intrinsics follow CUDA's integer definitions.
// Compile the kernels with -fwrapv: CUDA integers wrap, and so must the oracle's.
#pragma once

// Headers a kernel may include are included first, so that the qualifier macros below
// cannot reach into them.
#include <atomic>
#include <barrier>
#include <bit>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
using uint3 = dim3;

inline thread_local dim3 threadIdx{0, 0, 0};
inline thread_local dim3 blockIdx{0, 0, 0};
inline thread_local dim3 blockDim{1, 1, 1};
inline thread_local dim3 gridDim{1, 1, 1};

namespace qgpu_emu {
inline thread_local std::barrier<> *block_barrier = nullptr;
}  // namespace qgpu_emu

#define __global__
#define __device__
#define __host__
#define __shared__ static
#define __constant__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)

inline void __syncthreads() { qgpu_emu::block_barrier->arrive_and_wait(); }

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

// ---- launch --------------------------------------------------------------------------

namespace qgpu_emu {

// Runs `kernel` once per CUDA thread of a grid x block launch. Blocks run one at a time,
// in linear order (blockIdx.y * grid.x + blockIdx.x), or reversed when `reverse` is set
// (threads are then also started last first); the threads of a block run concurrently and
// meet at __syncthreads().
void launch(dim3 grid, dim3 block, const std::function<void()> &kernel, bool reverse);

// Runs run_case(k, reverse) for every case k, blocks in forward and then reverse order,
// each in a forked child so that every run starts from the program's initial globals.
// The child prints "k forward|reverse {json}"; a child that fails makes this return 1.
int run_cases(int n_cases, int (*run_case)(int, bool));

// Prints one named array as `"name": [v, ...]`, each element as a signed 32-bit int.
template <class T>
void print_array(const char *name, const std::vector<T> &a, bool first) {
  std::printf("%s\"%s\": [", first ? "" : ", ", name);
  for (size_t i = 0; i < a.size(); i++) std::printf(i ? ", %d" : "%d", (int)a[i]);
  std::printf("]");
}

}  // namespace qgpu_emu

// The definitions of launch and run_cases, compiled once into one object file by a source
// that defines QGPU_EMU_IMPLEMENTATION before including this header (the single-header
// library pattern): every driver then links it instead of compiling it again.
#ifdef QGPU_EMU_IMPLEMENTATION
namespace qgpu_emu {

void launch(dim3 grid, dim3 block, const std::function<void()> &kernel, bool reverse) {
  const unsigned n_threads = block.x * block.y * block.z;
  const unsigned n_blocks = grid.x * grid.y * grid.z;
  for (unsigned k = 0; k < n_blocks; k++) {
    const unsigned b = reverse ? n_blocks - 1 - k : k;
    const dim3 block_idx{b % grid.x, b / grid.x % grid.y, b / (grid.x * grid.y)};
    std::barrier<> barrier(n_threads);
    std::vector<std::jthread> threads;
    for (unsigned i = 0; i < n_threads; i++) {
      const unsigned t = reverse ? n_threads - 1 - i : i;  // reversed: start last thread first
      threads.emplace_back([&, t] {
        threadIdx = dim3{t % block.x, t / block.x % block.y, t / (block.x * block.y)};
        blockIdx = block_idx;
        blockDim = block;
        gridDim = grid;
        block_barrier = &barrier;
        kernel();
        barrier.arrive_and_drop();  // finished threads no longer hold up __syncthreads()
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
