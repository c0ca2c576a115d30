// The forward pass's operations, each in a plain f32 reference form; the matmul also has a
// fast form (SIMD, threads), chosen in one place (MatmulPath) and tested equal to the
// reference within rounding (tests/ops_test.cpp).
//
// Rounding policy, as llama.cpp does it: a matmul whose weights are bf16 or f16 first rounds
// its input activations to that type and accumulates in f32; everything else is f32.
#pragma once

#include <cstdint>
#include <span>

#include "base/thread_pool.h"
#include "engine/model.h"

namespace qgpu::engine {

// y = x * rsqrt(mean(x^2) + eps) * w, over n elements (w: multiplier; sum in double).
void rms_norm(const float* x, const float* w, float* y, int64_t n, float eps);
// x <- x * rsqrt(sum(x^2) + eps) (the DeltaNet q/k L2 norm; eps 1e-6 as transformers).
void l2_norm(float* x, int64_t n, float eps);
float silu(float x);
float sigmoid(float x);
float softplus(float x);  // log(1 + e^x), = x above 20 as torch and ggml
// Partial NeoX RoPE on the first rot dims of x (rotate-half pairs i, i + rot/2).
void rope_neox(float* x, int rot, int64_t pos, double theta);

// Rounds count activations into dtype t (bf16/f16 as uint16 bits; f32 copied).
void quantize_activations(DType t, const float* x, void* xq, int64_t count);

enum class MatmulPath { reference, fast };

// Y[t][o] = sum_i round(X[t][i]) * W[o][i] for t < T; X: [T][in], Y: [T][out] (f32).
// `xq` is scratch of at least T*in elements of W's dtype (bytes: T*in*dtype_size).
void matmul_reference(const Linear& w, const float* x, float* y, int64_t T, void* xq);
void matmul_fast(const Linear& w, const float* x, float* y, int64_t T, void* xq, ThreadPool& pool);
// Whether this CPU runs the AVX-512 kernels (else matmul_fast uses portable loops).
bool cpu_has_avx512_bf16();

}  // namespace qgpu::engine
