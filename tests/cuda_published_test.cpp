// CUDA as people publish it: C++ kernels (mangled names, overloads, templates, default
// arguments), barriers that order memory at every optimisation level, dynamic shared
// memory one copy per resident block, vector types, every 32-bit atomic, cooperative
// groups, and one kernel of a file not failed by another's constructs. Each kernel runs
// on the interpreter; the values in the comments are worked out by hand (CUDA's results).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "base/error.h"
#include "compiler/compile.h"
#include "compiler/kernel_names.h"
#include "gpu/interp.h"
#include "test_util.h"

namespace qgpu {
namespace {

using Values = std::vector<int32_t>;
using test_util::TempFile;

struct Result {
  CompiledKernel k;
  std::map<std::string, Values> mem;  // every array after the launch, by name
};

// Compiles `source` with `qgpu run`'s launch options and runs it on the interpreter.
Result run_cuda(std::string_view source, const std::string& launch, const std::string& opt = "-Os") {
  TempFile cu(source, ".cu");
  CompileOptions o{.file = cu.path.string(), .opt_level = opt};
  parse_launch_options(split_run_line(launch), o);
  Result r{compile_cuda(source, o), {}};
  Trace t = run(r.k.program, r.k.program.launch);
  for (const Array& a : r.k.program.arrays) {
    std::vector<uint32_t> words = read_array(t.final, a);
    r.mem[a.name] = Values(words.begin(), words.end());
  }
  return r;
}

// The compile's error message ("" when it compiles).
std::string compile_error(std::string_view source, const std::string& launch) {
  try {
    run_cuda(source, launch);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

const std::vector<std::string> kOptLevels = {"-O1", "-Os", "-O2", "-O3", "-Oz"};

// NVIDIA's uniform_add (cuda-samples, shfl_scan), as published: C++ linkage, a __shared__
// scalar that thread 0 writes before __syncthreads() and every thread reads after it.
// clang 14's GlobalsAA moved the load above the barrier at -Os/-O2/-O3/-Oz (threads 1-3
// read the stale word: [11,2,3,4,25,6,7,8]); the barrier is now an asm with a memory clobber.
constexpr const char* kUniformAdd = R"(
__global__ void uniform_add(int *data, int *partial_sums, int len) {
  __shared__ int buf;
  int id = blockIdx.x * blockDim.x + threadIdx.x;
  if (id > len) return;
  if (threadIdx.x == 0) buf = partial_sums[blockIdx.x];
  __syncthreads();
  data[id] += buf;
}
)";

TEST(Barrier, SharedScalarReadAfterSyncthreadsAtEveryLevel) {
  for (const std::string& opt : kOptLevels) {
    Result r = run_cuda(kUniformAdd, "--grid 2 --block 4 --arg data=[1,2,3,4,5,6,7,8] --arg partial_sums=[10,20] --arg len=8", opt);
    EXPECT_EQ(r.mem["data"], (Values{11, 12, 13, 14, 25, 26, 27, 28})) << opt;
  }
}

// The family: a value broadcast through shared memory by one thread across each barrier
// form, at every level. Each thread ends with what the writer stored after the barrier.
TEST(Barrier, BroadcastThroughSharedAcrossEveryBarrierForm) {
  const std::vector<std::pair<std::string, std::string>> barriers = {
      {"__syncthreads()", "__syncthreads()"},
      {"__syncthreads_count(1)", "__syncthreads_count(1)"},
      {"__syncthreads_or(1)", "__syncthreads_or(1)"},
      {"cg::this_thread_block().sync()", "cg::this_thread_block().sync()"},
      {"__threadfence(); __syncthreads()", "__syncthreads()"},
  };
  for (const auto& [first, second] : barriers) {
    // Two rounds through one scalar and one array element, written by different threads.
    const std::string source = fmt::format(R"(
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void broadcast(const int *in, int *out) {{
  __shared__ int s;
  __shared__ int a[4];
  const int t = threadIdx.x;
  if (t == 1) s = in[blockIdx.x];
  {};
  int x = s;
  if (t == 3) a[2] = x * 10;
  {};
  out[blockIdx.x * blockDim.x + t] = x + a[2];
}}
)", first, second);
    for (const std::string& opt : kOptLevels) {
      Result r = run_cuda(source, "--grid 2 --block 4 --arg in=[3,5] --arg out=[0,0,0,0,0,0,0,0]", opt);
      EXPECT_EQ(r.mem["out"], (Values{33, 33, 33, 33, 55, 55, 55, 55})) << first << " " << opt;
    }
  }
}

// __syncwarp() orders memory between the lanes of a warp: lane 0 writes, lane 3 reads.
TEST(Barrier, SyncwarpOrdersSharedMemory) {
  constexpr const char* source = R"(
__global__ void warp_broadcast(const int *in, int *out) {
  __shared__ int s[4];
  int t = threadIdx.x;
  s[t] = in[t] + 1;
  __syncwarp();
  out[t] = s[3 - t];
}
)";
  for (const std::string& opt : kOptLevels)
    EXPECT_EQ(run_cuda(source, "--block 4 --arg in=[1,2,3,4] --arg out=[0,0,0,0]", opt).mem["out"], (Values{5, 4, 3, 2}))
        << opt;
}

// Dynamic shared memory: one copy per resident CUDA block, sized by --shared. Before, two
// resident blocks shared one copy: the reduction of [27 | 74] returned [74, 74].
constexpr const char* kDynamicReduce = R"(
__global__ void reduce(const int *g_idata, int *g_odata) {
  extern __shared__ int sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = g_idata[i];
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) sdata[tid] += sdata[tid + s];
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}
)";

TEST(DynamicShared, OneCopyPerResidentBlock) {
  Result r = run_cuda(kDynamicReduce, "--grid 2 --block 4 --shared 16 --arg g_idata=[20,3,4,0,70,1,2,1] --arg g_odata=[0,0]");
  EXPECT_EQ(r.mem["g_odata"], (Values{27, 74}));
  EXPECT_EQ(r.mem.count("sdata#0"), 1u);
  EXPECT_EQ(r.mem["sdata#0"].size(), 4u);  // 16 bytes
  EXPECT_EQ(r.mem.count("sdata#3"), 1u);   // four resident blocks of one warp
}

TEST(DynamicShared, EveryExternArrayStartsAtTheSameWord) {
  constexpr const char* source = R"(
__global__ void alias(int *out) {
  extern __shared__ int a[];
  extern __shared__ float f[];
  a[threadIdx.x] = 0x3f800000 * (threadIdx.x & 1);
  __syncthreads();
  out[threadIdx.x] = f[threadIdx.x] == 1.0f;
}
)";
  EXPECT_EQ(run_cuda(source, "--block 4 --shared 16 --arg out=[0,0,0,0]").mem["out"], (Values{0, 1, 0, 1}));
}

TEST(DynamicShared, WithoutItsSizeTheErrorNamesTheFlag) {
  const std::string e = compile_error(kDynamicReduce, "--grid 2 --block 4 --arg g_idata=[1,2,3,4,5,6,7,8] --arg g_odata=[0,0]");
  EXPECT_NE(e.find("dynamic shared memory"), std::string::npos) << e;
  EXPECT_NE(e.find("--shared BYTES"), std::string::npos) << e;
  EXPECT_NE(e.find("'sdata'"), std::string::npos) << e;
  // Too large for the machine's memory: the words it needs, as for any array.
  const std::string big = compile_error(kDynamicReduce, "--block 4 --shared 200 --arg g_idata=[1,2,3,4] --arg g_odata=[0]");
  EXPECT_NE(big.find("__shared__ sdata (dynamic) 50 x 4 copies"), std::string::npos) << big;
}

// C++ kernels: the source name, a demangled name in outputs, overloads, default arguments.
TEST(CxxKernels, MangledNamesAreTheSourceNames) {
  Result r = run_cuda(kUniformAdd, "--kernel uniform_add --grid 2 --block 4 --arg data=[1,2,3,4,5,6,7,8] "
                                   "--arg partial_sums=[10,20] --arg len=8");
  EXPECT_EQ(r.k.kernel, "uniform_add");
  EXPECT_EQ(r.k.program.kernel, "uniform_add");
  EXPECT_EQ(r.mem.count("buf#0"), 1u);  // the __shared__ variable by its own name
  // The kernel's signature also names it.
  EXPECT_EQ(run_cuda(kUniformAdd, "--kernel 'uniform_add(int*, int*, int)' --grid 2 --block 4 "
                                  "--arg data=[1,2,3,4,5,6,7,8] --arg partial_sums=[10,20] --arg len=8").k.kernel,
            "uniform_add");
}

TEST(CxxKernels, OverloadsAreToldApart) {
  constexpr const char* source = R"(
namespace ops {
__global__ void scale(int *x, int k) { x[threadIdx.x] *= k; }
__global__ void scale(float *x, float k) { x[threadIdx.x] *= k; }
}
)";
  const std::string e = compile_error(source, "--kernel scale --block 2 --arg x=[1,2] --arg k=3");
  EXPECT_NE(e.find("names 2 kernels"), std::string::npos) << e;
  EXPECT_NE(e.find("--kernel 'ops::scale(float*, float)'"), std::string::npos) << e;
  EXPECT_EQ(run_cuda(source, "--kernel 'scale(int*, int)' --block 2 --arg x=[1,2] --arg k=3").mem["x"], (Values{3, 6}));
  Result f = run_cuda(source, "--kernel 'ops::scale(float*, float)' --block 2 --arg x=[1.5,2] --arg k=2");
  EXPECT_EQ(f.mem["x"], (Values{0x40400000, 0x40800000}));  // 3.0f, 4.0f: k read as a float
}

TEST(CxxKernels, DefaultArgumentsConstRestrictAndReferences) {
  constexpr const char* source = R"(
#include <cuda_runtime.h>
namespace detail {
constexpr int kScale = 3;
__device__ void bump(int &v, const int by) { v += by; }
}
static_assert(detail::kScale == 3, "scale");
__global__ void saxpy_int(const int *__restrict__ x, int *__restrict__ y, int a, int *partial = NULL) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = a * x[i];
  detail::bump(v, detail::kScale);
  y[i] += v;
  if (partial != NULL && i == 0) partial[0] = 1;
}
)";
  Result r = run_cuda(source, "--block 4 --arg x=[1,2,3,4] --arg y=[10,20,30,40] --arg a=2 --arg partial=[0]");
  EXPECT_EQ(r.mem["y"], (Values{15, 27, 39, 51}));
  EXPECT_EQ(r.mem["partial"], (Values{1}));
}

// Templates: --kernel 'NAME<ARGS>' instantiates the kernel for the launch; a float T reads
// float arguments; a template not named with its arguments gets a message that says how.
constexpr const char* kTemplateReduce = R"(
template <typename T, unsigned int blockSize>
__global__ void reduce(const T *__restrict__ in, T *out, unsigned int n) {
  __shared__ T s[blockSize];
  unsigned int t = threadIdx.x;
  s[t] = t < n ? in[blockIdx.x * blockSize + t] : T(0);
  __syncthreads();
  if (blockSize >= 4) { if (t < 2) s[t] += s[t + 2]; __syncthreads(); }
  if (t == 0) out[blockIdx.x] = s[0] + s[1];
}
)";

TEST(Templates, InstantiatedByTheLaunch) {
  Result i = run_cuda(kTemplateReduce, "--kernel 'reduce<int,4>' --grid 2 --block 4 --arg in=[1,2,3,4,5,6,7,8] --arg out=[0,0] --arg n=4");
  EXPECT_EQ(i.mem["out"], (Values{10, 26}));
  EXPECT_EQ(i.k.kernel, "reduce<int, 4u>");
  Result f = run_cuda(kTemplateReduce, "--kernel 'reduce<float, 4>' --block 4 --arg in=[0.5,0.25,1,2] --arg out=[0] --arg n=4");
  EXPECT_EQ(f.mem["out"], (Values{0x40700000}));  // (0.5 + 1) + (0.25 + 2) = 3.75f
  const std::string e = compile_error(kTemplateReduce, "--kernel reduce --block 4 --arg in=[1] --arg out=[0] --arg n=1");
  EXPECT_NE(e.find("--kernel 'NAME<int,16>'"), std::string::npos) << e;
  const std::string bad = compile_error(kTemplateReduce, "--kernel 'reduce<int>' --block 4 --arg in=[1] --arg out=[0] --arg n=1");
  EXPECT_NE(bad.find("clang could not compile"), std::string::npos) << bad;
}

TEST(Templates, ExplicitInstantiationsInTheFile) {
  const std::string source = std::string(kTemplateReduce) +
                             "template __global__ void reduce<int, 4>(const int *, int *, unsigned int);\n"
                             "template __global__ void reduce<unsigned, 2>(const unsigned *, unsigned *, unsigned int);\n";
  EXPECT_EQ(run_cuda(source, "--kernel 'reduce<unsigned int, 2u>' --block 2 --arg in=[7,8] --arg out=[0] --arg n=2").mem["out"],
            (Values{15}));
  const std::string e = compile_error(source, "--block 4 --arg in=[1] --arg out=[0] --arg n=1");
  EXPECT_NE(e.find("reduce<int, 4u>(int const*, int*, unsigned int)"), std::string::npos) << e;
}

TEST(KernelNames, Demangled) {
  KernelName k = kernel_name("_Z6reduceIiLj16EEvPKT_PS0_j");
  EXPECT_EQ(k.name, "reduce<int, 16u>");
  EXPECT_EQ(k.base, "reduce");
  EXPECT_EQ(k.param_types, (std::vector<std::string>{"int const*", "int*", "unsigned int"}));
  EXPECT_TRUE(names_kernel("reduce<int,16>", k));
  EXPECT_TRUE(names_kernel("reduce<int, 16u>(int const*, int*, unsigned)", k));
  EXPECT_FALSE(names_kernel("reduce<int,8>", k));
  EXPECT_EQ(kernel_name("vecadd").name, "vecadd");
  EXPECT_EQ(variable_name("_ZZ11uniform_addPiS_iE3buf"), "buf");
}

// Vector types: int4 loads and stores are four words each.
TEST(VectorTypes, Int4AndFloat2LoadsAndStores) {
  constexpr const char* source = R"(
__global__ void swizzle(const int *__restrict__ in, int *__restrict__ out, float *f) {
  int i = threadIdx.x;
  int4 v = reinterpret_cast<const int4 *>(in)[i];
  reinterpret_cast<int4 *>(out)[i] = make_int4(v.w, v.z, v.y, v.x + 100);
  float2 p = reinterpret_cast<float2 *>(f)[i];
  reinterpret_cast<float2 *>(f)[i] = make_float2(p.y, p.x);
}
)";
  for (const char* opt : {"-Os", "-O3"}) {
    Result r = run_cuda(source, "--block 2 --arg in=[1,2,3,4,5,6,7,8] --arg out=[0,0,0,0,0,0,0,0] --arg f=[1,2,3,4]", opt);
    EXPECT_EQ(r.mem["out"], (Values{4, 3, 2, 101, 8, 7, 6, 105})) << opt;
    EXPECT_EQ(r.mem["f"], (Values{0x40000000, 0x3f800000, 0x40800000, 0x40400000})) << opt;
  }
}

// Every 32-bit atomic: the classic simpleAtomicIntrinsics sequence, four threads.
TEST(Atomics, EveryIntegerAtomicAndFloatAdd) {
  constexpr const char* source = R"(
__global__ void atomics(int *g, unsigned *u, float *f) {
  const int t = threadIdx.x;
  atomicAdd(&g[0], 10);
  atomicSub(&g[1], 10);
  atomicMax(&g[2], t);
  atomicMin(&g[3], t);
  atomicCAS(&g[4], t - 1, t);
  atomicAnd(&g[5], ~(1 << t));
  atomicOr(&g[6], 1 << t);
  atomicXor(&g[7], 3 << t);
  atomicInc(&u[0], 2);
  atomicDec(&u[1], 5);
  atomicAdd(&f[0], 0.5f * t);
  g[8 + t] = (int)atomicExch(&f[1], (float)t);
}
)";
  Result r = run_cuda(source, "--block 4 --arg g=[0,0,-5,9,0,-1,0,0,0,0,0,0] --arg u=[0,0] --arg f=[1,0]");
  // atomicCAS(&g[4], t - 1, t) advances 0 -> 1 -> 2 -> 3 when threads run in order, as lanes do.
  EXPECT_EQ(r.mem["g"], (Values{40, -40, 3, 0, 3, -16, 15, 17, 0, 0, 1, 2}));  // (int) of the old floats 0, 0, 1, 2
  EXPECT_EQ(r.mem["u"], (Values{1, 2}));               // inc: 1,2,0,1; dec: 5,4,3,2
  EXPECT_EQ(r.mem["f"], (Values{0x40800000, 0x40400000}));  // 1 + 0 + 0.5 + 1 + 1.5 = 4; last exch 3
}

// Cooperative groups: tiles of a block, their shuffles, votes and cg::reduce.
TEST(CooperativeGroups, TilesReduceAndVote) {
  constexpr const char* source = R"(
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
__global__ void tiles(const int *in, int *out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<4> tile = cg::tiled_partition<4>(block);
  cg::thread_block_tile<2> pair = cg::tiled_partition<2>(block);
  int v = in[block.thread_rank()];
  int sum = cg::reduce(tile, v, cg::plus<int>());
  int lo = cg::reduce(pair, v, cg::less<int>());
  if (tile.thread_rank() == 0) atomicAdd(&out[0], sum);
  out[2 + block.thread_rank()] = lo * 100 + (int)tile.ballot(v > 2) * 10 + tile.any(v == 7);
  block.sync();
  if (block.thread_rank() == 0) out[1] = block.size() * 1000 + tile.meta_group_size();
}
)";
  Result r = run_cuda(source, "--block 8 --arg in=[4,1,3,2,5,8,7,6] --arg out=[0,0,0,0,0,0,0,0,0,0]");
  // Tiles of 4: {4,1,3,2} sum 10, ballot(v>2) = 0b0101 = 5; {5,8,7,6}: 26, 0b1111 = 15, has a 7.
  // Pairs' minima: 1, 2, 5, 6.
  EXPECT_EQ(r.mem["out"], (Values{36, 8002, 150, 150, 250, 250, 651, 651, 751, 751}));
  const std::string e = compile_error(R"(
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void wide(int *out) { out[cg::tiled_partition<8>(cg::this_thread_block()).thread_rank()] = 1; }
)", "--block 8 --arg out=[0,0,0,0,0,0,0,0]");
  EXPECT_NE(e.find("at most warpSize = 4 threads"), std::string::npos) << e;
}

// One kernel's problem stays its own: another kernel of the file with constructs the machine
// lacks (double, 64-bit division, printf, malloc) does not fail this one.
TEST(SeveralKernels, AnotherKernelsConstructsDoNotMatter) {
  constexpr const char* source = R"(
__global__ void fine(int *x) { x[threadIdx.x] += 1; }
__global__ void heavy(double *d, long long *q, int k) {
  int t[8];
  for (int i = 0; i < 8; ++i) t[i] = i * k;
  d[0] = d[0] * 1.5 + t[k & 7];
  q[0] = q[0] / (q[1] + k);
}
__global__ void shuffles(int *x) { x[threadIdx.x] = __shfl_xor_sync(0xffffffff, x[threadIdx.x], 1); }
__global__ void talk(int *x) { printf("t=%d\n", (int)threadIdx.x); int *p = (int *)malloc(8); x[0] = p != 0; free(p); }
)";
  Result r = run_cuda(source, "--kernel fine --block 4 --arg x=[1,2,3,4]");
  EXPECT_EQ(r.mem["x"], (Values{2, 3, 4, 5}));
  EXPECT_EQ(r.mem.count("__shfl"), 0u);  // the other kernel's shuffle words are not this one's
  const std::string e = compile_error(source, "--kernel heavy --block 1 --arg d=[0,0] --arg q=[0,0,0,0] --arg k=1");
  EXPECT_FALSE(e.empty());  // that kernel itself is refused
  const std::string p = compile_error(source, "--kernel talk --block 1 --arg x=[0]");
  EXPECT_NE(p.find("'vprintf' has no body here (printf, malloc"), std::string::npos) << p;
}

// Pointers compared: exact in 32 bits when both sides are addresses; a long long is not.
TEST(Pointers, ComparedWithNullAndEachOther) {
  constexpr const char* source = R"(
__global__ void walk(const int *begin, const int *end, int *out) {
  int n = 0;
  for (const int *p = begin; p < end; ++p) n += *p;
  out[threadIdx.x] = (begin != NULL) * 1000 + n;
}
__global__ void wide(long long *x, int *out) { out[0] = x[0] != 5; }
)";
  EXPECT_EQ(run_cuda(source, "--kernel walk --block 2 --arg begin=[1,2,3] --arg end=[0] --arg out=[0,0]").mem["out"],
            (Values{1006, 1006}));  // end's array follows begin's: the loop reads 1, 2, 3
  // A long long compared: both halves (its high word 1 makes it 2^32 + 5, not 5).
  EXPECT_EQ(run_cuda(source, "--kernel wide --block 1 --arg x=[5,0] --arg out=[7]").mem["out"], (Values{0}));
  EXPECT_EQ(run_cuda(source, "--kernel wide --block 1 --arg x=[5,1] --arg out=[7]").mem["out"], (Values{1}));
}

// A local array indexed at run time (a median filter's insertion sort): one copy per lane.
TEST(LocalArrays, OneCopyPerLane) {
  constexpr const char* source = R"(
__global__ void median5(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int w[5];
  for (int k = 0; k < 5; ++k) w[k] = in[min(max(i + k - 2, 0), n - 1)];
  for (int a = 1; a < 5; ++a) {
    int v = w[a], b = a - 1;
    while (b >= 0 && w[b] > v) { w[b + 1] = w[b]; --b; }
    w[b + 1] = v;
  }
  out[i] = w[2];
}
)";
  for (const char* opt : {"-Os", "-O2"}) {
    Result r = run_cuda(source, "--grid 2 --block 4 --arg in=[5,1,9,3,7,2,8,6] --arg out=[0,0,0,0,0,0,0,0] --arg n=8", opt);
    EXPECT_EQ(r.mem["out"], (Values{5, 5, 5, 3, 7, 6, 6, 6})) << opt;
    EXPECT_EQ(r.mem["__local"].size(), 5u * 16) << opt;  // 5 words for each of the 16 lanes
  }
  // Too large for memory: the message counts the local array's copies.
  const std::string e = compile_error(R"(
__global__ void big(const int *in, int *out) {
  int t[8];
  for (int k = 0; k < 8; ++k) t[k] = in[k];
  out[0] = t[in[0] & 7];
}
)", "--block 1 --arg in=[1,2,3,4,5,6,7,8] --arg out=[0]");
  EXPECT_NE(e.find("local array 8 x 16 lanes"), std::string::npos) << e;
}

// __constant__ and __device__ variables set from the command line, as cudaMemcpyToSymbol would.
TEST(ConstantMemory, SetFromTheCommandLine) {
  constexpr const char* source = R"(
__constant__ float coeffs[4];
__constant__ int bias = 7;
__device__ int counter;
__global__ void poly(const float *x, float *y, int *n) {
  int i = threadIdx.x;
  float v = x[i];
  y[i] = fmaf(fmaf(fmaf(coeffs[3], v, coeffs[2]), v, coeffs[1]), v, coeffs[0]);
  atomicAdd(&counter, bias);
  __syncthreads();
  if (i == 0) n[0] = counter;
}
)";
  Result r = run_cuda(source, "--block 4 --arg x=[0,1,2,-1] --arg y=[0,0,0,0] --arg n=[0] --arg coeffs=[1,2,0.5,0.25] --arg counter=100");
  EXPECT_EQ(r.mem["y"], (Values{0x3f800000, 0x40700000, 0x41100000, int32_t(0xbf400000)}));  // 1, 3.75, 9, -0.75
  EXPECT_EQ(r.mem["n"], (Values{128}));
  EXPECT_EQ(run_cuda(source, "--block 4 --arg x=[0,1,2,-1] --arg y=[0,0,0,0] --arg n=[0] --arg coeffs=[0,0,0,0] --arg bias=1")
                .mem["n"], (Values{4}));
  const std::string e = compile_error(source, "--block 4 --arg x=[0,0,0,0] --arg y=[0,0,0,0] --arg n=[0] --arg coeffs=[1,2,3,4,5]");
  EXPECT_NE(e.find("5 values for 'coeffs', which holds 4"), std::string::npos) << e;
  const std::string s = compile_error(source, "--block 4 --arg x=[0,0,0,0] --arg y=[0,0,0,0] --arg n=[0] --arg bias=[1]");
  EXPECT_NE(s.find("'bias' is a scalar"), std::string::npos) << s;
}

// 8- and 16-bit data: chars, bools and shorts packed in words, read back in their type;
// threads writing adjacent chars of one word (and the same flag) all land.
TEST(SmallData, CharsBoolsAndShorts) {
  constexpr const char* source = R"(
__global__ void caesar(const unsigned char *in, unsigned char *out, int shift, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned char c = in[i];
    if (c >= 'a' && c <= 'z') c = 'a' + (c - 'a' + shift) % 26;
    out[i] = c;
  }
}
__global__ void flags(const int *x, bool *pos, short *half, bool *any, char *sign, int n) {
  int i = threadIdx.x;
  if (i < n) {
    pos[i] = x[i] > 0;
    half[i] = (short)(x[i] / 2);
    if (x[i] > 100) *any = true;
    sign[i] = x[i] < 0 ? -1 : (char)(x[i] & 127);
  }
}
__global__ void scale_shorts(const short *s, unsigned short *u, int *out, signed char k) {
  short w = s[threadIdx.x] * k;
  u[threadIdx.x] = (unsigned short)w;
  atomicAdd(out, w < 0 ? -1 : (int)w);
}
)";
  for (const std::string& opt : kOptLevels) {
    Result c = run_cuda(source, "--kernel caesar --grid 2 --block 4 --arg in=[104,101,108,108,111,122,33,200] "
                                "--arg out=[0,0,0,0,0,0,0,0] --arg shift=3 --arg n=7", opt);
    EXPECT_EQ(array_elements(c.k.program.arrays[1], {uint32_t(c.mem["out"][0]), uint32_t(c.mem["out"][1])}),
              (std::vector<int64_t>{107, 104, 111, 111, 114, 99, 33, 0})) << opt;
    Result f = run_cuda(source, "--kernel flags --block 8 --arg x=[1,-2,300,0,5,-7,200,9] --arg pos=[0,0,0,0,0,0,0,0] "
                                "--arg half=[0,0,0,0,0,0,0,0] --arg any=[0] --arg sign=[0,0,0,0,0,0,0,0] --arg n=8", opt);
    auto elements = [&](const std::string& name) {
      for (const Array& a : f.k.program.arrays)
        if (a.name == name) return array_elements(a, std::vector<uint32_t>(f.mem[name].begin(), f.mem[name].end()));
      return std::vector<int64_t>{};
    };
    EXPECT_EQ(elements("pos"), (std::vector<int64_t>{1, 0, 1, 0, 1, 0, 1, 1})) << opt;
    EXPECT_EQ(elements("half"), (std::vector<int64_t>{0, -1, 150, 0, 2, -3, 100, 4})) << opt;
    EXPECT_EQ(elements("any"), (std::vector<int64_t>{1})) << opt;  // two threads set it in one step
    EXPECT_EQ(elements("sign"), (std::vector<int64_t>{1, -1, 44, 0, 5, -1, 72, 9})) << opt;
    EXPECT_EQ(f.mem["pos"].size(), 2u);  // 8 bools in 2 words
  }
  Result s = run_cuda(source, "--kernel scale_shorts --block 4 --arg s=[1,2,-3,20000] --arg u=[0,0,0,0] --arg out=[0] --arg k=3");
  EXPECT_EQ(s.mem["out"], (Values{7}));  // 3 + 6 - 1 - 1: 60000 is -5536 as a short
  EXPECT_EQ(array_elements(s.k.program.arrays[1], {uint32_t(s.mem["u"][0]), uint32_t(s.mem["u"][1])}),
            (std::vector<int64_t>{3, 6, 65527, 60000}));
  const std::string e = compile_error(source, "--kernel scale_shorts --block 4 --arg s=[1,2,3,40000] --arg u=[0,0,0,0] --arg out=[0] --arg k=3");
  EXPECT_NE(e.find("'40000' is not a short (-32768..32767"), std::string::npos) << e;
  EXPECT_NE(compile_error(source, "--kernel flags --block 1 --arg x=[1] --arg pos=[2] --arg half=[0] --arg any=[0] "
                                  "--arg sign=[0] --arg n=1").find("is not a bool (0..1"), std::string::npos);
}

// size_t and long indices compared with their bounds, long long data: exact, each 64-bit
// value carried with its high half (the kernel's second lowering, lower_wide.cpp).
TEST(SixtyFourBit, SizeTLongAndLongLongCompares) {
  constexpr const char* source = R"(
__global__ void scale(float *x, size_t n, float a) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)blockDim.x * gridDim.x) x[i] *= a;
}
__global__ void idx64(const int *x, int *y, long n) {
  long i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * 2;
}
__global__ void ll(const long long *a, int *out) {
  int t = threadIdx.x;
  long long v = a[t] * 3 + 7;
  out[t] = (v > 10000000000LL) * 100 + (v < 0) * 10 + (v == 10);
}
__device__ __noinline__ int below(long i, long n) { return i < n; }
__global__ void call(int *y, long n) { y[threadIdx.x] = below(threadIdx.x, n); }
)";
  for (const char* opt : {"-Os", "-O3"}) {
    EXPECT_EQ(run_cuda(source, "--kernel scale --grid 2 --block 2 --arg x=[1,2,3,4,5] --arg n=5 --arg a=2", opt).mem["x"],
              (Values{0x40000000, 0x40800000, 0x40c00000, 0x41000000, 0x41200000})) << opt;
    EXPECT_EQ(run_cuda(source, "--kernel idx64 --grid 2 --block 4 --arg x=[1,2,3,4,5] --arg y=[0,0,0,0,0] --arg n=5", opt)
                  .mem["y"], (Values{2, 4, 6, 8, 10})) << opt;
    EXPECT_EQ(run_cuda(source, "--kernel idx64 --grid 2 --block 4 --arg x=[1,2,3,4,5] --arg y=[0,0,0,0,0] --arg n=-1", opt)
                  .mem["y"], (Values{0, 0, 0, 0, 0})) << opt;  // i < -1 for no i: signed
    // Each long long is two words, low first: 1, -4294967295, -21474836479, 8589934592.
    EXPECT_EQ(run_cuda(source, "--kernel ll --block 4 --arg a=[1,0,1,-1,1,-5,0,2] --arg out=[0,0,0,0]", opt).mem["out"],
              (Values{1, 10, 10, 100})) << opt;
  }
  const std::string e = compile_error(source, "--kernel idx64 --block 4 --arg x=[1] --arg y=[0] --arg n=3000000000");
  EXPECT_NE(e.find("what a long parameter holds here"), std::string::npos) << e;
  const std::string u = compile_error(source, "--kernel scale --block 4 --arg x=[1] --arg n=-1 --arg a=1");
  EXPECT_NE(u.find("is negative, and parameter 'n' is unsigned"), std::string::npos) << u;
  // A long passed to a function that is not inlined keeps only its low half: its compare is refused.
  const std::string c = compile_error(source, "--kernel call --block 4 --arg y=[0,0,0,0] --arg n=2");
  EXPECT_NE(c.find("this 64-bit compare needs the high half of %rd"), std::string::npos) << c;
}

TEST(RunLines, QuotesAndTheSharedFlag) {
  EXPECT_EQ(split_run_line("--kernel 'reduce<int, 16>' --grid 2"),
            (std::vector<std::string>{"--kernel", "reduce<int, 16>", "--grid", "2"}));
  CompileOptions o;
  parse_launch_options(split_run_line("--grid 2 --block 8 --shared=64 --arg x=[1,2]"), o);
  EXPECT_EQ(o.shared_bytes, 64);
  EXPECT_EQ(o.launch.grid_x, 2);
  EXPECT_THROW(parse_launch_options({"--shared", "-4"}, o), Error);
  EXPECT_THROW(parse_launch_options({"--stream", "1"}, o), Error);
  EXPECT_THROW(split_run_line("--kernel 'f<int>"), Error);
}

}  // namespace
}  // namespace qgpu
